/**
 * Authenticator app codes (RFC 6238 TOTP: SHA-1, 6 digits, 30 s, as every app reads them)
 * through `otpauth`. The secret must be kept to check codes, so it cannot be hashed: it is
 * sealed with AES-256-GCM under a key derived from the session secret (HKDF), bound to its
 * account. A code is accepted for the current step or one either side (a clock a little off),
 * and each step once (TwoFactorStore.takeStep). Changing SESSION_SECRET turns the apps' codes
 * off (the README says so): their owners sign in with a recovery code or a passkey and set
 * the app up again.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;

export class TotpSealer {
  private readonly key: Buffer;

  constructor(sessionSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'parley/totp-secret/v1', 32));
  }

  /** A new secret (160 bits, as RFC 4226 advises), base32 as the apps take it. */
  static newSecret(): string {
    return new Secret({ size: 20 }).base32;
  }

  seal(userId: string, base32: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(userId));
    const ct = Buffer.concat([c.update(base32, 'utf8'), c.final()]);
    return Buffer.concat([iv, ct, c.getAuthTag()]).toString('base64url');
  }

  /** The secret, or null when it does not open (another server secret, or tampered with). */
  open(userId: string, sealed: string): string | null {
    try {
      const raw = Buffer.from(sealed, 'base64url');
      const d = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      d.setAAD(Buffer.from(userId));
      d.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

function totpOf(base32: string, label = ''): TOTP {
  return new TOTP({
    issuer: 'Parley',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(base32),
  });
}

/** The otpauth:// URI an app scans, naming the deployment and the account. */
export function totpUri(base32: string, issuer: string, account: string): string {
  const t = totpOf(base32, account);
  t.issuer = issuer;
  return t.toString();
}

/** The time step a code is good for (within one step of now), or null. */
export function stepOf(base32: string, code: string, now = Date.now()): number | null {
  const delta = totpOf(base32).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

/** The current code (tests, and an operator's own checks). */
export function codeAt(base32: string, now = Date.now()): string {
  return totpOf(base32).generate({ timestamp: now });
}
