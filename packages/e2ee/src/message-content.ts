/**
 * What a message says beside its text, sealed with it (docs/e2ee.md, "Replies and
 * forwards"): the message it replies to (its id, its sender and an excerpt of it),
 * whether it was forwarded, and the attachments it carries (attachment-ref.ts: their keys). The server sees none of it, not even that two messages are
 * linked. Plaintext form (before padding): 0x04 ‖ u16 length ‖ the extras as JSON ‖ the
 * UTF-8 text. The JSON is small and bounded (ids and a short excerpt), so an escaped
 * excerpt cannot push a full-length message past the ciphertext limit; the text follows
 * raw, as in a plain message.
 */
import { type AttachmentRef, refFromWire, refToWire } from './attachment-ref.ts';
import { concat, fromUtf8, u16, utf8 } from './bytes.ts';
import { E2EEAuthError } from './errors.ts';

export const RICH_TEXT = 0x04;

/** The longest excerpt a reply carries (characters); a longer one is cut by the sender. */
export const REPLY_EXCERPT_MAX = 120;
const ID_MAX = 64;

/** The message a reply quotes, as its sender saw it when replying. */
export interface ReplyRef {
  msgId: string;
  senderId: string;
  /** Its first line, at most REPLY_EXCERPT_MAX characters. */
  excerpt: string;
}

/** At most this many attachments in one message (each its own bubble, as WhatsApp sends them). */
export const ATTACHMENTS_SEALED_MAX = 1;

/** A message's text (an attachment's caption) and what travels sealed with it. */
export interface MessageContent {
  text: string;
  reply?: ReplyRef;
  forwarded?: true;
  attachments?: AttachmentRef[];
}

/** Whether `c` needs the rich form (else it is sealed as a plain text). */
export function hasExtras(c: MessageContent): boolean {
  return c.reply !== undefined || c.forwarded === true || (c.attachments?.length ?? 0) > 0;
}

/** The first line of `text`, trimmed and cut to REPLY_EXCERPT_MAX characters (by code point). */
export function replyExcerpt(text: string): string {
  const line = text.trim().split('\n', 1)[0]?.trim() ?? '';
  const points = [...line];
  return points.length <= REPLY_EXCERPT_MAX ? line : `${points.slice(0, REPLY_EXCERPT_MAX - 1).join('')}…`;
}

/** The plaintext of `c` in the rich form (before padding). */
export function encodeRich(c: MessageContent): Uint8Array {
  const extras: { r?: { i: string; s: string; x: string }; f?: 1; a?: unknown[] } = {};
  if (c.reply) extras.r = { i: c.reply.msgId, s: c.reply.senderId, x: replyExcerpt(c.reply.excerpt) };
  if (c.forwarded) extras.f = 1;
  if (c.attachments?.length) extras.a = c.attachments.map(refToWire);
  const json = utf8(JSON.stringify(extras));
  return concat(new Uint8Array([RICH_TEXT]), u16(json.length), json, utf8(c.text));
}

function boundedString(v: unknown, max: number): v is string {
  return typeof v === 'string' && [...v].length <= max;
}

/** Reads a rich plaintext (its type byte first); anything malformed is an E2EEAuthError. */
export function decodeRich(plain: Uint8Array): MessageContent {
  if (plain.length < 3 || plain[0] !== RICH_TEXT) throw new E2EEAuthError('The message');
  const length = (plain[1] as number) * 256 + (plain[2] as number);
  if (3 + length > plain.length) throw new E2EEAuthError('The message');
  let extras: unknown;
  try {
    extras = JSON.parse(fromUtf8(plain.subarray(3, 3 + length)));
  } catch (cause) {
    throw new E2EEAuthError('The message', { cause });
  }
  if (typeof extras !== 'object' || extras === null || Array.isArray(extras)) throw new E2EEAuthError('The message');
  const { r, f, a } = extras as { r?: unknown; f?: unknown; a?: unknown };
  const content: MessageContent = { text: fromUtf8(plain.subarray(3 + length)) };
  if (r !== undefined) {
    const ref = r as { i?: unknown; s?: unknown; x?: unknown } | null;
    if (
      typeof ref !== 'object' ||
      ref === null ||
      !boundedString(ref.i, ID_MAX) ||
      !boundedString(ref.s, ID_MAX) ||
      !boundedString(ref.x, REPLY_EXCERPT_MAX)
    )
      throw new E2EEAuthError('The message');
    content.reply = { msgId: ref.i, senderId: ref.s, excerpt: ref.x };
  }
  if (f !== undefined) {
    if (f !== 1) throw new E2EEAuthError('The message');
    content.forwarded = true;
  }
  if (a !== undefined) {
    if (!Array.isArray(a) || a.length === 0 || a.length > ATTACHMENTS_SEALED_MAX)
      throw new E2EEAuthError('The message');
    content.attachments = a.map(refFromWire);
  }
  return content;
}
