/**
 * Chat keys (docs/e2ee.md): 32 random bytes per chat and epoch, made by whichever
 * participant first needs the epoch, sealed with HPKE (RFC 9180, base mode,
 * DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM) to each participant's
 * current UK, and signed by the creator's IK over the whole set. A client opens an
 * envelope only when it lists exactly the chat's two participants, its creator is one of
 * them and the signature verifies under the creator's pinned IK: a server cannot slip in
 * a key of its own.
 */

import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { type AccountKeys, type PublicKeys, sign, verify, verifyPublicKeys } from './account-keys.ts';
import { bytes, concat, fields, fromBase64Url, randomBytes, toBase64Url, u32 } from './bytes.ts';
import type { CryptoKey } from './crypto-key.ts';
import { authenticated, E2EEAuthError } from './errors.ts';
import { hkdfKey } from './hkdf.ts';

export interface ChatKeySeal {
  userId: string;
  /** The UK epoch of `userId` it is sealed to. */
  ukEpoch: number;
  /** HPKE encapsulated key, base64url. */
  enc: string;
  /** HPKE ciphertext of the 32-byte chat key, base64url. */
  ct: string;
}

export interface ChatKeyEnvelope {
  chatId: string;
  epoch: number;
  creatorId: string;
  /** One per participant, sorted by user id. */
  seals: ChatKeySeal[];
  /** The creator's Ed25519 signature, base64url. */
  sig: string;
}

const SEAL_LABEL = 'parley/chatkey/v1';
const SIG_LABEL = 'parley/chatkey-sig/v1';

export const hpkeSuite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes256Gcm(),
});

/** The two user ids a chat id is made of, sorted (as chat ids are). */
export function participantsOf(chatId: string): [string, string] {
  const parts = chatId.split('_');
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new E2EEAuthError('The chat id');
  return [parts[0], parts[1]];
}

function sealInfo(chatId: string, epoch: number, userId: string, ukEpoch: number): Uint8Array {
  return fields(SEAL_LABEL, chatId, u32(epoch), userId, u32(ukEpoch));
}

function signedText(e: Omit<ChatKeyEnvelope, 'sig'>): Uint8Array {
  return concat(
    fields(SIG_LABEL, e.chatId, u32(e.epoch), e.creatorId),
    ...e.seals.map((s) => fields(s.userId, u32(s.ukEpoch), fromBase64Url(s.enc), fromBase64Url(s.ct))),
  );
}

/**
 * A new chat key for `epoch`, sealed to both participants' current keys. Each member's
 * UK must carry a valid signature of their IK; checking that IK against what this
 * browser has pinned is the caller's part.
 */
export async function createChatKey(
  me: AccountKeys,
  chatId: string,
  epoch: number,
  members: readonly PublicKeys[],
): Promise<{ envelope: ChatKeyEnvelope; key: CryptoKey }> {
  const ids = participantsOf(chatId);
  if (!ids.includes(me.userId)) throw new Error('Not a participant of this chat');
  const raw = randomBytes(32);
  try {
    const seals: ChatKeySeal[] = [];
    for (const userId of ids) {
      const member = members.find((m) => m.userId === userId);
      if (!member || !(await verifyPublicKeys(member))) throw new E2EEAuthError(`The keys of ${userId}`);
      const recipientPublicKey = await hpkeSuite.kem.importKey('raw', bytes(fromBase64Url(member.uk)).buffer, true);
      const sealed = await hpkeSuite.seal(
        { recipientPublicKey, info: bytes(sealInfo(chatId, epoch, userId, member.ukEpoch)) },
        raw,
      );
      seals.push({
        userId,
        ukEpoch: member.ukEpoch,
        enc: toBase64Url(new Uint8Array(sealed.enc)),
        ct: toBase64Url(new Uint8Array(sealed.ct)),
      });
    }
    const unsigned = { chatId, epoch, creatorId: me.userId, seals };
    const envelope = { ...unsigned, sig: await sign(me.ikPrivate, signedText(unsigned)) };
    return { envelope, key: await hkdfKey(raw) };
  } finally {
    raw.fill(0);
  }
}

/** True when the envelope is well-formed for its chat and signed by its creator's `creatorIk`. */
export async function verifyChatKey(envelope: ChatKeyEnvelope, creatorIk: string): Promise<boolean> {
  try {
    const ids = participantsOf(envelope.chatId);
    const sealedTo = envelope.seals.map((s) => s.userId);
    const shaped =
      Number.isInteger(envelope.epoch) &&
      envelope.epoch > 0 &&
      ids.includes(envelope.creatorId) &&
      sealedTo.length === ids.length &&
      ids.every((id, i) => sealedTo[i] === id);
    return shaped && (await verify(creatorIk, signedText(envelope), envelope.sig));
  } catch {
    return false;
  }
}

/** Opens this user's seal of a verified envelope: the chat key as an HKDF key. */
export async function openChatKey(me: AccountKeys, envelope: ChatKeyEnvelope, creatorIk: string): Promise<CryptoKey> {
  return authenticated('The chat key', async () => {
    if (!(await verifyChatKey(envelope, creatorIk))) throw new E2EEAuthError('The chat key');
    const mine = envelope.seals.find((s) => s.userId === me.userId);
    const recipientKey = mine && me.ukPrivate.get(mine.ukEpoch);
    if (!mine || !recipientKey) throw new E2EEAuthError('The chat key');
    const raw = new Uint8Array(
      await hpkeSuite.open(
        {
          recipientKey,
          enc: bytes(fromBase64Url(mine.enc)).buffer,
          info: bytes(sealInfo(envelope.chatId, envelope.epoch, mine.userId, mine.ukEpoch)),
        },
        bytes(fromBase64Url(mine.ct)).buffer,
      ),
    );
    try {
      if (raw.length !== 32) throw new E2EEAuthError('The chat key');
      return await hkdfKey(raw);
    } finally {
      raw.fill(0);
    }
  });
}
