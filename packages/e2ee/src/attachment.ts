/**
 * Attachments (photos, files, voice): each sealed under a fresh AES-256-GCM key, in segments
 * of 64 KiB, so a file of any size streams through without being held whole.
 *
 * - Segment i (from 0) is AES-GCM(key, nonce = 0⁴ ‖ u64be(i), aad = label ‖ u64be(i) ‖ final)
 *   of up to 64 KiB of the file, written as ciphertext ‖ tag. Every segment but the last is
 *   full; the last has final = 1 (an empty file is one empty final segment).
 * - A segment moved, dropped, repeated or cut fails: its index is in its nonce and AAD, and
 *   only the last may say final, so a blob cut at a segment boundary fails too.
 * - The nonces are a counter: the key is never used for anything else, and sealing the same
 *   file again under it (an upload resumed after a reload) writes the same bytes.
 * - The key, the SHA-256 of the sealed blob, its size and type travel inside the sealed
 *   message (message-content.ts); the server keeps only the blob.
 * The design: docs/attachments.md.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { type Bytes, bytes, concat, randomBytes, toBase64Url, utf8 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { E2EEAuthError } from './errors.ts';

/** Plaintext bytes per segment. */
export const ATTACHMENT_SEGMENT = 64 * 1024;
/** The GCM tag each segment adds. */
export const ATTACHMENT_TAG = 16;
const LABEL = utf8('parley-attachment-v1');

/** How many bytes a file of `size` bytes seals to. */
export function sealedAttachmentSize(size: number): number {
  const segments = Math.max(1, Math.ceil(size / ATTACHMENT_SEGMENT));
  return size + segments * ATTACHMENT_TAG;
}

/** A fresh attachment key (32 bytes), raw. */
export function newAttachmentKey(): Bytes {
  return randomBytes(32);
}

function u64(n: number): Bytes {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

function importKey(raw: Uint8Array): Promise<CryptoKey> {
  if (raw.length !== 32) throw new E2EEAuthError('The attachment key');
  return crypto.subtle.importKey('raw', bytes(raw), 'AES-GCM', false, ['encrypt', 'decrypt']);
}

function params(index: number, final: boolean) {
  return {
    name: 'AES-GCM' as const,
    iv: concat(new Uint8Array(4), u64(index)),
    additionalData: concat(LABEL, u64(index), new Uint8Array([final ? 1 : 0])),
  };
}

/**
 * Cuts a stream into `size`-byte pieces, each handed on with its index and whether it is the
 * last: a piece with bytes after it is not; what is left at the end (up to `size` bytes,
 * maybe none) is.
 */
function segmenter(
  size: number,
  step: (piece: Bytes, index: number, final: boolean) => Promise<Bytes>,
): TransformStream<Uint8Array, Bytes> {
  let buffered = new Uint8Array(0) as Bytes;
  let index = 0;
  return new TransformStream({
    async transform(chunk, controller) {
      buffered = concat(buffered, chunk);
      let at = 0;
      while (buffered.length - at > size) {
        controller.enqueue(await step(buffered.slice(at, at + size), index++, false));
        at += size;
      }
      if (at > 0) buffered = buffered.slice(at);
    },
    async flush(controller) {
      controller.enqueue(await step(buffered, index, true));
    },
  });
}

/** Seals a file's bytes as they stream through. */
export function sealAttachment(rawKey: Uint8Array): TransformStream<Uint8Array, Bytes> {
  const key = importKey(rawKey);
  return segmenter(ATTACHMENT_SEGMENT, async (piece, index, final) =>
    bytes(await crypto.subtle.encrypt(params(index, final), await key, piece)),
  );
}

/** Opens a sealed blob as it streams through; errors (E2EEAuthError) at the first thing changed or cut. */
export function openAttachment(rawKey: Uint8Array): TransformStream<Uint8Array, Bytes> {
  const key = importKey(rawKey);
  return segmenter(ATTACHMENT_SEGMENT + ATTACHMENT_TAG, async (piece, index, final) => {
    try {
      return bytes(await crypto.subtle.decrypt(params(index, final), await key, piece));
    } catch (cause) {
      throw new E2EEAuthError('The attachment', { cause });
    }
  });
}

/**
 * Passes bytes through unchanged and gives the SHA-256 of all of them (base64url) at the
 * end: the digest of a sealed blob, as sent, or as read back to be checked.
 */
export function digester(): { stream: TransformStream<Uint8Array, Uint8Array>; digest: Promise<string> } {
  const hash = sha256.create();
  let done: (d: string) => void = () => {};
  const digest = new Promise<string>((resolve) => {
    done = resolve;
  });
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      controller.enqueue(chunk);
    },
    flush() {
      done(toBase64Url(hash.digest()));
    },
  });
  return { stream, digest };
}
