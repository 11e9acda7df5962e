/**
 * The WebSocket protocol at /ws. Every frame is JSON; both ends parse every frame with
 * these schemas. Client frames are "up", server frames are "down".
 *
 * - The client opens with `hello` (its last update `seq`, or null on a fresh start).
 * - Requests carry a client-chosen `id`, answered by `result` or `error` with that id.
 * - Changes that concern a user are appended to their update log with an increasing
 *   `seq` and pushed as `update`; a client that reconnects with its last seq gets
 *   exactly what it missed. `presence` and `typing` are pushed but not logged.
 */
import { z } from 'zod';
import { messageAttachmentsSchema } from './attachments.ts';
import {
  chatIdSchema,
  chatMessageSchema,
  chatStateSchema,
  chatSummarySchema,
  messageIdSchema,
  presenceSchema,
  publicUserSchema,
  userIdSchema,
} from './chat.ts';
import { muteSchema } from './chat-flags.ts';
import { reactionSchema, reactSchema } from './reactions.ts';
import { chatKeyEnvelopeSchema, ciphertextSchema } from './sealed.ts';
import { accessSchema, notificationItemSchema, privacySchema } from './social.ts';
import { text } from './text.ts';

/** Largest frame the server reads. A 4096-character message in JSON fits with room to spare. */
export const MAX_FRAME_BYTES = 64 * 1024;

/** Close codes shared by both ends (4000–4999 are the application's). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  /** The server failed (e.g. its database during the handshake): the client reconnects with backoff. */
  serverError: 1011,
  protocolError: 4000,
  unauthenticated: 4001,
  blocked: 4003,
  versionMismatch: 4005,
  tooManyConnections: 4008,
  rateLimited: 4029,
  sessionEnded: 4010,
} as const;

const requestId = text({ min: [1, 'Invalid request id'], max: [64, 'Invalid request id'] });

export const helloSchema = z.strictObject({
  t: z.literal('hello'),
  v: z.number().int(),
  lastSeq: z.number().int().nonnegative().nullable(),
});

/**
 * A message, sealed (sealed.ts): `ct` must be revision 0 under the chat's current key;
 * `chatKey` brings the next epoch's key (the first message of a chat, or after either
 * side's keys changed), stored first-come: a second one for the same epoch is refused.
 */
export const sendSchema = z.strictObject({
  t: z.literal('send'),
  id: requestId,
  to: userIdSchema,
  msgId: messageIdSchema,
  ct: ciphertextSchema,
  chatKey: chatKeyEnvelopeSchema.optional(),
  /** The uploads the message carries (its sealed content holds their keys): bound to it. */
  attachments: messageAttachmentsSchema.optional(),
});

/** A new revision of one's own message: the stored revision + 1, under the current key. */
export const editSchema = z.strictObject({
  t: z.literal('edit'),
  id: requestId,
  chatId: chatIdSchema,
  msgId: messageIdSchema,
  ct: ciphertextSchema,
});

/** How many messages from before encryption one `migrate` frame re-encrypts at most. */
export const MIGRATE_BATCH = 100;

/**
 * One's own messages from before end-to-end encryption, re-encrypted by their sender
 * (docs/e2ee.md): each as revision 0 under the chat's current key, once. A chat with no key
 * yet, or one older than either person's keys, takes the next one with the batch (`chatKey`,
 * as a send brings it), so re-encryption does not wait for a new message.
 */
export const migrateSchema = z.strictObject({
  t: z.literal('migrate'),
  id: requestId,
  chatId: chatIdSchema,
  items: z
    .array(z.strictObject({ msgId: messageIdSchema, ct: ciphertextSchema }))
    .min(1)
    .max(MIGRATE_BATCH),
  chatKey: chatKeyEnvelopeSchema.optional(),
});

/** How many of one's own messages from before encryption one `legacyOwn` page holds at most. */
export const LEGACY_PAGE = 200;

/**
 * A page of one's own messages still in the clear (from before end-to-end encryption, not
 * deleted), across one's chats but the locked ones, by chat then id, after `after`; with how
 * many there are in all. The browser re-encrypts them in the background after sign-in.
 */
export const legacyOwnSchema = z.strictObject({
  t: z.literal('legacyOwn'),
  id: requestId,
  after: z.strictObject({ chatId: chatIdSchema, msgId: messageIdSchema }).optional(),
});

/** Public keys of these users (those who have any). */
export const keysSchema = z.strictObject({
  t: z.literal('keys'),
  id: requestId,
  userIds: z.array(userIdSchema).min(1).max(100),
});

/** Every key envelope of a chat one is in, oldest epoch first. */
export const chatKeysSchema = z.strictObject({ t: z.literal('chatKeys'), id: requestId, chatId: chatIdSchema });

/**
 * Deletes one's own message. `ct` is the sender's tombstone (packages/e2ee message.ts): the
 * deletion sealed as the message's next revision, under a key of the chat, so the other
 * person's browser believes a deletion only its sender sealed. Left out only in a chat that
 * has no key (all of it from before end-to-end encryption).
 */
