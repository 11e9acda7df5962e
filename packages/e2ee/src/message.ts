/**
 * Message sealing (docs/e2ee.md). Each message revision has its own key,
 * mk = HKDF-SHA256(chat key, "parley/msg/v1" ‖ chat ‖ message id ‖ revision), and is
 * sealed with AES-256-GCM whose associated data binds the chat, the message id, sender,
 * recipient, chat-key epoch and revision: a ciphertext moved to another message, chat,
 * sender or revision does not open. The plaintext is a type byte (0x01, text) and the
 * UTF-8 text, Padmé-padded so only a rough length shows; or 0x02 alone, a tombstone: the
 * sender's deletion, sealed as the message's next revision, so a server can drop a message
 * but cannot say its sender deleted it; or 0x03 and the text of a message from before
 * end-to-end encryption, sealed later by its sender (it was in the clear on the server once:
 * its recipient shows it as not encrypted); or 0x04, a text with what travels beside it (a
 * reply's reference, the forwarded mark: message-content.ts).
 * Wire form: base64url(0x01 ‖ u32 epoch ‖ u16 revision ‖ nonce(12) ‖ ciphertext ‖ tag).
 */

import { aeadOpen, aeadSeal, NONCE_BYTES, TAG_BYTES } from './aead.ts';
import { concat, fields, fromBase64Url, fromUtf8, toBase64Url, u16, u32, utf8 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { authenticated, E2EEAuthError } from './errors.ts';
import { hkdfAesKey } from './hkdf.ts';
import { decodeRich, encodeRich, hasExtras, type MessageContent, RICH_TEXT } from './message-content.ts';
import { NULL_CIPHER, nullOpen, nullSeal } from './null-cipher.ts';
import { pad, unpad } from './padding.ts';

const FORMAT = 0x01;
const TEXT = 0x01;
const DELETED = 0x02;
const CLEAR_BEFORE = 0x03;
const LABEL = 'parley/msg/v1';
const HEADER_BYTES = 7;
export const MESSAGE_OVERHEAD = HEADER_BYTES + NONCE_BYTES + TAG_BYTES;

/** Who and where a message is: what the server says about it, and what its AAD binds. */
export interface MessagePlace {
  chatId: string;
  msgId: string;
  senderId: string;
  recipientId: string;
}

export interface MessageHeader {
  epoch: number;
  rev: number;
}

async function messageKey(chatKey: CryptoKey, place: MessagePlace, rev: number): Promise<CryptoKey> {
  return hkdfAesKey(chatKey, fields(LABEL, place.chatId, place.msgId, u16(rev)));
}

function aad(place: MessagePlace, h: MessageHeader): Uint8Array {
  return fields(LABEL, place.chatId, place.msgId, place.senderId, place.recipientId, u32(h.epoch), u16(h.rev));
}

/**
 * What a message revision holds: its text (`clear`: a text from before end-to-end
 * encryption, sealed later) with its reply reference and forwarded mark, or (a tombstone)
 * its deletion.
 */
export type MessageBody =
  | (MessageContent & { deleted?: undefined; clear?: true })
  | { deleted: true; text?: undefined; clear?: undefined; reply?: undefined; forwarded?: undefined };

/** Seals a message revision: a text, or a text with a reply reference or forwarded mark. */
export async function encryptMessage(
  chatKey: CryptoKey,
  place: MessagePlace,
  header: MessageHeader,
  content: string | MessageContent,
): Promise<string> {
  return seal(chatKey, place, header, typeof content === 'string' ? { text: content } : content);
}

/** A sender's message from before end-to-end encryption, sealed now (its revision 0). */
export async function encryptClearBefore(
  chatKey: CryptoKey,
  place: MessagePlace,
  header: MessageHeader,
  text: string,
): Promise<string> {
  return seal(chatKey, place, header, { text, clear: true });
}

/** The sender's deletion of a message, sealed as revision `header.rev` (one past its last). */
export async function encryptTombstone(
  chatKey: CryptoKey,
  place: MessagePlace,
  header: MessageHeader,
): Promise<string> {
  return seal(chatKey, place, header, { deleted: true });
}

async function seal(
  chatKey: CryptoKey,
  place: MessagePlace,
  header: MessageHeader,
  body: MessageBody,
): Promise<string> {
  const plain = pad(
    body.deleted
      ? new Uint8Array([DELETED])
      : !body.clear && hasExtras(body)
        ? encodeRich(body)
        : concat(new Uint8Array([body.clear ? CLEAR_BEFORE : TEXT]), utf8(body.text)),
  );
  if (NULL_CIPHER)
    return toBase64Url(concat(new Uint8Array([FORMAT]), u32(header.epoch), u16(header.rev), nullSeal(plain)));
  const sealed = await aeadSeal(await messageKey(chatKey, place, header.rev), plain, aad(place, header));
  return toBase64Url(concat(new Uint8Array([FORMAT]), u32(header.epoch), u16(header.rev), sealed));
}

/** The epoch and revision a ciphertext claims (to pick its chat key); not yet authenticated. */
export function messageHeader(ct: string): MessageHeader {
  let data: Uint8Array;
  try {
    data = fromBase64Url(ct);
  } catch (cause) {
    throw new E2EEAuthError('The message', { cause });
  }
  if (data.length < MESSAGE_OVERHEAD || data[0] !== FORMAT) throw new E2EEAuthError('The message');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return { epoch: view.getUint32(1), rev: view.getUint16(5) };
}

/**
 * Opens a message. `expected` is what the server's metadata says (the revision it stores):
 * a ciphertext of another revision, an older edit replayed, does not open. A tombstone
 * opens as `{ deleted: true }`.
 */
export async function decryptMessage(
  chatKey: CryptoKey,
  place: MessagePlace,
  ct: string,
  expected?: Partial<MessageHeader>,
): Promise<MessageBody & MessageHeader> {
  return authenticated('The message', async () => {
    const header = messageHeader(ct);
    if (expected?.epoch !== undefined && expected.epoch !== header.epoch) throw new E2EEAuthError('The message');
    if (expected?.rev !== undefined && expected.rev !== header.rev) throw new E2EEAuthError('The message');
    const data = fromBase64Url(ct).subarray(HEADER_BYTES);
    const plain = NULL_CIPHER
      ? unpad(nullOpen(data))
      : unpad(await aeadOpen(await messageKey(chatKey, place, header.rev), data, aad(place, header)));
    if (plain[0] === DELETED && plain.length === 1) return { deleted: true, ...header };
    if (plain[0] === CLEAR_BEFORE) return { text: fromUtf8(plain.subarray(1)), clear: true, ...header };
    if (plain[0] === RICH_TEXT) return { ...decodeRich(plain), ...header };
    if (plain[0] !== TEXT) throw new E2EEAuthError('The message');
    return { text: fromUtf8(plain.subarray(1)), ...header };
  });
}
