/**
 * The library internals the server relies on (library-internals.ts), checked against the
 * real libraries: an upgrade of ws, pg or Kysely that moves one fails here by name.
 * PostgreSQL's checks run when TEST_DATABASE_URL is set.
 */
import { once } from 'node:events';
import { Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { onPostgres, pgClientSocket, wsSocket } from './library-internals.ts';
import { openDb } from './storage/db.ts';

const pgUrl = process.env.TEST_DATABASE_URL;

describe('library internals', () => {
  it("ws: a connection's socket, on both ends, corks and uncorks", async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    const port = (wss.address() as { port: number }).port;
    const accepted = once(wss, 'connection');
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    await once(client, 'open');
    const [server] = (await accepted) as [WebSocket];
    for (const ws of [server, client]) {
      const socket = wsSocket(ws);
      expect(socket).toBeInstanceOf(Socket);
      socket.cork();
      expect(socket.writableCorked).toBe(1);
      socket.uncork();
      expect(socket.writableCorked).toBe(0);
    }
    client.close();
    await new Promise((r) => wss.close(r));
  });

  it('Kysely: SQLite says it is not PostgreSQL, in a transaction too', async () => {
    const db = await openDb({ sqliteFile: ':memory:' });
    try {
      expect(onPostgres(db.kysely)).toBe(false);
      await db.kysely.transaction().execute(async (tx) => expect(onPostgres(tx)).toBe(false));
    } finally {
      await db.close();
    }
  });

  it('refuses, by name, what is not the thing it looks for', () => {
    expect(() => wsSocket({} as WebSocket)).toThrow(/ws's _socket is not a socket any more/);
    expect(() => pgClientSocket({ connection: {} } as pg.PoolClient)).toThrow(/pg's connection.stream/);
    expect(() => onPostgres({} as never)).toThrow(/getExecutor\(\) is gone/);
  });

  describe.skipIf(!pgUrl)('on PostgreSQL (TEST_DATABASE_URL)', () => {
    it("pg: a checked-out client's socket, pipelined or not", async () => {
      for (const pipeline of [false, true]) {
        const pool = new pg.Pool({ connectionString: pgUrl, max: 1, ...(pipeline ? { pipeline } : {}) });
        const client = await pool.connect();
        try {
          expect(pgClientSocket(client)).toBeInstanceOf(Socket);
        } finally {
          client.release();
          await pool.end();
        }
      }
    });

    it('Kysely: PostgreSQL says so, in a transaction too', async () => {
      const db = await openDb({ databaseUrl: pgUrl });
      try {
        expect(onPostgres(db.kysely)).toBe(true);
        await db.kysely.transaction().execute(async (tx) => expect(onPostgres(tx)).toBe(true));
      } finally {
        await db.close();
      }
    });
  });
});
