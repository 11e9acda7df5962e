/**
 * What a socket's Connection and its request handlers need from the rest of the server:
 * the services it runs on (services.ts: the stores, the hub, presence and the write
 * pace), and what realtime adds to them. Realtime builds it once for all sockets.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services.ts';
import type { LoggedUpdate } from '../storage/messages/chat-store.ts';

/** The services every socket uses, named once: the type and the pick below follow this list. */
const SOCKET_SERVICES = [
  'chat',
  'social',
  'pins',
  'notices',
  'store',
  'hub',
  'presence',
  'metrics',
  'writePace',
  'attachments',
] as const satisfies readonly (keyof Services)[];

export type SocketServices = Pick<Services, (typeof SOCKET_SERVICES)[number]>;

/** What Realtime is built on: the sockets' services, and the sessions its upgrades resolve. */
export type RealtimeServices = SocketServices & Pick<Services, 'sessions'>;

/** The sockets' services out of all of them (only these are kept, for every socket to share). */
export function socketServices(s: SocketServices): SocketServices {
  return Object.fromEntries(SOCKET_SERVICES.map((key) => [key, s[key]])) as SocketServices;
}

export interface RealtimeDeps extends SocketServices {
  log: FastifyBaseLogger;
  /** Pushes committed update-log entries to their users' sockets. */
  publish(updates: LoggedUpdate[]): void;
  /** Frames a socket may send: per second on average, and in a burst. */
  frameRate: { perSecond: number; burst: number };
  /** A socket that has not said hello by then is closed. */
  helloTimeoutMs: number;
  /** Sockets whose session ends within this arm a timer for it (the heartbeat's period). */
  expiryLookaheadMs: number;
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
