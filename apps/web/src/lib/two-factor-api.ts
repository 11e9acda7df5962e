/**
 * HTTP calls of two-step sign-in (protocol two-factor.ts): the second step of a sign-in, an
 * app set up during one the operator requires, and the account's ways on the settings page.
 * Passkeys go through the browser's WebAuthn (@simplewebauthn/browser), loaded with this.
 */
import {
  API,
  noContentSchema,
  recoveryCodesSchema,
  signedInResponseSchema,
  type TwoFactorStatus,
  totpSetupSchema,
  twoFactorStatusSchema,
} from '@app/protocol';
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { z } from 'zod';
import { api } from './api';

type Options = Record<string, unknown>;

export function loadTwoFactor(): Promise<TwoFactorStatus> {
  return api(twoFactorStatusSchema, 'GET', API.twoFactor);
}

export function startTotp() {
  return api(totpSetupSchema, 'POST', API.twoFactorTotp, {});
}

/** The app's first code turns it on (`auth`: the password confirms it); the recovery codes come with the first way. */
export async function confirmTotp(code: string, auth: string): Promise<string[] | null> {
  return (await api(recoveryCodesSchema, 'POST', `${API.twoFactorTotp}/confirm`, { code, auth })).recoveryCodes ?? null;
}

/** This browser's passkey (or a security key) as a new way; the recovery codes when it is the first. */
export async function addPasskey(name: string, auth: string): Promise<string[] | null> {
  const options = await api(z.record(z.string(), z.unknown()), 'POST', API.passkeyOptions, {});
  const response = await startRegistration({ optionsJSON: options as never });
  return (await api(recoveryCodesSchema, 'POST', API.passkeys, { name, response, auth })).recoveryCodes ?? null;
}

export async function removeTotp(auth: string): Promise<void> {
  await api(noContentSchema, 'DELETE', API.twoFactorTotp, { auth });
}

export async function removePasskey(id: string, auth: string): Promise<void> {
  await api(noContentSchema, 'DELETE', `${API.passkeys}/${encodeURIComponent(id)}`, { auth });
}

export async function newRecoveryCodes(auth: string): Promise<string[]> {
  return (await api(recoveryCodesSchema, 'POST', API.recoveryCodes, { auth })).recoveryCodes ?? [];
}

// ---- a sign-in's second step --------------------------------------------------------------

const signedInWithCodes = signedInResponseSchema.extend({ recoveryCodes: z.array(z.string()).optional() });

export type SecondStep = { totp: string } | { recovery: string } | { passkey: Options };

/** Passes the second step; the sign-in's answer (session and sealed keys). */
export async function secondStep(token: string, step: SecondStep) {
  if ('passkey' in step) {
    const response = await startAuthentication({ optionsJSON: step.passkey as never });
    return api(signedInWithCodes, 'POST', API.secondFactor, { token, passkey: response });
  }
  return api(signedInWithCodes, 'POST', API.secondFactor, { token, ...step });
}

/** Setting up an app during a sign-in the operator requires one for. */
export function enrolStart(token: string) {
  return api(totpSetupSchema, 'POST', API.enrolTotp, { token });
}

export function enrolConfirm(token: string, code: string) {
  return api(signedInWithCodes, 'POST', `${API.enrolTotp}/confirm`, { token, code });
}
