/**
 * The least a browser derives a password with (issue 28, attack 4): the server's prelogin
 * and settings answers name the KDF's parameters, and a server that named weak ones would
 * get an `auth` (and a wrap key's bundle) cheap to crack. So the browser checks them
 * against a floor of its own first. Kept apart from kdf.ts so the check loads without scrypt.
 */

export interface KdfParams {
  alg: 'scrypt';
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/**
 * The test builds' floor, a build-time constant: apps/web's Vite config defines it only in
 * a build made with PARLEY_TEST_KDF_FLOOR (the browser tests' build, whose servers derive
 * with 2^10 to make hundreds of accounts), never from anything a server sends.
 */
declare const __PARLEY_TEST_KDF_FLOOR__: number | undefined;

/**
 * log2 of the least scrypt N a browser derives a password with: OWASP's minimum for scrypt
 * (Password Storage Cheat Sheet: N = 2^17, r = 8, p = 1), which is also this project's
 * default. A server that asks for less (to crack what the browser sends faster) is refused.
 */
export const KDF_FLOOR_LOG2: number =
  typeof __PARLEY_TEST_KDF_FLOOR__ === 'number' && __PARLEY_TEST_KDF_FLOOR__ >= 10 ? __PARLEY_TEST_KDF_FLOOR__ : 17;
/** scrypt's block size floor (OWASP: r = 8). */
export const KDF_FLOOR_R = 8;
/** The most memory a derivation may take (128·N·r bytes): 1 GiB, so a server cannot exhaust the tab. */
export const KDF_MAX_BYTES = 2 ** 30;
/** The most lanes a derivation may run (each one as long as the whole at p = 1): a server cannot stall the tab. */
export const KDF_MAX_P = 4;

export const KDF_TOO_WEAK =
  'This server asked for weaker password protection than this browser allows, so your password was not used. Contact the server’s operator.';

/**
 * Whether `params` are at least the floor (and within the memory ceiling): what a browser
 * checks before it derives anything from a password, whatever the server answered.
 */
export function kdfAcceptable(params: KdfParams, floorLog2 = KDF_FLOOR_LOG2): boolean {
  return (
    params.alg === 'scrypt' &&
    Number.isInteger(params.N) &&
    Number.isInteger(params.r) &&
    Number.isInteger(params.p) &&
    params.N >= 2 ** floorLog2 &&
    params.r >= KDF_FLOOR_R &&
    params.p >= 1 &&
    params.p <= KDF_MAX_P &&
    128 * params.N * params.r <= KDF_MAX_BYTES
  );
}
