/**
 * A LocalSealing for tests that really seals (AES-256-GCM under a key of its own, as
 * client/keys/local-keys.ts does under the browser's): what the outbox stores is then
 * ciphertext, and a sealing with another key (another browser, or keys wiped) cannot
 * open it. `sealed` counts what it sealed.
 */
import type { LocalSealing } from '@/client/keys/local-keys';

const AAD = new TextEncoder().encode('parley/test-outbox/v1');

function toB64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

export function testSealing(): LocalSealing & { sealed: number } {
  const key = crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const s = {
    sealed: 0,
    async seal(text: string): Promise<string | null> {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ct = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: AAD },
        await key,
        new TextEncoder().encode(text),
      );
      s.sealed += 1;
      return toB64(new Uint8Array([...iv, ...new Uint8Array(ct)]));
    },
    async open(sealed: string): Promise<string | null> {
      try {
        const data = new Uint8Array(Buffer.from(sealed, 'base64url'));
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: data.subarray(0, 12), additionalData: AAD },
          await key,
          data.subarray(12),
        );
        return new TextDecoder().decode(plain);
      } catch {
        return null;
      }
    },
  };
  return s;
}
