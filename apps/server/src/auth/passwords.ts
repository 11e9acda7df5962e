/** argon2id password (and PIN) hashing with OWASP's recommended parameters. */
import { hash, verify } from '@node-rs/argon2';

/** algorithm 2 is Argon2id (a const enum in the typings, which type stripping cannot read). */
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashSecret(secret: string): Promise<string> {
  return hash(secret, OPTIONS);
}

let dummy: Promise<string> | null = null;

/**
 * The password hash of an account that has no password yet (imported from the original app,
 * cli/import-rtdb.ts): nothing verifies against it, so sign-in refuses it until the owner
 * chooses one through a reset link.
 */
export const NO_PASSWORD = '';

/**
 * Verifies a secret against a stored hash. With no hash (unknown account, or one with no password) it still
 * spends the same work on a dummy hash, so timing does not reveal which accounts exist.
 */
export async function verifySecret(stored: string | null, secret: string): Promise<boolean> {
  if (stored === null || stored === NO_PASSWORD) {
    dummy ??= hashSecret('not-a-real-password');
    await verify(await dummy, secret).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, secret);
  } catch {
    return false;
  }
}
