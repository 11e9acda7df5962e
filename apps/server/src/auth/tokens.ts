import { createHmac, randomBytes } from 'node:crypto';

/** A bearer secret for a cookie or an e-mail link: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What the database keeps of a token: an HMAC under the server secret, so neither a
 * database leak nor a log of hashes lets anyone present a valid token.
 */
export function hashToken(secret: string, token: string): string {
  return createHmac('sha256', secret).update(token).digest('base64url');
}
