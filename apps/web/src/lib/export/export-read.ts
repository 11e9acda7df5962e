/**
 * Reads the server's NDJSON export (protocol export.ts) into the archive's model: each line
 * parsed with the protocol's schema, each message opened in this tab with the same code the
 * screens use (MessageCrypto), so what the archive says is what the screens show. Nothing
 * opened here goes back to the server.
 */

import type { AttachmentRef } from '@app/e2ee';
import {
  type ChatMessage,
  type ChatSummary,
  DELETED_ACCOUNT,
  type ExportLine,
  exportLineSchema,
  type Me,
  type NotificationItem,
  type Privacy,
  type PublicUser,
} from '@app/protocol';
import { refOfRequest, type SealedRef, type Shown, shownText } from '@/client/crypto/message-crypto';

/** One message as the archive keeps it. */
export interface ArchiveMessage {
  id: string;
  senderId: string;
  /** '@handle' of the sender ('Deleted account' when gone). */
  from: string;
  fromMe: boolean;
  /** What the bubble shows: the text, or a notice in its place (`notice` true). */
  text: string;
  notice: boolean;
  /** Sent before end-to-end encryption (stored readable on the server). */
  beforeEncryption: boolean;
  timestamp: number;
  sentAt: string;
  status: ChatMessage['status'];
  edited: boolean;
  deleted: boolean;
  deliveredAt: string | null;
  readAt: string | null;
  /** A photo or file it carries: opened into the zip at `file` (export-zip.ts). */
  attachment?: ArchiveAttachment;
}

export interface ArchiveAttachment {
  name: string;
  type: string;
  size: number;
  kind: AttachmentRef['kind'];
  /** Its path in the zip. */
  file: string;
  /** How to open it (not written to the archive: the key stays in this tab). */
  ref: AttachmentRef;
}

export interface ArchiveChat {
  chatId: string;
  peerId: string;
  peer: PublicUser | null;
  archived: boolean;
  locked: boolean;
  unreadCount: number;
  lastActivity: string;
  /** Locked and not opened with the PIN in this session: the texts were not sent. */
  withheld: boolean;
  messages: ArchiveMessage[];
}

export interface ArchiveNotification {
  id: string;
  type: NotificationItem['type'];
  at: string;
  read: boolean;
  /** Who sent a request (its first message is `text`). */
  from: string | null;
  text: string;
  imageUrl: string | null;
  videoUrl: string | null;
}

export interface Archive {
  exportedAt: number;
  user: Me;
  privacy: Privacy;
  hasPin: boolean;
  contacts: { userId: string; user: PublicUser | null; since: string }[];
  notifications: ArchiveNotification[];
  chats: ArchiveChat[];
}

/** Opens one sealed text (the tab's MessageCrypto.read). */
export type Opener = (r: SealedRef) => Promise<Shown>;

export interface ReadProgress {
  messages: number;
  total: number;
}

const iso = (t: number) => new Date(t).toISOString();
export const WITHHELD_TEXT = '🔒 Locked chat: enter your PIN, then download again to include it';

/** The lines of an NDJSON byte stream, as they arrive. */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += decoder.decode(value, { stream: true });
    let nl = rest.indexOf('\n');
    while (nl >= 0) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      if (line.trim() !== '') yield line;
      nl = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest.trim() !== '') yield rest;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

function handleOf(u: PublicUser | null): string {
  return u ? `@${u.username}` : DELETED_ACCOUNT;
}

async function messageOf(m: ChatMessage, me: Me, peer: PublicUser | null, open: Opener): Promise<ArchiveMessage> {
  const shown = await open(m);
  const fromMe = m.senderId === me.id;
  const text = shown.kind === 'withheld' ? WITHHELD_TEXT : shownText(shown);
  return {
    id: m.id,
    senderId: m.senderId,
    from: fromMe ? `@${me.username}` : handleOf(peer),
    fromMe,
    text,
    notice: shown.kind !== 'text',
    beforeEncryption: m.ct === null && m.legacyText !== null && !m.deleted,
    timestamp: m.timestamp,
    sentAt: iso(m.timestamp),
    status: m.status,
    edited: m.edited,
    deleted: m.deleted,
    deliveredAt: m.deliveredAt === null ? null : iso(m.deliveredAt),
    readAt: m.readAt === null ? null : iso(m.readAt),
    ...attachmentOf(m, shown),
  };
}

