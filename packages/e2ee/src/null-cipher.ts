/**
 * The test-only null cipher, a build-time constant. apps/web's Vite config always defines
 * it: `false`, unless the build ran with PARLEY_TEST_NULL_CIPHER=1, so a normal build
 * holds neither the switch nor the code behind it (the minifier drops both). When on,
 * messages and reactions carry their padded plaintext where the AES-GCM output goes (a
 * zero nonce and tag around it, same header and length, so the server takes them): the
 * browser test that builds the web app so proves its scan for plaintext at rest can fail
 * (e2e/tests/e2ee-at-rest.spec.ts). Anything else (Node, Vitest) leaves it undefined: off.
 */
import { NONCE_BYTES, TAG_BYTES } from './aead.ts';
import { concat } from './bytes.ts';

declare const __PARLEY_TEST_NULL_CIPHER__: boolean | undefined;
export const NULL_CIPHER = typeof __PARLEY_TEST_NULL_CIPHER__ !== 'undefined' && __PARLEY_TEST_NULL_CIPHER__ === true;

/** What AES-GCM's output would be, in the clear: a zero nonce, the plaintext, a zero tag. */
export function nullSeal(plain: Uint8Array): Uint8Array {
  console.warn('PARLEY TEST BUILD: messages are NOT encrypted (PARLEY_TEST_NULL_CIPHER)');
  return concat(new Uint8Array(NONCE_BYTES), plain, new Uint8Array(TAG_BYTES));
}

/** The plaintext nullSeal wrapped. */
export function nullOpen(sealed: Uint8Array): Uint8Array {
  return sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
}
