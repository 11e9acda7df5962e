/**
 * A password set from the shell (reset-password, users create): `auth` derived from it as a
 * browser would (the same KDF with this server's parameters, a new salt, the e-mail address's
 * own credential), then stored as a sign-up or a reset stores a browser's. The password itself
 * is never stored.
 */
import { randomBytes } from 'node:crypto';
import { newCredentials } from '@app/e2ee/kdf';
import { acceptCredentials, kdfParams } from '../auth/credentials.ts';
import type { Config } from '../config.ts';
import type { StoredCredentials } from '../storage/accounts/key-store.ts';

export async function shellCredentials(config: Config, password: string): Promise<StoredCredentials> {
  const c = await newCredentials(password, kdfParams(config));
  return acceptCredentials(config, { auth: c.auth, salt: c.salt, kdf: c.kdf, email: c.email });
}

/** A password for the operator to hand over (printed once): 16 characters, 96 random bits. */
export function randomPassword(): string {
  return randomBytes(12).toString('base64url');
}
