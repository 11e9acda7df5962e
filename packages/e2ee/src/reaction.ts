/**
 * Reaction sealing (docs/e2ee.md, "Reactions"): one person's emoji on one message, under
 * rk = HKDF-SHA256(chat key, "parley/react/v1" ‖ chat ‖ message id ‖ reactor), with
 * AES-256-GCM whose associated data binds the chat, the message, the reactor and the
 * chat-key epoch: a sealed reaction moved to another message, chat or person does not
 * open. The plaintext is u8 length ‖ the emoji's UTF-8 ‖ zeros to 64 bytes, so every
 * reaction has the same length on the wire and the server cannot tell one emoji from
 * another. Wire form: base64url(0x01 ‖ u32 epoch ‖ nonce(12) ‖ ciphertext(64) ‖ tag). The
 * test build's null cipher (null-cipher.ts) leaves the emoji in the clear there.
 */
import { aeadOpen, aeadSeal } from './aead.ts';
import { concat, fields, fromBase64Url, fromUtf8, toBase64Url, u32, utf8 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { authenticated, E2EEAuthError } from './errors.ts';
import { hkdfAesKey } from './hkdf.ts';
import { NULL_CIPHER, nullOpen, nullSeal } from './null-cipher.ts';

const FORMAT = 0x01;
const LABEL = 'parley/react/v1';
const PLAIN_BYTES = 64;
/** The longest emoji a reaction holds, in UTF-8 bytes (a family with skin tones is ~41). */
export const REACTION_MAX_BYTES = PLAIN_BYTES - 1;

/** Whose reaction to which message. */
export interface ReactionPlace {
  chatId: string;
  msgId: string;
  reactorId: string;
}

function key(chatKey: CryptoKey, p: ReactionPlace): Promise<CryptoKey> {
  return hkdfAesKey(chatKey, fields(LABEL, p.chatId, p.msgId, p.reactorId));
}

function aad(p: ReactionPlace, epoch: number): Uint8Array {
  return fields(LABEL, p.chatId, p.msgId, p.reactorId, u32(epoch));
}

export async function encryptReaction(
  chatKey: CryptoKey,
  place: ReactionPlace,
  epoch: number,
  emoji: string,
): Promise<string> {
  const bytes = utf8(emoji);
  if (bytes.length === 0 || bytes.length > REACTION_MAX_BYTES) throw new RangeError('A reaction is one emoji');
  const plain = new Uint8Array(PLAIN_BYTES);
  plain[0] = bytes.length;
  plain.set(bytes, 1);
  const sealed = NULL_CIPHER ? nullSeal(plain) : await aeadSeal(await key(chatKey, place), plain, aad(place, epoch));
  return toBase64Url(concat(new Uint8Array([FORMAT]), u32(epoch), sealed));
}

/** The chat-key epoch a sealed reaction claims (to pick its key); not yet authenticated. */
export function reactionEpoch(ct: string): number {
  let data: Uint8Array;
  try {
    data = fromBase64Url(ct);
  } catch (cause) {
    throw new E2EEAuthError('The reaction', { cause });
  }
  if (data.length < 5 || data[0] !== FORMAT) throw new E2EEAuthError('The reaction');
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(1);
}

/** Opens a sealed reaction: its emoji. Anything changed or moved is an E2EEAuthError. */
export function decryptReaction(chatKey: CryptoKey, place: ReactionPlace, ct: string): Promise<string> {
  return authenticated('The reaction', async () => {
    const epoch = reactionEpoch(ct);
    const data = fromBase64Url(ct).subarray(5);
    const plain = NULL_CIPHER ? nullOpen(data) : await aeadOpen(await key(chatKey, place), data, aad(place, epoch));
    const length = plain[0] as number;
    if (plain.length !== PLAIN_BYTES || length === 0 || length > REACTION_MAX_BYTES)
      throw new E2EEAuthError('The reaction');
    if (plain.subarray(1 + length).some((b) => b !== 0)) throw new E2EEAuthError('The reaction');
    return fromUtf8(plain.subarray(1, 1 + length));
  });
}