export const deleteSchema = z.strictObject({
  t: z.literal('delete'),
  id: requestId,
  chatId: chatIdSchema,
  msgId: messageIdSchema,
  ct: ciphertextSchema.optional(),
});

/** The recipient's client received these messages. */
export const deliveredSchema = z.strictObject({
  t: z.literal('delivered'),
  id: requestId,
  chatId: chatIdSchema,
  msgIds: z.array(messageIdSchema).min(1).max(500),
});

/** The recipient has the chat open and visible: everything from the peer is read. */
export const readSchema = z.strictObject({
  t: z.literal('read'),
  id: requestId,
  peerId: userIdSchema,
});

/** A position in a chat's history: a message's (timestamp, id), the order the server keeps. */
const historyCursorSchema = z.strictObject({ timestamp: z.number().int().nonnegative(), id: messageIdSchema });

/**
 * A page of a chat's history, oldest first. At most one of `before`, `after` and `around`;
 * none: the newest page.
 */
export const historySchema = z
  .strictObject({
    t: z.literal('history'),
    id: requestId,
    peerId: userIdSchema,
    /** Messages strictly older than this position. */
    before: historyCursorSchema.optional(),
    /** Messages strictly newer than this position (a window away from the newest, read downwards). */
    after: historyCursorSchema.optional(),
    /** The page around this message of the chat (half older, half from it on): a jump far back. */
    around: messageIdSchema.optional(),
    /**
     * Only messages that carry attachments (photos, files, voice messages) and are not
     * deleted: the chat's media, the newest page or one `before` a position.
     */
    media: z.literal(true).optional(),
    limit: z.number().int().min(1).max(200).optional(),
  })
  .refine((f) => [f.before, f.after, f.around].filter((x) => x !== undefined).length <= 1, {
    message: 'At most one of before, after and around',
  })
  .refine((f) => !f.media || (f.after === undefined && f.around === undefined), {
    message: 'Media are paged with before only',
  });

export const chatsSchema = z.strictObject({ t: z.literal('chats'), id: requestId });

export const usersSchema = z.strictObject({
  t: z.literal('users'),
  id: requestId,
  query: text({ max: [50, 'Searches can be at most 50 characters'] }).default(''),
  /** The last username_lower of the previous page. */
  after: text({ max: [50, 'Invalid cursor'] }).optional(),
});

export const userSchema = z.strictObject({ t: z.literal('user'), id: requestId, userId: userIdSchema });

/** Presence of these users is pushed from now on (replaces the previous set). */
export const watchSchema = z.strictObject({
  t: z.literal('watch'),
  id: requestId,
  userIds: z.array(userIdSchema).max(500),
});

export const typingUpSchema = z.strictObject({ t: z.literal('typing'), to: userIdSchema, typing: z.boolean() });

export const pingSchema = z.strictObject({ t: z.literal('ping') });

/**
 * Archive, lock, pin, mute or mark unread (or undo any) the user's own chat with `peerId`
 * (chat-flags.ts). Unlocking needs a PIN grant; marking read is `read`.
 */
export const chatFlagsSchema = z
  .strictObject({
    t: z.literal('chatFlags'),
    id: requestId,
    peerId: userIdSchema,
    archived: z.boolean().optional(),
    locked: z.boolean().optional(),
    pinned: z.boolean().optional(),
    mute: muteSchema.optional(),
    markedUnread: z.literal(true).optional(),
  })
  .refine(
    (f) =>
      f.archived !== undefined ||
      f.locked !== undefined ||
      f.pinned !== undefined ||
      f.mute !== undefined ||
      f.markedUnread !== undefined,
    { error: 'Nothing to change' },
  );
/** What a `chatFlags` request changes. */
export type ChatFlagsChange = Omit<z.infer<typeof chatFlagsSchema>, 't' | 'id' | 'peerId'>;

/** The merged notification list and the bell count. */
export const notificationsSchema = z.strictObject({ t: z.literal('notifications'), id: requestId });

/** The user opened /notifications: everything so far is seen. */
export const notificationsSeenSchema = z.strictObject({ t: z.literal('notificationsSeen'), id: requestId });

/** Accept or decline a contact request addressed to this user. */
export const respondRequestSchema = z.strictObject({
  t: z.literal('respondRequest'),
  id: requestId,
  notificationId: text({ min: [1, 'Request not found'], max: [64, 'Request not found'] }),
  accept: z.boolean(),
});

export const upFrameSchema = z.discriminatedUnion('t', [
  helloSchema,
  sendSchema,
  editSchema,
  migrateSchema,
  legacyOwnSchema,
  deleteSchema,
  deliveredSchema,
  readSchema,
  historySchema,
  chatsSchema,
  usersSchema,
  userSchema,
  watchSchema,
  typingUpSchema,
  pingSchema,
  chatFlagsSchema,
  notificationsSchema,
  notificationsSeenSchema,
  respondRequestSchema,
  keysSchema,
  chatKeysSchema,
  reactSchema,
]);
export type UpFrame = z.infer<typeof upFrameSchema>;
export type RequestFrame = Extract<UpFrame, { id: string }>;

