/**
 * What a socket's Connection and its request handlers need from the rest of the server:
 * the stores, the hub, presence and the limits. Realtime builds it once for all sockets.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';
import type { AccountStore } from '../storage/accounts/account-store.ts';
import type { PinStore } from '../storage/accounts/pin-store.ts';
import type { ChatStore, LoggedUpdate } from '../storage/messages/chat-store.ts';
import type { NotificationStore } from '../storage/social/notification-store.ts';
import type { SocialStore } from '../storage/social/social-store.ts';
import type { Hub } from './hub.ts';
import type { PresenceTracker } from './presence.ts';
import type { WritePace } from './write-pace.ts';

export interface RealtimeDeps {
  chat: ChatStore;
  social: SocialStore;
  pins: PinStore;
  notices: NotificationStore;
  store: AccountStore;
  hub: Hub;
  presence: PresenceTracker;
  log: FastifyBaseLogger;
  metrics: Metrics;
  /** Pushes committed update-log entries to their users' sockets. */
  publish(updates: LoggedUpdate[]): void;
  /** Frames a socket may send: per second on average, and in a burst. */
  frameRate: { perSecond: number; burst: number };
  /** A socket that has not said hello by then is closed. */
  helloTimeoutMs: number;
  /** Sockets whose session ends within this arm a timer for it (the heartbeat's period). */
  expiryLookaheadMs: number;
  /** What a user may write (messages, receipts, flags, typing) across all their sockets and processes. */
  writePace: WritePace;
  /** Until when a socket's session lasts now (slid forward), or null when it has ended. */
  renewSession(tokenHash: string, now: number): Promise<number | null>;
}

export interface SocketAuth {
  userId: string;
  /** The session's token hash: every write checks the session is still live. */
  tokenHash: string;
  /** When the session ends (ms). */
  expiresAt: number;
  /** The upgrade request's id (X-Request-Id from the proxy, or made here): in the socket's log lines. */
  reqId: string;
}
