/**
 * What one message costs, at a fixed offered rate below saturation (the latency phase):
 * CPU-µs of the server processes, of PostgreSQL and of Redis per message delivered, and,
 * on PostgreSQL, WAL bytes and rows written per message stored. Per message, not per
 * second, so that one process and several can be compared at the same rate: a cost that
 * stays flat as processes are added is what lets Parley scale out across machines.
 *
 * WAL is read from the server's write position (pg_current_wal_lsn: exact, at once). Rows
 * come from the cumulative statistics (pg_stat_user_tables), which backends report up to a
 * second late; the bench divides them by the `messages` table's own inserts read in the
 * same snapshot, so both lag alike.
 */
import pg from 'pg';

export interface Cost {
  /** Messages delivered in the phase (the CPU figures' denominator). */
  delivered: number;
  serverUs: number;
  pgUs: number;
  redisUs: number;
  /** PostgreSQL only (null on SQLite): WAL bytes per message stored, rows written per message inserted. */
  walBytes: number | null;
  rows: number | null;
  /** Rows written per message inserted, by table (the largest first). */
  rowsByTable: [string, number][];
}

interface Snapshot {
  lsn: string;
  /** Per table: inserts + updates + deletes so far. */
  tuples: Map<string, number>;
}

/** Rows written by table, and the WAL position, in `schema`. */
async function snapshot(client: pg.Client, schema: string): Promise<Snapshot> {
  const lsn = await client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
  const rows = await client.query<{ relname: string; n: string }>(
    'select relname, n_tup_ins + n_tup_upd + n_tup_del as n from pg_stat_user_tables where schemaname = $1',
    [schema],
  );
  return {
    lsn: lsn.rows[0]?.lsn ?? '0/0',
    tuples: new Map(rows.rows.map((r) => [r.relname, Number(r.n)])),
  };
}

/** The PostgreSQL half of a phase's cost: WAL and rows, from before the phase to after it. */
export class PgWriteMeter {
  private readonly client: pg.Client;
  private readonly schema: string;
  private readonly before: Snapshot;
  private constructor(client: pg.Client, schema: string, before: Snapshot) {
    this.client = client;
    this.schema = schema;
    this.before = before;
  }

  static async start(url: string, schema: string): Promise<PgWriteMeter> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // This connection's own statistics are not the server's: keep them out of the snapshot.
    await client.query('select pg_stat_clear_snapshot()');
    return new PgWriteMeter(client, schema, await snapshot(client, schema));
  }

  /** WAL bytes and rows written since start, per message stored (`stored`: the server's counter). */
  async stop(stored: number): Promise<Pick<Cost, 'walBytes' | 'rows' | 'rowsByTable'>> {
    // Backends report their counts at most once a second: wait for the phase's last ones.
    await new Promise((r) => setTimeout(r, 1_500));
    await this.client.query('select pg_stat_clear_snapshot()');
    const after = await snapshot(this.client, this.schema);
    const wal = await this.client.query<{ bytes: string }>('select pg_wal_lsn_diff($1, $2) as bytes', [
      after.lsn,
      this.before.lsn,
    ]);
    await this.client.end();
    const written = (table: string) => (after.tuples.get(table) ?? 0) - (this.before.tuples.get(table) ?? 0);
    const inserted = written('messages');
    const byTable = [...after.tuples.keys()]
      .map((t): [string, number] => [t, inserted > 0 ? written(t) / inserted : Number.NaN])
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]);
    const total = byTable.reduce((n, [, v]) => n + v, 0);
    return {
      walBytes: stored > 0 ? Number(wal.rows[0]?.bytes ?? 0) / stored : Number.NaN,
      rows: inserted > 0 ? total : Number.NaN,
      rowsByTable: byTable,
    };
  }
}

/** CPU-µs per message from cores kept busy over `phaseMs` while `delivered` messages arrived. */
export function cpuPerMessage(
  busy: { target: number; pg: number; redis: number },
  phaseMs: number,
  delivered: number,
): Pick<Cost, 'serverUs' | 'pgUs' | 'redisUs'> {
  const us = (cores: number) => (delivered > 0 ? (cores * phaseMs * 1000) / delivered : Number.NaN);
  return { serverUs: us(busy.target), pgUs: us(busy.pg), redisUs: us(busy.redis) };
}
