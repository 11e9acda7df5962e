/**
 * Sessions: a random token in an httpOnly, SameSite=Lax cookie; the database keeps only
 * its HMAC. "Remember me" makes the cookie outlive the browser session.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountStore } from '../storage/accounts/account-store.ts';
import type { User } from '../storage/accounts/users.ts';
import { hashToken, newToken } from './tokens.ts';

export const COOKIE = 'sid';
export const PERSISTENT_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const BROWSER_SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** A session's expiry slides forward at most this often, to save writes. */
export const TOUCH_EVERY_MS = 60 * 60 * 1000;

export interface AuthContext {
  user: User;
  tokenHash: string;
  authAt: number;
  persistent: boolean;
  /** When the session ends unless used again (ms). */
  expiresAt: number;
}

export class Sessions {
  private readonly store: AccountStore;
  private readonly secret: string;
  private readonly secure: boolean;

  constructor(store: AccountStore, secret: string, secure: boolean) {
    this.store = store;
    this.secret = secret;
    this.secure = secure;
  }

  hash(token: string): string {
    return hashToken(this.secret, token);
  }

  /** Starts a session and sets its cookie. Returns the stored hash. */
  async start(
    req: FastifyRequest,
    reply: FastifyReply,
    userId: string,
    persistent: boolean,
    now = Date.now(),
  ): Promise<string> {
    const token = newToken();
    const tokenHash = this.hash(token);
    await this.store.createSession({
      tokenHash,
      userId,
      createdAt: now,
      authAt: now,
      lastUsedAt: now,
      expiresAt: now + (persistent ? PERSISTENT_TTL_MS : BROWSER_SESSION_TTL_MS),
      persistent,
      userAgent: req.headers['user-agent'] ?? null,
      ip: req.ip,
    });
    reply.setCookie(COOKIE, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure,
      ...(persistent ? { maxAge: PERSISTENT_TTL_MS / 1000 } : {}),
    });
    return tokenHash;
  }

  clearCookie(reply: FastifyReply): void {
    reply.clearCookie(COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: this.secure });
  }

  /** The session behind the request's cookie, if it is live. Blocked users are returned too: callers decide. */
  async resolve(req: FastifyRequest, now = Date.now()): Promise<AuthContext | null> {
    return this.resolveToken(req.cookies[COOKIE], now);
  }

  /**
   * A socket's session, checked again: until when it lasts now (slid forward like an HTTP
   * request's, at most hourly), or null when it has ended or its account is blocked.
   */
  async renew(tokenHash: string, now = Date.now()): Promise<number | null> {
    const s = await this.store.sessionByHash(tokenHash);
    if (!s || s.expiresAt <= now) return null;
    if (now - s.lastUsedAt <= TOUCH_EVERY_MS) return s.expiresAt;
    const expiresAt = now + (s.persistent ? PERSISTENT_TTL_MS : BROWSER_SESSION_TTL_MS);
    await this.store.touchSession(tokenHash, now, expiresAt);
    return expiresAt;
  }

  /** The live session of a raw cookie value (the WebSocket upgrade has no Fastify request). */
  async resolveToken(token: string | undefined, now = Date.now()): Promise<AuthContext | null> {
    if (!token || token.length > 200) return null;
    const tokenHash = this.hash(token);
    const s = await this.store.sessionByHash(tokenHash);
    if (!s) return null;
    if (s.expiresAt <= now) {
      await this.store.deleteSession(tokenHash);
      return null;
    }
    const user = await this.store.userById(s.userId);
    if (!user) return null;
    let expiresAt = s.expiresAt;
    if (now - s.lastUsedAt > TOUCH_EVERY_MS) {
      expiresAt = now + (s.persistent ? PERSISTENT_TTL_MS : BROWSER_SESSION_TTL_MS);
      await this.store.touchSession(tokenHash, now, expiresAt);
    }
    return { user, tokenHash, authAt: s.authAt, persistent: s.persistent, expiresAt };
  }
}
