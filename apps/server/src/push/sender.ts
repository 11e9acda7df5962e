/**
 * Web Push for messages while no tab is open (RFC 8030 delivery, RFC 8291 encryption,
 * RFC 8292 VAPID, all done by the `web-push` package). After a message is stored, its
 * recipient's browsers are pushed "New message from @bob" when the recipient has no socket
 * open on any process (and "@bob reacted to your message" for a reaction to one of theirs);
 * a tab that is open tells its user itself. The payload names the
 * sender and the chat, never the text (the server has only ciphertext), and nothing at all
 * of a locked chat; a muted chat pushes nothing. A subscription the push service says is
 * gone (404, 410) is removed.
 */
import { createHash } from 'node:crypto';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { isMuted, type PushPayload } from '@app/protocol';
import type { FastifyBaseLogger } from 'fastify';
import webpush from 'web-push';
import type { PushStore, PushSubscriptionRow } from '../storage/accounts/push-store.ts';
import type { LoggedUpdate } from '../storage/messages/chat-store.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface PushSenderOptions {
  store: PushStore;
  /** Whether the user has a socket open on any process. */
  isOnline(userId: string): Promise<boolean>;
  vapid: VapidKeys;
  /** The contact push services may use (RFC 8292): a mailto: or https: URL. */
  subject: string;
  log: FastifyBaseLogger;
  /** Further CAs (PEM) the push services' certificates may chain to. */
  ca?: string | null;
  /** How long a push service keeps a push for a browser that is off (seconds). */
  ttlSeconds?: number;
}

/** New VAPID keys (P-256), base64url. */
export function generateVapidKeys(): VapidKeys {
  return webpush.generateVAPIDKeys();
}

/**
 * A push's Topic (RFC 8030 5.4): one per chat, so a browser that was off gets the chat's
 * newest push rather than one per message. Hashed: the push service learns no ids.
 */
function topicOf(chatId: string): string {
  return createHash('sha256').update(chatId).digest('base64url').slice(0, 32);
}

export class PushSender {
  private readonly o: PushSenderOptions;
  private readonly agent: Agent | undefined;
  /** Pushes in flight (tests and shutdown wait for them). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(opts: PushSenderOptions) {
    this.o = opts;
    this.agent = opts.ca ? new Agent({ ca: [...rootCertificates, opts.ca], keepAlive: true }) : undefined;
  }

  /**
   * Committed log entries: each new message's recipient entry may call for a push, and each
   * new reaction to a message of the one it goes to (both carry that user's summary).
   */
  published(updates: readonly LoggedUpdate[]): void {
    for (const { userId, update } of updates) {
      // A new message carries the summary it made (a receipt or an edit does not).
      const pushed =
        update.kind === 'message' && update.chat && update.message.recipientId === userId
          ? { t: 'message' as const, chat: update.chat, from: update.message.senderId }
          : update.kind === 'reaction' && update.chat && update.reaction.userId !== userId
            ? { t: 'reaction' as const, chat: update.chat, from: update.reaction.userId }
            : null;
      // A muted chat pushes nothing (its activity waits for the user to look).
      if (!pushed || isMuted(pushed.chat, Date.now())) continue;
      const { chat } = pushed;
      const payload: PushPayload = {
        t: pushed.t,
        peerId: pushed.from,
        from: chat.locked || !chat.peer ? null : `@${chat.peer.username}`,
      };
      const job = this.notify(userId, payload, topicOf(chat.chatId)).finally(() => this.inFlight.delete(job));
      this.inFlight.add(job);
    }
  }

  /** Waits for the pushes in flight. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async notify(userId: string, payload: PushPayload, topic: string): Promise<void> {
    try {
      // Most users have no subscription: that is known without asking presence (Redis, with
      // several processes) for every message.
      if (!(await this.o.store.hasSubscriptions(userId))) return;
      if (await this.o.isOnline(userId)) return;
      const subs = await this.o.store.forUser(userId);
      await Promise.all(subs.map((s) => this.sendOne(s, JSON.stringify(payload), topic)));
    } catch (err) {
      this.o.log.warn({ err, userId }, 'push failed');
    }
  }

  private async sendOne(s: PushSubscriptionRow, payload: string, topic: string): Promise<void> {
    try {
      await webpush.sendNotification({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, payload, {
        vapidDetails: { subject: this.o.subject, ...this.o.vapid },
        TTL: this.o.ttlSeconds ?? 24 * 3600,
        urgency: 'high',
        topic,
        timeout: 10_000,
        ...(this.agent ? { agent: this.agent } : {}),
      });
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404 || status === 410) {
        await this.o.store.remove(s.endpoint);
        this.o.log.info({ userId: s.user_id, status }, 'push subscription gone: removed');
      } else this.o.log.warn({ userId: s.user_id, status, err: (err as Error).message }, 'push not delivered');
    }
  }
}
