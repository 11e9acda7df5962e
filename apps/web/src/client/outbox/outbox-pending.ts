/** A message the outbox (outbox.ts) holds: its stored entry, and what this page knows of it. */
import type { MessageContent } from '@app/e2ee';
import { chatIdOf } from '@app/protocol';
import type { UiMessage } from '../conversations/conversation';
import type { OutboxEntry } from './outbox-store';

/** A message id: a UUID (crypto.randomUUID needs a secure context, so fall back to random bytes). */
export function newMessageId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export interface Pending {
  entry: OutboxEntry;
  /** What it says, in memory only (the stored entry holds it sealed). */
  content: MessageContent;
  /** Key refusals in a row (rekey_required, conflict). */
  keyRetries: number;
  /** What the screens show (rebuilt when the entry changes). */
  message: UiMessage;
  /** Written to storage (or storage failed): may be sent. */
  stored: boolean;
  inflight: boolean;
  /** Transient failures since it was queued (or retried), this page. */
  attempts: number;
  /** The backoff before the next attempt. */
  timer: ReturnType<typeof setTimeout> | null;
  /** Resolves once it outlives a reload: stored here, or done with (see Outbox.add). */
  safe: Promise<void>;
  markSafe: () => void;
  /** How much of its file is uploaded (0 to 1), this page. */
  progress: number;
  /** Stops its upload (Outbox.cancel). */
  readonly abort: AbortController;
  /** Settles once the composer's draft at rest no longer holds the text (see HandOver); null once it has. */
  handedOver: Promise<unknown> | null;
}

/** What the screens show of an entry: pending, failed with its reason, or uploading (`progress`, 0 to 1). */
export function shownMessage(userId: string, entry: OutboxEntry, content: MessageContent, progress: number): UiMessage {
  const m: UiMessage = {
    chatId: chatIdOf(userId, entry.to),
    id: entry.msgId,
    senderId: userId,
    recipientId: entry.to,
    ct: null,
    rev: 0,
    legacyText: null,
    local: content,
    timestamp: entry.createdAt,
    status: 'sent',
    edited: false,
    deleted: false,
    deliveredAt: null,
    readAt: null,
    pending: true,
  };
  if (entry.failed) m.failed = entry.failed.reason;
  if (entry.upload && !entry.upload.id) m.uploading = progress;
  return m;
}
