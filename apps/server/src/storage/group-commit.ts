/**
 * Group commit: writes that arrive while a transaction is running wait for it, then run
 * together in the next transaction, each inside its own savepoint. One commit (one WAL
 * append on SQLite, one fsync on PostgreSQL) then serves many messages, which is what
 * bounds the write rate; a job that fails is rolled back to its savepoint alone. Every
 * job still gets its answer only after the commit that made it durable.
 */
import type { ControlledTransaction, Kysely, Transaction } from 'kysely';
import { NEEDS_ASYNC, type Program, runProgram, runProgramSync, type SyncSqlite } from './chat-rows.ts';
import type { Database } from './schema.ts';

interface Job<T> {
  run(tx: Transaction<Database>): Promise<T>;
  /** A program job (see chat-rows.ts): run synchronously on SQLite when possible. */
  program?: () => Program<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export interface GroupCommitOptions {
  /** Most jobs in one transaction. */
  maxBatch?: number;
  /**
   * Transactions at once. SQLite has one writer: 1. PostgreSQL commits in parallel on
   * its pool; there, jobs run one a transaction (each locks its users in id order, so
   * concurrent transactions cannot deadlock) and PostgreSQL groups the commits.
   */
  concurrency?: number;
  /**
   * The SQLite connection under `db`: program jobs then run synchronously on it, a group
   * of them in one transaction with no promise per statement.
   */
  sqlite?: SyncSqlite;
  /** Told the jobs of each commit (the metrics' group-commit sizes). */
  onCommit?: (jobs: number) => void;
}

export class GroupCommit {
  private readonly db: Kysely<Database>;
  private readonly maxBatch: number;
  private readonly concurrency: number;
  private readonly sqlite: SyncSqlite | null;
  private readonly onCommit: ((jobs: number) => void) | null;
  private queue: Job<unknown>[] = [];
  private active = 0;
  private scheduled = false;
  /** Transactions committed and jobs run (for tests and the bench). */
  readonly stats = { commits: 0, jobs: 0 };

  constructor(db: Kysely<Database>, opts: GroupCommitOptions = {}) {
    this.db = db;
    this.maxBatch = opts.maxBatch ?? 256;
    this.concurrency = opts.concurrency ?? 1;
    this.sqlite = opts.sqlite ?? null;
    this.onCommit = opts.onCommit ?? null;
  }

  private committed(jobs: number): void {
    this.stats.commits += 1;
    this.stats.jobs += jobs;
    this.onCommit?.(jobs);
  }

  run<T>(run: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.enqueue({ run });
  }

  /** Runs a program (made anew for each attempt) in a grouped transaction. */
  program<T>(make: () => Program<T>): Promise<T> {
    return this.enqueue({ run: (tx) => runProgram(tx, make()), program: make });
  }

  private enqueue<T>(job: Pick<Job<T>, 'run' | 'program'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ ...job, resolve, reject } as Job<unknown>);
      // A transaction on SQLite runs without yielding to I/O: start it after this turn
      // of the event loop, so that the frames already read from every socket join it.
      if (!this.scheduled && this.active < this.concurrency) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.fill();
        });
      }
    });
  }

  private fill(): void {
    while (this.active < this.concurrency && this.queue.length > 0) {
      this.active += 1;
      void this.drain();
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        let jobs = this.queue.splice(0, this.maxBatch);
        if (this.sqlite) jobs = await this.synchronously(this.sqlite, jobs);
        if (jobs.length === 1) await this.alone(jobs[0] as Job<unknown>);
        else if (jobs.length > 1) await this.together(jobs);
      }
    } finally {
      this.active -= 1;
    }
  }

  /**
   * Runs the program jobs synchronously in one SQLite transaction, each in a savepoint,
   * holding Kysely's connection so that no other query runs on it meanwhile. Returns the
   * jobs left for the asynchronous path: those that are not programs or reached a `call`.
   */
  private async synchronously(sqlite: SyncSqlite, jobs: Job<unknown>[]): Promise<Job<unknown>[]> {
    const programs = jobs.filter((j) => j.program);
    if (programs.length === 0) return jobs;
    const rest = jobs.filter((j) => !j.program);
    const done: { job: Job<unknown>; value: unknown }[] = [];
    const exec = (sql: string) => sqlite.prepare(sql).run();
    try {
      await this.db.connection().execute(async () => {
        exec('begin immediate');
        try {
          for (const job of programs) {
            exec('savepoint job');
            try {
              const value = runProgramSync(sqlite, (job.program as () => Program<unknown>)());
              if (value === NEEDS_ASYNC) {
                exec('rollback to job');
                rest.push(job);
              } else done.push({ job, value });
              exec('release job');
            } catch (err) {
              exec('rollback to job');
              exec('release job');
              job.reject(err);
            }
          }
          exec('commit');
        } catch (err) {
          try {
            exec('rollback');
          } catch {}
          throw err;
        }
      });
    } catch {
      // Nothing was committed: the jobs that had run are tried again, asynchronously.
      return [...rest, ...done.map((d) => d.job)];
    }
    this.committed(done.length);
    for (const d of done) d.job.resolve(d.value);
    return rest;
  }

  private async alone(job: Job<unknown>): Promise<void> {
    try {
      job.resolve(await this.db.transaction().execute((tx) => job.run(tx)));
      this.committed(1);
    } catch (err) {
      job.reject(err);
    }
  }

  private async together(jobs: Job<unknown>[]): Promise<void> {
    let trx: ControlledTransaction<Database> | null = null;
    const done: { job: Job<unknown>; value: unknown }[] = [];
    /** Jobs with no answer yet. */
    const open = new Set(jobs);
    try {
      trx = await this.db.startTransaction().execute();
      for (const job of jobs) {
        const sp = await trx.savepoint('job').execute();
        try {
          const value = await job.run(sp);
          await sp.releaseSavepoint('job').execute();
          done.push({ job, value });
        } catch (err) {
          await sp.rollbackToSavepoint('job').execute();
          open.delete(job);
          job.reject(err);
        }
      }
      await trx.commit().execute();
      this.committed(done.length);
      for (const d of done) d.job.resolve(d.value);
    } catch {
      // The batch itself failed (a lost connection, a deadlock with another process):
      // nothing of it was committed; every job still open is tried alone.
      await trx
        ?.rollback()
        .execute()
        .catch(() => {});
      for (const job of open) await this.alone(job);
    }
  }
}
