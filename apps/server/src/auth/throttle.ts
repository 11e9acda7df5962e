/**
 * Attempt limits of the account routes, counted in the shared LimitStore before each
 * attempt is judged. Sign-in has tiers (README "Security"):
 *
 * - a browser the account knows (device cookie): only its own failures count;
 * - otherwise, per address across accounts (spraying), per account *and* address (a small
 *   limit with lock-out), and per account from everywhere: beyond its allowance attempts
 *   are not refused but slowed to one every `signInSlowMs`, each waiting its turn (up to
 *   `signInQueueMs`), so a guessing burst from many addresses gets nowhere fast while
 *   the owner can still get in.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MSG } from '@app/protocol';
import type { RateLimits } from '../config.ts';
import { HttpError } from '../http/errors.ts';
import type { LimitStore } from '../security/limits.ts';
import { verifySecret } from './passwords.ts';

export function tooMany(retryAfterMs: number): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const wait =
    seconds < 60
      ? `${seconds} second${seconds === 1 ? '' : 's'}`
      : `${Math.ceil(seconds / 60)} minute${Math.ceil(seconds / 60) === 1 ? '' : 's'}`;
  const e = new HttpError(429, 'rate_limited', `Too many attempts. Please try again in ${wait}.`);
  e.retryAt = Date.now() + retryAfterMs;
  return e;
}

/** What a sign-in gives back once the password proved right. */
export interface SignInTicket {
  succeeded(): Promise<void>;
}

export class Throttle {
  private readonly store: LimitStore;
  private readonly limits: RateLimits;

  constructor(store: LimitStore, limits: RateLimits) {
    this.store = store;
    this.limits = limits;
  }

  /** Counts one attempt under `key`; refuses it (429) beyond `limit` in the window. */
  async take(key: string, limit: number, windowMs = this.limits.windowMs, now = Date.now()): Promise<void> {
    const c = await this.store.count(key, windowMs, now);
    if (c.count > limit) throw tooMany(c.resetAt - now);
  }

  /** Counts one attempt under `key` and tells whether it is within `limit` (a silent limit). */
  async allows(key: string, limit: number, windowMs = this.limits.windowMs): Promise<boolean> {
    return (await this.store.count(key, windowMs, Date.now())).count <= limit;
  }

  /** Gives back one attempt of `key` (it turned out not to count). */
  giveBack(key: string): Promise<void> {
    return this.store.uncount(key);
  }

  /**
   * Admits a sign-in attempt for `account` (the login as typed, normalised: known and
   * unknown logins are throttled alike) from `ip`, or throws 429. May wait (the login's
   * slow lane) before it resolves.
   */
  async signIn(account: string, ip: string, device: string | null): Promise<SignInTicket> {
    const l = this.limits;
    const now = Date.now();
    if (device !== null) {
      const key = `signin:device:${device}`;
      const c = await this.store.count(key, l.windowMs, now);
      if (c.count <= l.signInPerDevice) return { succeeded: () => this.store.clear(key) };
    }
    const ipKey = `signin:ip:${ip}`;
    const pairKey = `signin:pair:${account}:${ip}`;
    const accountKey = `signin:account:${account}`;
    await this.take(ipKey, l.signInPerIp, l.windowMs, now);
    await this.take(pairKey, l.signInPerAccountIp, l.windowMs, now);
    const c = await this.store.count(accountKey, l.windowMs, now);
    if (c.count > l.signInPerAccount) {
      const slot = await this.store.pace(`signin:slow:${account}`, l.signInSlowMs, l.signInQueueMs, now);
      if (!slot.ok) throw tooMany(slot.retryAfterMs);
      if (slot.waitMs > 0) await sleep(slot.waitMs);
    }
    return {
      succeeded: async () => {
        await Promise.all([this.store.uncount(ipKey), this.store.clear(pairKey), this.store.uncount(accountKey)]);
      },
    };
  }

  /**
   * Checks the password given to confirm a change (e-mail, password, PIN) by a signed-in
   * session: counted before it is judged, at most `signInPerAccountIp` wrong ones per
   * account and window (a stolen session cookie must not become a password oracle);
   * a right one gives its count back.
   */
  async confirmPassword(userId: string, passwordHash: string, given: string): Promise<boolean> {
    const key = `reauth:${userId}`;
    await this.take(key, this.limits.signInPerAccountIp);
    const ok = await verifySecret(passwordHash, given);
    if (ok) await this.store.uncount(key);
    return ok;
  }

  /** confirmPassword, refusing with 403 `wrong_password` (and `message`) when it is not the password. */
  async requirePassword(
    user: { id: string; passwordHash: string },
    given: string,
    message: string = MSG.wrongPassword,
  ): Promise<void> {
    if (!(await this.confirmPassword(user.id, user.passwordHash, given))) {
      throw new HttpError(403, 'wrong_password', message);
    }
  }

  /** A password reset proved the mailbox: the sign-in counts of the account's logins start again. */
  async resetAccount(logins: string[]): Promise<void> {
    await Promise.all(
      logins.flatMap((l) => [this.store.clear(`signin:account:${l}`), this.store.clear(`signin:slow:${l}`)]),
    );
  }
}