export const wsErrorCodeSchema = z.enum([
  'invalid_frame',
  'not_found',
  'forbidden',
  'conflict',
  'rate_limited',
  'too_large',
  'recipient_unavailable',
  'request_pending',
  'pin_required',
  'locked',
  /** The chat's key is older than either participant's keys, or not the current one: make the next. */
  'rekey_required',
  /** The recipient has no keys yet (an account from before end-to-end encryption). */
  'recipient_no_keys',
  'internal',
]);
export type WsErrorCode = z.infer<typeof wsErrorCodeSchema>;

/** One entry of a user's update log. Each carries the full new state: applying it twice is harmless. */
export const updateSchema = z.discriminatedUnion('kind', [
  /**
   * A message as it is now. A new message carries `chat`: the summary it made, in both
   * users' logs (the chat list's row is summaryAfter(chat, message)).
   */
  z.object({ kind: z.literal('message'), message: chatMessageSchema, chat: chatStateSchema.optional() }),
  z.object({ kind: z.literal('chat'), chat: chatSummarySchema }),
  z.object({ kind: z.literal('chatRemoved'), chatId: z.string() }),
  /** A peer's or contact's public profile changed. */
  z.object({ kind: z.literal('peer'), user: publicUserSchema }),
  /** The user's own privacy settings changed (in any tab). */
  z.object({ kind: z.literal('privacy'), privacy: privacySchema }),
  /** A personal notification was added (or replaced). */
  z.object({ kind: z.literal('notification'), notification: notificationItemSchema }),
  z.object({ kind: z.literal('notificationRemoved'), id: z.string() }),
  /** Everything up to `at` was seen on /notifications. */
  z.object({ kind: z.literal('notificationsSeen'), at: z.number().int().nonnegative() }),
  /** The user's sealed account data (pins, verified marks) has a new version: fetch it. */
  z.object({ kind: z.literal('accountData'), version: z.number().int().min(1) }),
  /** Whether the user may message `peerId` changed. */
  z.object({ kind: z.literal('access'), peerId: z.string(), access: accessSchema }),
  /**
   * Someone's reaction to a message of the user's chat, as it is now (reactions.ts). A new
   * reaction to the user's own message carries the user's summary of the chat (marked
   * unread: it is activity for them).
   */
  z.object({ kind: z.literal('reaction'), reaction: reactionSchema, chat: chatSummarySchema.optional() }),
]);
export type Update = z.infer<typeof updateSchema>;

/**
 * Changes every signed-in user hears about at once, pushed to every socket but not
 * logged: a client reloads broadcasts and settings on every welcome, and a verified
 * badge also reaches the people who have a chat with that user through their logs.
 */
export const globalEventSchema = z.discriminatedUnion('kind', [
  /** An admin broadcast was sent or edited. */
  z.object({ kind: z.literal('notification'), notification: notificationItemSchema }),
  z.object({ kind: z.literal('notificationRemoved'), id: z.string() }),
  /** A user's public profile changed for everyone (the verified badge). */
  z.object({ kind: z.literal('peer'), user: publicUserSchema }),
  /** The administrator changed the public settings. */
  z.object({ kind: z.literal('settings'), helpLink: z.string().nullable() }),
]);
export type GlobalEvent = z.infer<typeof globalEventSchema>;

/** Server frames: the client parses every one with this schema. */
export const downFrameSchema = z.discriminatedUnion('t', [
  /**
   * After hello. `resumed`: the updates after the client's lastSeq follow, then live ones.
   * Not resumed (fresh start, or too far behind): the client loads its state anew; live
   * updates after `seq` follow.
   */
  z.object({
    t: z.literal('welcome'),
    v: z.number().int(),
    userId: z.string(),
    seq: z.number().int(),
    resumed: z.boolean(),
    /** The user's own privacy settings (they decide which ticks and times the user sees). */
    privacy: privacySchema,
  }),
  z.object({ t: z.literal('update'), seq: z.number().int().positive(), update: updateSchema }),
  /** `data`: parsed by the requester with `resultSchemas` of the request's type (results.ts). */
  z.object({ t: z.literal('result'), id: z.string(), data: z.unknown() }),
  z.object({ t: z.literal('error'), id: z.string().nullable(), code: wsErrorCodeSchema, message: z.string() }),
  z.object({ t: z.literal('presence'), presence: presenceSchema }),
  z.object({ t: z.literal('typing'), from: z.string(), typing: z.boolean() }),
  z.object({ t: z.literal('pong') }),
  z.object({ t: z.literal('global'), event: globalEventSchema }),
]);
export type DownFrame = z.infer<typeof downFrameSchema>;

/** Updates kept per user for resuming; a client further behind reloads its state. */
export const UPDATE_LOG_KEEP = 5000;
