/**
 * The device cookie (OWASP's "device cookie" against lock-out abuse): after a successful
 * sign-in the browser keeps a signed token naming the account. Sign-ins carrying a valid
 * one for the same account are judged by that browser's own failures only, so strangers
 * guessing the password from elsewhere cannot lock the owner out.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const DEVICE_COOKIE = 'did';
const DEVICE_TTL_MS = 365 * 24 * 60 * 60 * 1000;
/** Only the sign-in route reads it. */
const DEVICE_PATH = '/api/auth';

function mac(secret: string, userId: string, nonce: string): string {
  return createHmac('sha256', secret).update(`device\n${userId}\n${nonce}`).digest('base64url');
}

export class Devices {
  private readonly secret: string;
  private readonly secure: boolean;

  constructor(secret: string, secure: boolean) {
    this.secret = secret;
    this.secure = secure;
  }

  /** The device id of the request's cookie if it is valid and was issued to `userId`. */
  trusted(req: FastifyRequest, userId: string | null): string | null {
    const value = req.cookies[DEVICE_COOKIE];
    if (!userId || !value || value.length > 200) return null;
    const [id, nonce, sig] = value.split('.');
    if (id !== userId || !nonce || !sig) return null;
    const want = Buffer.from(mac(this.secret, userId, nonce));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got) ? nonce : null;
  }

  /** Marks this browser as one `userId` signs in from (a new device id each time). */
  remember(reply: FastifyReply, userId: string): void {
    const nonce = randomBytes(16).toString('base64url');
    reply.setCookie(DEVICE_COOKIE, `${userId}.${nonce}.${mac(this.secret, userId, nonce)}`, {
      path: DEVICE_PATH,
      httpOnly: true,
      sameSite: 'strict',
      secure: this.secure,
      maxAge: DEVICE_TTL_MS / 1000,
    });
  }
}
