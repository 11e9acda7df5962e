/**
 * Reading an export of the original app's tree database (spec section 3) for import-rtdb:
 * the file streamed, one second-level entry at a time (`users/{uid}`, `messages/{chatId}`,
 * `userChats/{uid}`...), so a 1 GB export never sits in memory, only one of its chats; and
 * the shapes of its records, read leniently (the original validated nothing on the server).
 */
import { createReadStream } from 'node:fs';
import { emailSchema, profilePicSchema, usernameSchema } from '@app/protocol';
import { JSONParser } from '@streamparser/json';
import { z } from 'zod';

/** The top-level keys of an export, as spec section 3 names them. */
export const TOP_KEYS = [
  'users',
  'usernames',
  'messages',
  'userChats',
  'archives',
  'notifications',
  'userNotifications',
  'contacts',
  'userSettings',
  'settings',
  'typing',
] as const;

export interface Entry {
  /** The top-level key (users, messages...). */
  top: string;
  /** The key under it (a user id, a chat id...). */
  key: string;
  value: unknown;
}

/**
 * Every `top/key` entry of the file, in file order. Each is parsed whole (a chat with all
 * its messages), the rest of the file is not held. `onBytes` gets the bytes read so far.
 */
export async function* readEntries(file: string, onBytes?: (bytes: number) => void): AsyncGenerator<Entry> {
  const parser = new JSONParser({ paths: ['$.*.*'], keepStack: false });
  const ready: Entry[] = [];
  parser.onValue = ({ value, key, stack }) => {
    const top = stack[1]?.key;
    if (typeof top === 'string' && key !== undefined) ready.push({ top, key: String(key), value });
  };
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    parser.write(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    onBytes?.(bytes);
    while (ready.length) yield ready.shift() as Entry;
  }
  // The parser ends by itself after the top-level object; short of it, the file is cut.
  if (!parser.isEnded) parser.end();
  while (ready.length) yield ready.shift() as Entry;
}

const ms = z.coerce.number().int().nonnegative();
const flag = z.preprocess((v) => v === true || v === 'true' || v === 1, z.boolean());
const optMs = z.preprocess((v) => (v === undefined || v === null || v === '' ? null : v), ms.nullable()).catch(null);
const str = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string());

export const sourceUserSchema = z.object({
  username: usernameSchema,
  email: emailSchema,
  name: str.optional().catch(undefined),
  phone: str.optional().catch(undefined),
  age: z.coerce.number().int().optional().catch(undefined),
  profilePic: profilePicSchema.optional().catch(undefined),
  createdAt: optMs,
  updatedAt: optMs,
  lastSeen: optMs,
  verified: flag.optional(),
  blocked: flag.optional(),
  pin: z.unknown().optional(),
});
export type SourceUser = z.infer<typeof sourceUserSchema>;

export const sourceMessageSchema = z.object({
  senderId: z.string().min(1),
  text: str,
  timestamp: ms,
  status: z.enum(['sent', 'delivered', 'read']).catch('sent'),
  edited: flag.optional(),
  deleted: flag.optional(),
  deliveredAt: optMs,
  readAt: optMs,
});
export type SourceMessage = z.infer<typeof sourceMessageSchema>;

export const sourceSummarySchema = z.object({
  unreadCount: z.coerce.number().int().nonnegative().catch(0),
  archived: flag.optional(),
  locked: flag.optional(),
});
export type SourceSummary = z.infer<typeof sourceSummarySchema>;

const httpUrl = z.url({ protocol: /^https?$/ });
const optUrl = z.preprocess((v) => (v === '' || v === null ? undefined : v), httpUrl.optional());

export const sourceBroadcastSchema = z.object({
  message: str.pipe(z.string().trim().min(1)),
  videoUrl: optUrl,
  imageUrl: optUrl,
  timestamp: ms,
  from: z.string().optional(),
});

export const sourceRequestSchema = z.object({
  type: z.string().optional(),
  from: z.string().min(1),
  fromUsername: z.string().optional(),
  message: str.catch(''),
  timestamp: ms,
  read: flag.optional(),
});

export const sourcePrivacySchema = z.object({
  readReceipts: z.boolean().catch(true),
  lastSeen: z.boolean().catch(true),
  requireRequest: z.boolean().catch(false),
});

export const helpLinkSchema = httpUrl;

/** A PIN the app can use: a 6-digit code (hashed then), or already an argon2id hash (kept). */
export function pinOf(pin: unknown): { plain: string } | { hash: string } | null {
  const s = typeof pin === 'number' ? String(pin).padStart(6, '0') : pin;
  if (typeof s !== 'string') return null;
  if (/^[0-9]{6}$/.test(s)) return { plain: s };
  if (s.startsWith('$argon2id$')) return { hash: s };
  return null;
}

/** The first issue of a failed parse, as "field: message". */
export function why(error: z.ZodError): string {
  const i = error.issues[0];
  return i ? `${i.path.join('.') || 'value'}: ${i.message}` : 'invalid';
}

/** Whether a value is a JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
