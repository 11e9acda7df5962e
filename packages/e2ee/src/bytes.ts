/**
 * Byte helpers shared by every format of the package. Web Crypto wants
 * `Uint8Array<ArrayBuffer>` (not a view of a SharedArrayBuffer), so that is the type
 * everything here makes.
 */
export type Bytes = Uint8Array<ArrayBuffer>;

const encoder = new TextEncoder();
// ignoreBOM: a text that begins with U+FEFF keeps it (the decoder would drop it as a byte
// order mark, and the recipient would read another text than the one sealed).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function utf8(text: string): Bytes {
  return encoder.encode(text) as Bytes;
}

/** Throws on bytes that are not UTF-8. */
export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function bytes(buffer: ArrayBuffer | Uint8Array): Bytes {
  return buffer instanceof Uint8Array ? (new Uint8Array(buffer) as Bytes) : new Uint8Array(buffer);
}

export function concat(...parts: readonly Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function u16(n: number): Bytes {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new RangeError(`u16 out of range: ${n}`);
  return new Uint8Array([n >>> 8, n & 0xff]);
}

export function u32(n: number): Bytes {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 out of range: ${n}`);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

/**
 * An unambiguous encoding of a list of fields: each is a u16 length and its bytes, so
 * ("ab","c") and ("a","bc") never encode alike. Every label, AAD and signed text of the
 * package is built with it. Strings are UTF-8.
 */
export function fields(...parts: readonly (string | Uint8Array)[]): Bytes {
  return concat(
    ...parts.flatMap((p) => {
      const b = typeof p === 'string' ? utf8(p) : p;
      return [u16(b.length), b];
    }),
  );
}

export function randomBytes(length: number): Bytes {
  return crypto.getRandomValues(new Uint8Array(length));
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

export function toBase64Url(data: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < data.length; i += 0x8000) {
    binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Strict: only the URL alphabet, no padding, no length that base64 cannot make. */
export function fromBase64Url(text: string): Bytes {
  if (!B64URL.test(text) || text.length % 4 === 1) throw new SyntaxError('Not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  // Canonical form only: the spare low bits of the last character must be zero.
  if (toBase64Url(out) !== text) throw new SyntaxError('Not canonical base64url');
  return out;
}
