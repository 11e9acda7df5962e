/**
 * What a failed send means, and when the outbox tries it again (its failure rules, outbox.ts):
 * a lost connection waits for the next one, a transient refusal is tried again after a
 * backoff up to MAX_ATTEMPTS times, any other refusal is final.
 */
import type { WsErrorCode } from '@app/protocol';

/** Key refusals a send gets over again at once (after fetching keys anew) before it counts as a failed attempt. */
export const KEY_RETRIES = 3;

/** Sends of one message that may fail transiently before it counts as failed. */
export const MAX_ATTEMPTS = 8;
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * The longest wait before trying again after `failures` (≥ 1) failed attempts: 1 s
 * doubling, at most 30 s. The wait itself is jittered below it (withJitter).
 */
export function retryDelay(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * How each server error affects a send. A Record, so a new error code does not compile
 * until it is sorted here; at run time an unknown code counts as transient.
 */
const SEND_ERRORS: Record<WsErrorCode, 'transient' | 'permanent'> = {
  internal: 'transient',
  rate_limited: 'transient',
  invalid_frame: 'permanent',
  forbidden: 'permanent',
  not_found: 'permanent',
  // A message id taken (never, with UUIDs) or, usually, a chat key made at the same moment by the peer.
  conflict: 'transient',
  rekey_required: 'transient',
  recipient_no_keys: 'permanent',
  recipient_unavailable: 'permanent',
  request_pending: 'permanent',
  too_large: 'permanent',
  pin_required: 'permanent',
  locked: 'permanent',
};

/** What a failed send means: wait for the connection, try again later, or give up. */
export function sendFailureKind(code: string): 'offline' | 'transient' | 'permanent' {
  if (code === 'offline') return 'offline';
  return Object.hasOwn(SEND_ERRORS, code) ? SEND_ERRORS[code as WsErrorCode] : 'transient';
}
