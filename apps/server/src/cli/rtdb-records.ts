/**
 * import-rtdb's second pass for everything but chats (rtdb-importer.ts runs it): contacts,
 * broadcasts, contact requests, privacy settings and the help link, each record through
 * import_ids (imported once), each one that cannot be used skipped with its reason.
 */
import { newId, newTimeOrderedId } from '../storage/ids.ts';
import type { RtdbImportStore } from '../storage/maintenance/rtdb-import-store.ts';
import {
  helpLinkSchema,
  isObject,
  sourceBroadcastSchema,
  sourcePrivacySchema,
  sourceRequestSchema,
  why,
} from './rtdb-export.ts';
import { bit } from './rtdb-rows.ts';

export interface ImportCounts {
  users: number;
  usersBefore: number;
  chats: number;
  chatsBefore: number;
  /** Chats imported before that this run brought newer messages into. */
  chatsGrown: number;
  chatsFailed: number;
  /** Messages of the chats imported by this run. */
  messages: number;
  /** Newer messages brought into chats imported before. */
  newerMessages: number;
  /** Chats with an account deleted in the original (its peer shown as a deleted account). */
  chatsWithDeleted: number;
  contacts: number;
  broadcasts: number;
  requests: number;
  privacy: number;
  helpLink: number;
  typing: number;
}

export const noCounts = (): ImportCounts => ({
  users: 0,
  usersBefore: 0,
  chats: 0,
  chatsBefore: 0,
  chatsGrown: 0,
  chatsFailed: 0,
  messages: 0,
  newerMessages: 0,
  chatsWithDeleted: 0,
  contacts: 0,
  broadcasts: 0,
  requests: 0,
  privacy: 0,
  helpLink: 0,
  typing: 0,
});

export interface RecordContext {
  store: RtdbImportStore;
  /** The original's user id → its Parley account, for the accounts that exist. */
  users: ReadonlyMap<string, string>;
  /** The original's user id → its username in the export. */
  usernameOf: ReadonlyMap<string, string>;
  counts: ImportCounts;
  now: number;
  skip(path: string, reason: string): void;
}

/** contacts/{uid}: each `true` entry one contact (the original stored the pair both ways). */
export async function importContacts(c: RecordContext, uid: string, value: unknown): Promise<void> {
  if (!isObject(value)) return c.skip(`contacts/${uid}`, 'not an object');
  for (const [other, v] of Object.entries(value)) {
    const path = `contacts/${uid}/${other}`;
    if (v !== true) continue;
    const missing = [uid, other].find((p) => !c.users.has(p));
    if (missing) {
      c.skip(path, `user ${missing} was not imported`);
      continue;
    }
    const pair = [uid, other].sort().join('_');
    if (await c.store.addContact(pair, c.users.get(uid) as string, c.users.get(other) as string, c.now))
      c.counts.contacts++;
  }
}

/** notifications/{id}: an administrator's broadcast. */
export async function importBroadcast(c: RecordContext, id: string, value: unknown): Promise<void> {
  const n = sourceBroadcastSchema.safeParse(value);
  if (!n.success) return c.skip(`notifications/${id}`, why(n.error));
  const from = (n.data.from && c.users.get(n.data.from)) || n.data.from || 'admin';
  const row = {
    id: newTimeOrderedId(n.data.timestamp),
    message: n.data.message,
    video_url: n.data.videoUrl ?? null,
    image_url: n.data.imageUrl ?? null,
    timestamp: n.data.timestamp,
    from_id: from,
  };
  if (await c.store.addBroadcast(id, row, c.now)) c.counts.broadcasts++;
}

/** userNotifications/{uid}: the contact requests waiting for uid. */
export async function importRequests(c: RecordContext, uid: string, value: unknown): Promise<void> {
  if (!isObject(value)) return c.skip(`userNotifications/${uid}`, 'not an object');
  for (const [id, raw] of Object.entries(value)) {
    const path = `userNotifications/${uid}/${id}`;
    const r = sourceRequestSchema.safeParse(raw);
    if (!r.success) {
      c.skip(path, why(r.error));
      continue;
    }
    if (r.data.type !== undefined && r.data.type !== 'request') {
      c.skip(path, `type "${r.data.type}" is not one the original app shows as a request`);
      continue;
    }
    const missing = [uid, r.data.from].find((p) => !c.users.has(p));
    if (missing) {
      c.skip(path, `user ${missing} was not imported`);
      continue;
    }
    const row = {
      id: newId(),
      user_id: c.users.get(uid) as string,
      type: 'request' as const,
      from_id: c.users.get(r.data.from) as string,
      from_username: c.usernameOf.get(r.data.from) ?? r.data.fromUsername ?? null,
      message: r.data.message,
      sealed: 0 as const,
      timestamp: r.data.timestamp,
      read: bit(r.data.read),
      // Accepting it makes the text the chat's message (NotificationStore.respondRequest).
      msg_id: newTimeOrderedId(r.data.timestamp),
    };
    if (await c.store.addRequest(`${uid}/${id}`, row, c.now)) c.counts.requests++;
  }
}

/** userSettings/{uid}/privacy. */
export async function importPrivacy(c: RecordContext, uid: string, value: unknown): Promise<void> {
  const path = `userSettings/${uid}`;
  const user = c.users.get(uid);
  if (!user) return c.skip(path, `user ${uid} was not imported`);
  const p = sourcePrivacySchema.safeParse(isObject(value) ? value.privacy : undefined);
  if (!p.success) return c.skip(`${path}/privacy`, why(p.error));
  const s = {
    read_receipts: bit(p.data.readReceipts),
    last_seen: bit(p.data.lastSeen),
    require_request: bit(p.data.requireRequest),
  };
  if (await c.store.setPrivacy(uid, user, s, c.now)) c.counts.privacy++;
}

/** settings/{key}: only the help link is a setting of the original. */
export async function importSetting(c: RecordContext, key: string, value: unknown): Promise<void> {
  if (key !== 'helpLink') return c.skip(`settings/${key}`, 'not a setting of the original app: ignored');
  const link = helpLinkSchema.safeParse(value);
  if (!link.success) return c.skip('settings/helpLink', why(link.error));
  const r = await c.store.setHelpLink(link.data, c.now);
  if (r.set) c.counts.helpLink++;
  else if (r.kept !== null) c.skip('settings/helpLink', `Parley already has a help link (${r.kept}): kept`);
}