/** A message's attachment, as the archive names it: `attachments/<message id>-<its name>`. */
function attachmentOf(m: ChatMessage, shown: Shown): { attachment?: ArchiveAttachment } {
  const ref = shown.kind === 'text' && !m.deleted ? shown.attachments?.[0] : undefined;
  if (!ref) return {};
  const safe = (ref.name || 'file').replace(/[^\p{L}\p{N}._ -]/gu, '_').slice(-100);
  return {
    attachment: {
      name: ref.name,
      type: ref.type,
      size: ref.size,
      kind: ref.kind,
      file: `attachments/${m.id}-${safe}`,
      ref,
    },
  };
}

async function notificationOf(item: NotificationItem, me: Me, open: Opener): Promise<ArchiveNotification> {
  const base = { id: item.id, type: item.type, at: iso(item.timestamp), read: item.read };
  if (item.type === 'request') {
    const ref: SealedRef = refOfRequest(item, item.fromId, me.id);
    const shown = await open(ref);
    return { ...base, from: `@${item.fromUsername}`, text: shownText(shown), imageUrl: null, videoUrl: null };
  }
  if (item.type === 'admin') {
    return { ...base, from: null, text: item.message, imageUrl: item.imageUrl, videoUrl: item.videoUrl };
  }
  return { ...base, from: null, text: item.message, imageUrl: null, videoUrl: null };
}

function chatOf(c: ChatSummary, withheld: boolean): ArchiveChat {
  return {
    chatId: c.chatId,
    peerId: c.peerId,
    peer: c.peer,
    archived: c.archived,
    locked: c.locked,
    unreadCount: c.unreadCount,
    lastActivity: iso(c.timestamp),
    withheld,
    messages: [],
  };
}

/**
 * The archive from the export's lines. Throws if a line does not parse, the stream is
 * someone else's, or it ends before its `end` line (cut short).
 */
export async function readArchive(
  lines: AsyncIterable<string>,
  me: Me,
  open: Opener,
  progress: (p: ReadProgress) => void = () => {},
): Promise<Archive> {
  let archive: Archive | null = null;
  let total = 0;
  let done = 0;
  let current: ArchiveChat | null = null;
  let ended = false;
  for await (const raw of lines) {
    const parsed = exportLineSchema.safeParse(parseJson(raw));
    if (!parsed.success) throw new Error('The server sent data this page cannot read.');
    const line: ExportLine = parsed.data;
    if (line.kind === 'account') {
      if (line.user.id !== me.id) throw new Error('The export is of another account.');
      total = line.messages;
      archive = {
        exportedAt: line.exportedAt,
        user: line.user,
        privacy: line.privacy,
        hasPin: line.hasPin,
        contacts: [],
        notifications: [],
        chats: [],
      };
      progress({ messages: 0, total });
      continue;
    }
    if (!archive) throw new Error('The export does not start with the account.');
    switch (line.kind) {
      case 'contact':
        archive.contacts.push({ userId: line.userId, user: line.user, since: iso(line.since) });
        break;
      case 'notification':
        archive.notifications.push(await notificationOf(line.item, archive.user, open));
        break;
      case 'chat':
        current = chatOf(line.chat, line.withheld);
        archive.chats.push(current);
        break;
      case 'messages': {
        const chat: ArchiveChat | null = current;
        if (!chat || chat.chatId !== line.chatId) throw new Error('Messages outside their chat.');
        const user = archive.user;
        chat.messages.push(...(await Promise.all(line.messages.map((m) => messageOf(m, user, chat.peer, open)))));
        done += line.messages.length;
        progress({ messages: done, total: Math.max(total, done) });
        break;
      }
      case 'end':
        ended = true;
        break;
    }
  }
  if (!archive || !ended) throw new Error('The download was cut short. Please try again.');
  return archive;
}
