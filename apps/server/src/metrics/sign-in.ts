/**
 * Why a sign-in was refused: the `reason` of parley_sign_in_failures_total, one of a fixed
 * set (never the login, an address or an id). The sign-in route names the reasons only it
 * can tell apart (signInRefused); the rest follow from the answer's status (signInFailureOf).
 * Counted once per refused request, when its answer has gone (metrics/routes.ts).
 */
import type { FastifyRequest } from 'fastify';

export const SIGN_IN_FAILURE_REASONS = [
  /** No account has the login typed. */
  'unknown_login',
  /** The account exists; the password (its `auth`) is wrong. */
  'wrong_password',
  /** An account from before end-to-end encryption, while LEGACY_PASSWORDS is off. */
  'legacy_closed',
  /** The right password, but the administrator blocked the account. */
  'blocked',
  /** Refused by a sign-in attempt limit or the API's request limit (429). */
  'rate_limited',
  /** A body the schema refuses (400), too large (413) or not JSON (415). */
  'invalid_input',
  /** The server failed (5xx). */
  'error',
  /** Any other refusal (the origin guard's 403, …). */
  'other',
] as const;

export type SignInFailureReason = (typeof SIGN_IN_FAILURE_REASONS)[number];

const named = new WeakMap<FastifyRequest, SignInFailureReason>();

/** The sign-in route refuses `req` for `reason` (call it before throwing the refusal). */
export function signInRefused(req: FastifyRequest, reason: SignInFailureReason): void {
  named.set(req, reason);
}

/** Why sign-in request `req` was answered `status` (a refusal: 400 and up). */
export function signInFailureOf(req: FastifyRequest, status: number): SignInFailureReason {
  const reason = named.get(req);
  if (reason) return reason;
  if (status === 429) return 'rate_limited';
  if (status === 400 || status === 413 || status === 415) return 'invalid_input';
  if (status >= 500) return 'error';
  return 'other';
}
