/**
 * What an outbox entry says, at rest (outbox-store.ts): its text sealed under this
 * browser's own key, and beside it, sealed the same way, what travels with the text (the
 * message it replies to, the forwarded mark, the attachment with its key) as JSON.
 */
import type { MessageContent } from '@app/e2ee';
import { refFromWire, refToWire } from '@app/e2ee/attachment-ref';
import { REPLY_EXCERPT_MAX } from '@app/e2ee/message-content';
import { messageIdSchema, userIdSchema } from '@app/protocol';
import { z } from 'zod';
import { logged } from '@/lib/log';
import type { LocalSealing } from '../keys/local-keys';
import type { OutboxEntry, OutboxStore } from './outbox-store';

/** An excerpt is at most REPLY_EXCERPT_MAX code points: twice as many UTF-16 units at most. */
const extrasSchema = z.object({
  reply: z
    .object({ msgId: messageIdSchema, senderId: userIdSchema, excerpt: z.string().max(2 * REPLY_EXCERPT_MAX) })
    .optional(),
  forwarded: z.literal(true).optional(),
  /** As sealed in messages (e2ee attachment-ref.ts), checked by its reader. */
  attachments: z.array(z.unknown()).optional(),
});

type Extras = Omit<MessageContent, 'text'>;

/** The extras of `c` sealed, or undefined when it has none (or nothing is kept at rest). */
async function sealExtras(local: LocalSealing, c: MessageContent): Promise<string | undefined> {
  if (!c.reply && !c.forwarded && !c.attachments) return undefined;
  const extras: Omit<Extras, 'attachments'> & { attachments?: unknown[] } = {};
  if (c.reply) extras.reply = c.reply;
  if (c.forwarded) extras.forwarded = true;
  if (c.attachments) extras.attachments = c.attachments.map(refToWire);
  return (await local.seal(JSON.stringify(extras))) ?? undefined;
}

/**
 * The extras sealExtras sealed; null when they cannot be opened (another browser's key), or
 * name an attachment that does not read (without it the message is not what was written).
 * Extras that open but do not parse (another version's) are dropped: the text still goes.
 */
async function openExtras(local: LocalSealing, sealed: string): Promise<Extras | null> {
  const opened = await local.open(sealed);
  if (opened === null) return null;
  let parsed: ReturnType<typeof extrasSchema.safeParse>;
  try {
    parsed = extrasSchema.safeParse(JSON.parse(opened));
  } catch {
    return {};
  }
  if (!parsed.success) return {};
  const extras: Extras = {};
  if (parsed.data.reply) extras.reply = parsed.data.reply;
  if (parsed.data.forwarded) extras.forwarded = true;
  if (parsed.data.attachments) {
    try {
      extras.attachments = parsed.data.attachments.map(refFromWire);
    } catch {
      return null;
    }
  }
  return extras;
}

/** `entry` with `content` sealed into it (a text already sealed is kept). */
export async function sealedEntry(local: LocalSealing, entry: OutboxEntry, c: MessageContent): Promise<OutboxEntry> {
  if (entry.sealed !== undefined) return entry;
  const [sealed, extras] = await Promise.all([local.seal(c.text), sealExtras(local, c)]);
  return { ...entry, sealed: sealed ?? '', ...(extras ? { sealedExtras: extras } : {}) };
}

/**
 * A stored entry and what it says: opened, or (an entry from before sealing) re-stored
 * sealed. null: it cannot be read here (sealed under another browser key).
 */
export async function readEntry(
  local: LocalSealing,
  store: OutboxStore,
  e: OutboxEntry,
): Promise<{ entry: OutboxEntry; content: MessageContent } | null> {
  const { text, ...rest } = e;
  if (e.sealed) {
    const opened = await local.open(e.sealed);
    if (opened === null) return null;
    const extras = e.sealedExtras ? await openExtras(local, e.sealedExtras) : {};
    return extras === null ? null : { entry: rest, content: { ...extras, text: opened } };
  }
  if (text === undefined) return null;
  const sealed = await local.seal(text).catch(() => null);
  const entry = { ...rest, sealed: sealed ?? '' };
  if (sealed !== null) await store.put(entry).catch(logged('outbox', 'store an entry sealed on load'));
  return { entry, content: { text } };
}
