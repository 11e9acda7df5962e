/**
 * A send, as a program of statements (program.ts) that the group commit runs in a
 * shared transaction on SQLite or in its own on PostgreSQL: the checks, a retried send
 * answered again, a stranger's first message turned into a request, the message stored.
 * The whole path, from the composer to the other person's screen: docs/message-path.md.
 */
import { type Access, type ChatKeyEnvelopeWire, type ChatMessage, chatIdOf, SOCIAL_MSG } from '@app/protocol';
import type { Selectable } from 'kysely';
import { assertActive } from '../people-locks.ts';
import { call, type Program, query, stmt } from '../program.ts';
import type { MessagesTable, UsersTable } from '../schema.ts';
import { accessOf, createRequest, pendingRequest } from '../social/requests.ts';
import type { SummaryRow } from './apply-send.ts';
import { acceptSealedSend, currentChatKey, keyContext } from './chat-keys.ts';
import {
  appendLogProgram,
  ChatError,
  type Entry,
  type LoggedUpdate,
  type StoredText,
  toMessage,
  toPublicUser,
} from './chat-rows.ts';
import { insertMessageProgram, SUMMARIES } from './insert-message.ts';

const OPEN: Access = { state: 'open' };
const MESSAGE_BY_ID = stmt('select * from messages where chat_id = ? and id = ?');
/**
 * Everything a send checks about its people, in one round trip: both of them (profiles,
 * blocked, whether they take messages from contacts only, their account keys' epoch), the
 * sender of a message already stored under this id (a retried send), and when the sending
 * session ends. On PostgreSQL both people are locked against deletion until the send
 * commits (see lockPeople). Their summaries of the chat are read next (SUMMARIES).
 */
const SEND_CONTEXT = stmt(
  'select u.id, u.username, u.name, u.profile_pic, u.verified, u.blocked, s.require_request, ' +
    '(select sender_id from messages where chat_id = ? and id = ?) as stored_sender, ' +
    '(select expires_at from sessions where token_hash = ?) as session_expires, ' +
    '(select uk_epoch from user_keys k where k.user_id = u.id) as uk_epoch ' +
    'from users u left join user_settings s on s.user_id = u.id where u.id in (?, ?)',
  ' order by u.id for key share of u',
);

export type SendResult =
  | { message: ChatMessage; updates: LoggedUpdate[]; duplicate: boolean }
  | { request: Access; updates: LoggedUpdate[] };

/** A send as the socket handed it over: who, to whom, which id, the sealed text, when, from which session. */
export interface SendInput {
  senderId: string;
  recipientId: string;
  msgId: string;
  sealed: { ct: string; chatKey?: ChatKeyEnvelopeWire | undefined };
  now: number;
  session: string | null;
}

export type SendContextRow = Pick<
  Selectable<UsersTable>,
  'id' | 'username' | 'name' | 'profile_pic' | 'verified' | 'blocked'
> & {
  require_request: number | null;
  stored_sender: string | null;
  session_expires: number | null;
  uk_epoch: number | null;
};

/** A send that passed its checks: what writing it needs (see writeSend). */
export interface SendPlan {
  sender: SendContextRow;
  recipient: SendContextRow;
  /** The chat's key as the summaries keep it, and as it is after this send (a new one to record). */
  known: string | null;
  keyAfter: string | null;
  /** The way back from the recipient, when the sender takes messages from contacts only. */
  back: Access;
}

/**
 * Stores a new message from `senderId` to `recipientId` and updates both summaries.
 * A retry with the same message id is answered with the stored message and changes
 * nothing. To a user who takes messages from contacts only, the first message of a
 * stranger becomes a contact request instead (see requests.ts).
 *
 * The sender must exist and not be blocked, and `session` (when given: the session the
 * frame came from) must still be live, all checked in the send's own transaction: a
 * block, sign-out or deletion that commits first refuses it.
 */
export function* sendProgram(input: SendInput): Program<SendResult> {
  const { senderId, recipientId, msgId, session } = input;
  const chatId = chatIdOf(senderId, recipientId);
  const people = yield* query<SendContextRow>(SEND_CONTEXT, [chatId, msgId, session, senderId, recipientId]);
  const summaries = yield* query<SummaryRow>(SUMMARIES, [chatId, senderId, recipientId]);
  const plan = yield* planSend(input, people, summaries);
  return 'sender' in plan ? yield* writeSend(input, plan, summaries) : plan;
}

