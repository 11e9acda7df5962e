/** argon2id password (and PIN) hashing with OWASP's recommended parameters. */
import { hash, verify } from '@node-rs/argon2';

/** algorithm 2 is Argon2id (a const enum in the typings, which type stripping cannot read). */
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashSecret(secret: string): Promise<string> {
  return hash(secret, OPTIONS);
}

let dummy: Promise<string> | null = null;

/**
 * Verifies a secret against a stored hash. With no hash (unknown account) it still
 * spends the same work on a dummy hash, so timing does not reveal which accounts exist.
 */
export async function verifySecret(stored: string | null, secret: string): Promise<boolean> {
  if (stored === null) {
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
