/**
 * The device cookie (OWASP's "device cookie" against lock-out abuse): after a successful
 * sign-in the browser keeps a signed token naming the account. Sign-ins carrying a valid
 * one for the same account are judged by that browser's own failures only, so strangers
 * guessing the password from elsewhere cannot lock the owner out. The signature covers
 * the account's password hash: a password change or reset voids every device cookie.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const DEVICE_COOKIE = 'did';
const DEVICE_TTL_MS = 365 * 24 * 60 * 60 * 1000;
/** Only the sign-in route reads it. */
const DEVICE_PATH = '/api/auth';

/** The account as the cookie binds it: its id and its current password hash. */
export interface DeviceAccount {
  id: string;
  passwordHash: string;
}

function mac(secret: string, account: DeviceAccount, nonce: string): string {
  return createHmac('sha256', secret)
    .update(`device\n${account.id}\n${nonce}\n${account.passwordHash}`)
    .digest('base64url');
}

export class Devices {
  private readonly secret: string;
  private readonly secure: boolean;

  constructor(secret: string, secure: boolean) {
    this.secret = secret;
    this.secure = secure;
  }

  /** The device id of the request's cookie if it is valid and was issued to `account` (with its current password). */
  trusted(req: FastifyRequest, account: DeviceAccount | null): string | null {
    const value = req.cookies[DEVICE_COOKIE];
    if (!account || !value || value.length > 200) return null;
    const [id, nonce, sig] = value.split('.');
    if (id !== account.id || !nonce || !sig) return null;
    const want = Buffer.from(mac(this.secret, account, nonce));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got) ? nonce : null;
  }

  /** Marks this browser as one `account` signs in from (a new device id each time). */
  remember(reply: FastifyReply, account: DeviceAccount): void {
    const nonce = randomBytes(16).toString('base64url');
    reply.setCookie(DEVICE_COOKIE, `${account.id}.${nonce}.${mac(this.secret, account, nonce)}`, {
      path: DEVICE_PATH,
      httpOnly: true,
      sameSite: 'strict',
      secure: this.secure,
      maxAge: DEVICE_TTL_MS / 1000,
    });
  }
}
