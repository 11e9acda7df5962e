/**
 * Two-step sign-in's rules (protocol two-factor.ts; routes in two-factor-routes.ts). Once the
 * password step passes, an account with a second way (an authenticator app, a passkey), or
 * any account when the operator requires it, gets a pending sign-in instead of a session: an
 * opaque token, good for 5 minutes and 5 attempts (each counted before it is judged), and a
 * passkey challenge when it has passkeys. The session, and the sealed keys, come only with the
 * second step. Recovery codes are ten random codes of 50 bits, kept as argon2id hashes, each
 * good once; a set is made when the first way is set up, and anew on request.
 */
import { randomBytes } from 'node:crypto';
import { RECOVERY_CODES, type SecondFactorDue, type SecondFactorMethod } from '@app/protocol';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Config } from '../config.ts';
import type { Passkey, Pending, TwoFactorStore } from '../storage/accounts/two-factor-store.ts';
import { hashSecret, verifySecret } from './passwords.ts';
import { newToken } from './tokens.ts';
import { stepOf, TotpSealer, totpUri } from './totp.ts';

/** How long the second step may take, and how many tries it gets. */
export const PENDING_MS = 5 * 60 * 1000;
export const PENDING_ATTEMPTS = 5;

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A recovery code as shown: `xxxxx-xxxxx` (no 0/o, 1/l/i to misread). */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

export class TwoFactor {
  readonly store: TwoFactorStore;
  private readonly config: Config;
  private readonly sealer: TotpSealer;
  private readonly rpId: string;
  private readonly origins: string[];

  constructor(store: TwoFactorStore, config: Config, sessionSecret: string) {
    this.store = store;
    this.config = config;
    this.sealer = new TotpSealer(sessionSecret);
    const pub = new URL(config.publicUrl);
    this.rpId = pub.hostname;
    this.origins = [...new Set([pub.origin, ...config.allowedOrigins])];
  }

  /** What the account can pass a second step with (its app only once confirmed). */
  async methods(userId: string): Promise<{ totp: boolean; passkeys: Passkey[] }> {
    const [totp, passkeys] = await Promise.all([this.store.totp(userId), this.store.passkeys(userId)]);
    return { totp: totp?.confirmed === true, passkeys };
  }

  /** Whether a sign-in of this account needs a second step. */
  async due(userId: string): Promise<boolean> {
    return this.config.require2fa || (await this.hasWay(userId));
  }

  /** The password step passed: a pending sign-in (its token's hash is what is stored). */
  async begin(userId: string, login: string, remember: boolean, hash: (t: string) => string): Promise<SecondFactorDue> {
    const m = await this.methods(userId);
    const methods: SecondFactorMethod[] = [];
    if (m.totp) methods.push('totp');
    if (m.passkeys.length) methods.push('passkey');
    if (methods.length) methods.push('recovery');
    const passkey = m.passkeys.length
      ? await generateAuthenticationOptions({
          rpID: this.rpId,
          allowCredentials: m.passkeys.map((p) => ({ id: p.id, transports: p.transports as never })),
          userVerification: 'preferred',
        })
      : undefined;
    const token = newToken();
    await this.store.addPending(
      hash(token),
      { userId, login, remember, challenge: passkey?.challenge ?? null },
      Date.now() + PENDING_MS,
    );
    return {
      token,
      methods,
      enrol: methods.length === 0,
      ...(passkey ? { passkey: passkey as unknown as Record<string, unknown> } : {}),
    };
  }

  /** Counts an attempt at the second step of `token`; null when it is over (expired, or out of tries). */
  attempt(tokenHash: string): Promise<Pending | null> {
    return this.store.attempt(tokenHash, PENDING_ATTEMPTS, Date.now());
  }

  // ---- the authenticator app ---------------------------------------------------------------

  /** A new secret for the account to scan (replacing one not confirmed yet); null if one is set up. */
  async startTotp(userId: string, account: string): Promise<{ secret: string; uri: string } | null> {
    const secret = TotpSealer.newSecret();
    if (!(await this.store.startTotp(userId, this.sealer.seal(userId, secret), Date.now()))) return null;
    return { secret, uri: totpUri(secret, new URL(this.config.publicUrl).host, account) };
  }

  /**
   * Checks a code against the account's secret and takes its time step: `confirm` for the
   * first code after setting it up (then it is on), else a code of a confirmed one.
   */
  async checkTotp(userId: string, code: string, confirm: boolean): Promise<boolean> {
    const t = await this.store.totp(userId);
    if (!t || t.confirmed === confirm) return false;
    const secret = this.sealer.open(userId, t.secret);
    const step = secret === null ? null : stepOf(secret, code);
    return step !== null && (await this.store.takeStep(userId, step, confirm));
  }

  // ---- passkeys -----------------------------------------------------------------------------

  async passkeyOptions(user: { id: string; username: string; name: string }) {
    const existing = await this.store.passkeys(user.id);
    const options = await generateRegistrationOptions({
      rpName: 'Parley',
      rpID: this.rpId,
      userName: user.username,
      userDisplayName: user.name,
      userID: new TextEncoder().encode(user.id),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports as never })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await this.store.setPasskeyChallenge(user.id, options.challenge, Date.now() + PENDING_MS);
    return options;
  }

  /** Verifies a registration against the account's challenge (taken once) and keeps the passkey. */
  async addPasskey(userId: string, name: string, response: RegistrationResponseJSON): Promise<boolean> {
    const challenge = await this.store.takePasskeyChallenge(userId, Date.now());
    if (!challenge) return false;
    const v = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.origins,
      expectedRPID: this.rpId,
      requireUserVerification: false,
    }).catch(() => null);
    if (!v?.verified) return false;
    const c = v.registrationInfo.credential;
    return this.store.addPasskey({
      id: c.id,
      userId,
      publicKey: Buffer.from(c.publicKey).toString('base64url'),
      counter: c.counter,
      transports: c.transports ?? [],
      name,
      createdAt: Date.now(),
    });
  }

  /** Verifies a passkey's answer to the pending sign-in's challenge; its counter moves on. */
  async checkPasskey(pending: Pending, response: AuthenticationResponseJSON): Promise<boolean> {
    if (!pending.challenge) return false;
    const passkey = (await this.store.passkeys(pending.userId)).find((p) => p.id === response.id);
    if (!passkey) return false;
    const v = await verifyAuthenticationResponse({
      response,
      expectedChallenge: pending.challenge,
      expectedOrigin: this.origins,
      expectedRPID: this.rpId,
      credential: {
        id: passkey.id,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
      requireUserVerification: false,
    }).catch(() => null);
    if (!v?.verified) return false;
    await this.store.usedPasskey(passkey.id, v.authenticationInfo.newCounter, Date.now());
    return true;
  }

  // ---- recovery codes -----------------------------------------------------------------------

  /** A new set in place of the old; the codes, to be shown once. */
  async newRecoveryCodes(userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    const hashes = await Promise.all(codes.map((c) => hashSecret(c.replace('-', ''))));
    await this.store.replaceRecoveryCodes(userId, hashes);
    return codes;
  }

  /** Uses one of the account's codes (`code` as the protocol reads it: ten characters). */
  async useRecoveryCode(userId: string, code: string): Promise<boolean> {
    for (const { n, hash } of await this.store.recoveryHashes(userId)) {
      if (await verifySecret(hash, code)) return this.store.useRecoveryCode(userId, n, Date.now());
    }
    return false;
  }

  /** Whether the account has a way of passing the second step. */
  async hasWay(userId: string): Promise<boolean> {
    const m = await this.methods(userId);
    return m.totp || m.passkeys.length > 0;
  }
}