/**
 * A send's checks, given what SEND_CONTEXT reads (both people, in id order) and their
 * summaries of the chat (the chat's key as they keep it, "epoch:low,high"): refused
 * (throws ChatError), answered without a new message (a retry, a contact request), or
 * the plan of the message to write. Statements it runs are for the rarer cases only: a
 * retried send, a chat with no key in its summaries, a new key, contact requests. The
 * grouped PostgreSQL path (send-batch.ts) runs it without a database and sends those
 * cases the single way.
 */
export function* planSend(
  input: SendInput,
  people: SendContextRow[],
  summaries: SummaryRow[],
): Program<SendPlan | SendResult> {
  const { senderId, recipientId, msgId, sealed, now, session } = input;
  const chatId = chatIdOf(senderId, recipientId);
  const sender = people.find((p) => p.id === senderId);
  assertActive(sender, session, now);
  const stored = people[0]?.stored_sender ?? null;
  if (stored !== null) {
    if (stored !== senderId) throw new ChatError('conflict', 'That message id is already used');
    const [found] = yield* query<Selectable<MessagesTable>>(MESSAGE_BY_ID, [chatId, msgId]);
    if (found) return { message: toMessage(found), updates: [], duplicate: true };
  }
  const recipient = people.find((p) => p.id === recipientId);
  if (!recipient || recipient.blocked === 1) {
    throw new ChatError('recipient_unavailable', 'This account is not available');
  }
  const access: Access =
    recipient.require_request === 1 ? yield* call((tx) => accessOf(tx, senderId, recipientId)) : OPEN;
  // The chat's key as the summaries keep it (none yet: from chat_keys), and as it is after this send.
  const known = summaries.find((r) => r.chat_key !== null)?.chat_key ?? null;
  let keyAfter = known;
  if (access.state !== 'pending') {
    const current = known ?? (yield* currentChatKey(chatId));
    const ukEpochs = people.map((p) => ({ id: p.id, ukEpoch: p.uk_epoch === null ? null : Number(p.uk_epoch) }));
    keyAfter = yield* acceptSealedSend(chatId, senderId, sealed.ct, sealed.chatKey, keyContext(current, ukEpochs), now);
  }
  if (access.state === 'pending') {
    const pending = yield* call((tx) => pendingRequest(tx, senderId, recipientId));
    // A retried send of the request itself is acknowledged again.
    if (pending?.msg_id === msgId) return { request: access, updates: [] };
    throw new ChatError('request_pending', SOCIAL_MSG.requestPending);
  }
  if (access.state === 'request') {
    const text: StoredText = { text: sealed.ct, sealed: true };
    return yield* call((tx) => createRequest(tx, senderId, recipientId, msgId, text, now));
  }
  // A sender who takes messages from contacts only opens the way back by writing.
  const back: Access = sender.require_request === 1 ? yield* call((tx) => accessOf(tx, recipientId, senderId)) : OPEN;
  return { sender, recipient, known, keyAfter, back };
}

/** Writes a planned send: the message, both summaries (with a new chat key), the log entries. */
function* writeSend(input: SendInput, plan: SendPlan, summaries: SummaryRow[]): Program<SendResult> {
  const { senderId, recipientId, msgId, sealed, now } = input;
  const { message, entries } = yield* insertMessageProgram(
    {
      chatId: chatIdOf(senderId, recipientId),
      msgId,
      senderId,
      recipientId,
      body: { text: sealed.ct, sealed: true },
      now,
      chatKey: plan.keyAfter !== plan.known && plan.keyAfter !== null ? plan.keyAfter : undefined,
    },
    { summaries, senderProfile: toPublicUser(plan.sender), recipientProfile: toPublicUser(plan.recipient) },
  );
  const logged: Entry[] = [...entries];
  if (plan.back.state !== 'open') {
    logged.push({ userId: recipientId, update: { kind: 'access', peerId: senderId, access: { state: 'open' } } });
  }
  return { message, updates: yield* appendLogProgram(logged, now), duplicate: false };
}
