/**
 * Chat keys on the server (docs/e2ee.md): the envelopes each chat's participants
 * made, by epoch, and the rules that keep every stored message openable by its recipient.
 * A send must be sealed under the chat's current key, and that key must be sealed to both
 * participants' current encryption keys; otherwise the sender makes the next epoch's key
 * and sends it with the message. The server checks shapes and numbers only: signatures
 * and seals are the browsers' to check, and it can read none of it.
 */
import { type ChatKeyEnvelopeWire, sealedHeader } from '@app/protocol';
import type { Kysely } from 'kysely';
import { type Program, query, stmt } from '../program.ts';
import type { Database } from '../schema.ts';
import { ChatError } from './chat-rows.ts';

/** What a send reads of the chat's keys and both people's (folded into its context query). */
export interface KeyContext {
  /** The chat's newest key epoch, and the participants' key epochs it was sealed to. */
  keyEpoch: number | null;
  keyUkEpochs: string | null;
  /** Each participant's current encryption-key epoch (null: no keys yet). */
  ukEpochs: { id: string; ukEpoch: number | null }[];
}

/** "low,high": the participants' key epochs in user id order. */
export function ukEpochsOf(people: readonly { id: string; ukEpoch: number | null }[]): string {
  return [...people]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((p) => p.ukEpoch)
    .join(',');
}

const INSERT_CHAT_KEY = stmt(
  'insert into chat_keys (chat_id, epoch, creator_id, uk_epochs, envelope, created_at) values (?, ?, ?, ?, ?, ?) ' +
    'on conflict (chat_id, epoch) do nothing returning epoch',
);

const CURRENT_KEY = stmt(
  "select epoch || ':' || uk_epochs as chat_key from chat_keys where chat_id = ? order by epoch desc limit 1",
);

/** The chat's current key, "epoch:low,high", from chat_keys (when no summary has it yet). */
export function* currentChatKey(chatId: string): Program<string | null> {
  const [row] = yield* query<{ chat_key: string }>(CURRENT_KEY, [chatId]);
  return row?.chat_key ?? null;
}

/** A send's KeyContext from the current key ("epoch:low,high" or null) and both people's key epochs. */
export function keyContext(current: string | null, ukEpochs: KeyContext['ukEpochs']): KeyContext {
  const [epoch, sealedTo] = current?.split(':') ?? [];
  return { keyEpoch: epoch ? Number(epoch) : null, keyUkEpochs: sealedTo ?? null, ukEpochs };
}

function refuseRekey(): never {
  throw new ChatError('rekey_required', "This chat's key is out of date: make the next one and send again");
}

/**
 * Checks a sealed send (revision 0, under the current key or the next one it brings) and
 * stores the key it brings. First come, first stored: a key made for the same epoch by
 * the other participant at the same moment is refused with 'conflict'. Returns the chat's
 * current key after the send ("epoch:low,high").
 */
export function* acceptSealedSend(
  chatId: string,
  senderId: string,
  ct: string,
  chatKey: ChatKeyEnvelopeWire | undefined,
  k: KeyContext,
  now: number,
): Program<string> {
  const header = sealedHeader(ct);
  if (header?.rev !== 0) throw new ChatError('invalid_frame', 'A new message is revision 0');
  const recipient = k.ukEpochs.find((p) => p.id !== senderId);
  if (!recipient || recipient.ukEpoch === null) {
    throw new ChatError('recipient_no_keys', 'This person has not set up encryption yet');
  }
  if (k.ukEpochs.some((p) => p.ukEpoch === null)) throw new ChatError('forbidden', 'Set up encryption first');
  const current = ukEpochsOf(k.ukEpochs);
  if (!chatKey) {
    if (k.keyEpoch === null || header.epoch !== k.keyEpoch || k.keyUkEpochs !== current) refuseRekey();
    return `${k.keyEpoch}:${current}`;
  }
  const sealedTo = chatKey.seals.map((s) => s.userId);
  const shaped =
    chatKey.chatId === chatId &&
    chatKey.creatorId === senderId &&
    header.epoch === chatKey.epoch &&
    sealedTo.join('_') === chatId &&
    ukEpochsOf(chatKey.seals.map((s) => ({ id: s.userId, ukEpoch: s.ukEpoch }))) === current;
  if (!shaped) refuseRekey();
  // The epoch was taken a moment ago by a key as current as this one (the peer's, made at the
  // same time, committed first): the same answer as the insert below gives when both race.
  if (chatKey.epoch === k.keyEpoch && k.keyUkEpochs === current) {
    throw new ChatError('conflict', 'Another key was made for this chat at the same moment');
  }
  if (chatKey.epoch !== (k.keyEpoch ?? 0) + 1) refuseRekey();
  const stored = yield* query(INSERT_CHAT_KEY, [
    chatId,
    chatKey.epoch,
    senderId,
    current,
    JSON.stringify(chatKey),
    now,
  ]);
  if (stored.length === 0) throw new ChatError('conflict', 'Another key was made for this chat at the same moment');
  return `${chatKey.epoch}:${current}`;
}

