/**
 * The three places the server reaches past a library's public API, each behind one
 * function that checks what it finds, so an upgrade that moves it fails loudly here (and
 * in library-internals.test.ts, which runs each against the real library) instead of
 * silently somewhere on the message path:
 *
 * - ws keeps a connection's net.Socket as `_socket`: frames written in one turn are corked
 *   together (realtime/conn-socket.ts);
 * - pg keeps a client's socket as `connection.stream`: a batch's pipelined statements leave
 *   in one write (storage/messages/send-batch.ts);
 * - Kysely's executor (`getExecutor()`, documented as internal) names the engine of a
 *   transaction: a statement is written once for both engines (storage/program.ts).
 */
import type { Socket } from 'node:net';
import { type Kysely, PostgresAdapter, type Transaction } from 'kysely';
import type pg from 'pg';
import type { WebSocket } from 'ws';

function corkable(found: unknown, where: string): Socket {
  const s = found as Partial<Socket> | undefined;
  if (typeof s?.cork !== 'function' || typeof s.uncork !== 'function') {
    throw new Error(`${where} is not a socket any more: see apps/server/src/library-internals.ts`);
  }
  return s as Socket;
}

/** The net.Socket under a ws connection. */
export function wsSocket(ws: WebSocket): Socket {
  return corkable((ws as unknown as { _socket?: unknown })._socket, "ws's _socket");
}

/** The socket of a checked-out pg client. */
export function pgClientSocket(client: pg.PoolClient): Socket {
  return corkable(
    (client as unknown as { connection?: { stream?: unknown } }).connection?.stream,
    "pg's connection.stream",
  );
}

/** Whether a Kysely instance or transaction runs on PostgreSQL (else SQLite). */
export function onPostgres<DB>(db: Kysely<DB> | Transaction<DB>): boolean {
  const executor = (db as unknown as { getExecutor?: () => { adapter?: unknown } }).getExecutor?.();
  if (!executor?.adapter) throw new Error("Kysely's getExecutor() is gone: see apps/server/src/library-internals.ts");
  return executor.adapter instanceof PostgresAdapter;
}
