import { describe, expect, it } from 'vitest';
import {
  ATTACHMENT_SEGMENT,
  ATTACHMENT_TAG,
  digester,
  newAttachmentKey,
  openAttachment,
  sealAttachment,
  sealedAttachmentSize,
} from './attachment.ts';
import { concat } from './bytes.ts';
import { E2EEAuthError } from './errors.ts';

/** `data` streamed in chunks of `chunk` bytes through `t`, collected. */
async function through(data: Uint8Array, t: TransformStream<Uint8Array, Uint8Array>, chunk = 10_000) {
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (let at = 0; at < data.length; at += chunk) c.enqueue(data.slice(at, at + chunk));
      c.close();
    },
  });
  const parts: Uint8Array[] = [];
  const reader = source.pipeThrough(t).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return concat(...parts);
}

const S = ATTACHMENT_SEGMENT;

/** `n` random bytes (getRandomValues gives at most 64 KiB a call). */
function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += 65_536) crypto.getRandomValues(out.subarray(at, Math.min(n, at + 65_536)));
  return out;
}

describe('attachments', () => {
  it.each([0, 1, S - 1, S, S + 1, 3 * S, 3 * S + 17])('seals and opens %i bytes, at the size it says', async (n) => {
    const key = newAttachmentKey();
    const file = randomBytes(n);
    const sealed = await through(file, sealAttachment(key), 7_777);
    expect(sealed.length).toBe(sealedAttachmentSize(n));
    expect(await through(sealed, openAttachment(key), 50_000)).toEqual(file);
    // Sealing again under the same key (a resumed upload) writes the same bytes.
    expect(await through(file, sealAttachment(key), 100_000)).toEqual(sealed);
  });

  it('refuses a blob changed, cut, reordered, or opened under another key', async () => {
    const key = newAttachmentKey();
    const file = randomBytes(3 * S + 5);
    const sealed = await through(file, sealAttachment(key));
    const seg = S + ATTACHMENT_TAG;
    const flipped = sealed.slice();
    flipped[seg + 3] = (flipped[seg + 3] as number) ^ 1;
    const swapped = concat(sealed.slice(seg, 2 * seg), sealed.slice(0, seg), sealed.slice(2 * seg));
    const cases = {
      flipped,
      // Cut on a segment boundary: the last segment left was not sealed as the last.
      'cut at a boundary': sealed.slice(0, 2 * seg),
      'cut inside': sealed.slice(0, sealed.length - 3),
      swapped,
      'a segment repeated': concat(sealed.slice(0, seg), sealed),
      empty: new Uint8Array(0),
    };
    for (const [what, blob] of Object.entries(cases)) {
      await expect(through(blob, openAttachment(key)), what).rejects.toBeInstanceOf(E2EEAuthError);
    }
    await expect(through(sealed, openAttachment(newAttachmentKey()))).rejects.toBeInstanceOf(E2EEAuthError);
  });

  it('digests what passes through', async () => {
    const { stream, digest } = digester();
    const data = new TextEncoder().encode('abc');
    expect(await through(data, stream)).toEqual(data);
    // SHA-256("abc"), base64url.
    expect(await digest).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });
});
