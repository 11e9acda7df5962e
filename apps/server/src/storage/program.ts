/**
 * The message path's statements and programs: each busy statement
 * written once for both engines, and a write written once as a generator of the statements
 * it runs, run synchronously on SQLite or awaited on PostgreSQL.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { onPostgres } from '../library-internals.ts';
import type { Database } from './schema.ts';

export type Tx = Transaction<Database> | Kysely<Database>;

// ---- hand-written statements for the message path ---------------------------------------
//
// The busiest writes skip the query builder: each statement is written once with `?`
// placeholders (numbered for PostgreSQL) and run as a compiled query in the caller's
// transaction. On a send this halves the server's CPU per message.

export interface Stmt {
  sqlite: string;
  pg: string;
}

/** A statement for both engines; `pgOnly` is a clause only PostgreSQL runs (a row lock). */
export function stmt(text: string, pgOnly = ''): Stmt {
  let n = 0;
  return { sqlite: text, pg: text.replace(/\?/g, () => `$${++n}`) + pgOnly };
}

export async function run<R>(tx: Tx, s: Stmt, params: readonly unknown[]): Promise<R[]> {
  const r = await tx.executeQuery<R>(CompiledQuery.raw(onPostgres(tx) ? s.pg : s.sqlite, [...params]));
  return r.rows;
}

// ---- programs ----------------------------------------------------------------------------
//
// The message path is written once as a generator that yields the statements it runs and
// is handed their rows. The same program runs synchronously on SQLite (straight on the
// driver, many of them in one transaction, see group-commit.ts) and awaited statement by
// statement in a PostgreSQL transaction. A step that needs the query builder (the rare
// contact-request cases) is a `call`: a synchronous run gives up there and the program is
// run again, alone, asynchronously.

export type Step = { stmt: Stmt; params: readonly unknown[] } | { call: (tx: Tx) => Promise<unknown> };
export type Program<T> = Generator<Step, T, unknown>;

/** Runs one statement in a program: `const rows = yield* query<Row>(STMT, [...])`. */
export function* query<R>(s: Stmt, params: readonly unknown[]): Generator<Step, R[], unknown> {
  return (yield { stmt: s, params }) as R[];
}

/** Runs an async step in a program (only ever awaited, see above). */
export function* call<R>(f: (tx: Tx) => Promise<R>): Generator<Step, R, unknown> {
  return (yield { call: f }) as R;
}

/** Runs a program in `tx`, awaiting each step. */
export async function runProgram<T>(tx: Tx, program: Program<T>): Promise<T> {
  let r = program.next();
  while (!r.done) {
    const step = r.value;
    r = program.next('call' in step ? await step.call(tx) : await run(tx, step.stmt, step.params));
  }
  return r.value;
}

/** A synchronous SQLite connection: prepared statements by text (kept, see db.ts). */
export interface SyncSqlite {
  prepare(sql: string): {
    readonly reader: boolean;
    all(...params: unknown[]): unknown[];
    run(...params: unknown[]): unknown;
  };
}

/** Returned by runProgramSync for a program that reached a `call`. */
export const NEEDS_ASYNC: unique symbol = Symbol('needs async');

/** Runs a program synchronously on SQLite; NEEDS_ASYNC if it reached a `call` step. */
export function runProgramSync<T>(db: SyncSqlite, program: Program<T>): T | typeof NEEDS_ASYNC {
  let r = program.next();
  while (!r.done) {
    const step = r.value;
    if ('call' in step) {
      program.return(undefined as T);
      return NEEDS_ASYNC;
    }
    const st = db.prepare(step.stmt.sqlite);
    if (st.reader) r = program.next(st.all(...step.params));
    else {
      st.run(...step.params);
      r = program.next([]);
    }
  }
  return r.value;
}

/**
 * Runs a program that needs no database on its way (checks on rows read already);
 * NEEDS_ASYNC if it reached a step.
 */
export function runWithoutSteps<T>(program: Program<T>): T | typeof NEEDS_ASYNC {
  const r = program.next();
  if (r.done) return r.value;
  program.return(undefined as T);
  return NEEDS_ASYNC;
}