/**
 * Checks a sealed edit: revision `rev` (the stored one + 1) under the chat's current key,
 * and that key still sealed to both participants' current keys. An edit brings no key:
 * after either side's keys changed, a send makes the next one first (else the edit would
 * be stored under a key the peer may no longer open).
 */
export async function acceptSealedEdit(db: Kysely<Database>, chatId: string, ct: string, rev: number) {
  const header = sealedHeader(ct);
  if (header?.rev !== rev) throw new ChatError('conflict', 'This message changed meanwhile: edit it again');
  const key = await db
    .selectFrom('chat_keys')
    .select(['epoch', 'uk_epochs'])
    .where('chat_id', '=', chatId)
    .orderBy('epoch', 'desc')
    .limit(1)
    .executeTakeFirst();
  const ids = chatId.split('_');
  const rows = await db.selectFrom('user_keys').select(['user_id', 'uk_epoch']).where('user_id', 'in', ids).execute();
  // A participant without keys (an account deleted since) changes nothing.
  const stored = key?.uk_epochs.split(',') ?? [];
  const moved = [...ids].sort().some((id, i) => rows.some((r) => r.user_id === id && String(r.uk_epoch) !== stored[i]));
  if (!key || header.epoch !== Number(key.epoch) || moved) {
    throw new ChatError('rekey_required', "This chat's key is out of date: send a message first");
  }
}

/**
 * A tombstone (a sealed deletion): the message's next revision, under any key the chat has
 * (both people hold every epoch's key, so an older one does as well as the newest). A chat
 * with no key at all (everything in it from before encryption) takes a deletion without one.
 */
export async function acceptTombstone(
  db: Kysely<Database>,
  chatId: string,
  ct: string | null,
  rev: number,
): Promise<void> {
  if (ct === null) {
    if ((await currentKeyEpoch(db, chatId)) === null) return;
    throw new ChatError('conflict', 'A deletion must be sealed: reload and delete it again');
  }
  const header = sealedHeader(ct);
  if (header?.rev !== rev) throw new ChatError('conflict', 'This message changed meanwhile: delete it again');
  const key = await db
    .selectFrom('chat_keys')
    .select('epoch')
    .where('chat_id', '=', chatId)
    .where('epoch', '=', header.epoch)
    .executeTakeFirst();
  if (!key) throw new ChatError('rekey_required', "This chat's key is out of date: reload and delete it again");
}

export async function currentKeyEpoch(db: Kysely<Database>, chatId: string): Promise<number | null> {
  const r = await db
    .selectFrom('chat_keys')
    .select((eb) => eb.fn.max('epoch').as('epoch'))
    .where('chat_id', '=', chatId)
    .executeTakeFirst();
  return r?.epoch == null ? null : Number(r.epoch);
}

/** The envelopes of a chat, oldest epoch first. */
export async function chatKeysOf(db: Kysely<Database>, chatId: string): Promise<ChatKeyEnvelopeWire[]> {
  const rows = await db
    .selectFrom('chat_keys')
    .select('envelope')
    .where('chat_id', '=', chatId)
    .orderBy('epoch')
    .execute();
  return rows.map((r) => JSON.parse(r.envelope) as ChatKeyEnvelopeWire);
}
