/**
 * Group commit: writes that arrive while a transaction is running wait for it, then run
 * together in the next transaction, each inside its own savepoint. One commit (one WAL
 * append on SQLite, one fsync on PostgreSQL) then serves many messages, which is what
 * bounds the write rate; a job that fails is rolled back to its savepoint alone. Every
 * job still gets its answer only after the commit that made it durable.
 * How a send goes through it: docs/message-path.md; what it buys on each engine: docs/scaling.md.
 */
import type { ControlledTransaction, Kysely, Transaction } from 'kysely';
import { NEEDS_ASYNC, type Program, runProgram, runProgramSync, type SyncSqlite } from './program.ts';
import type { Database } from './schema.ts';

/**
 * Runs many jobs' inputs as one set of statements in one transaction of its own, committed
 * before it answers (PostgreSQL's sends, see send-batch.ts): for each input its value, its
 * refusal, or `alone`: run its program alone after the commit. Jobs sent back with the
 * same `alone` key run one after another, in order; different keys at once. A batcher
 * that throws has committed nothing.
 */
export type Batcher<I> = (inputs: I[]) => Promise<BatchOutcome[]>;
export type BatchOutcome = { value: unknown } | { error: unknown } | { alone: string };

interface Job<T, I = unknown> {
  run(tx: Transaction<Database>): Promise<T>;
  /** A program job (see program.ts): run synchronously on SQLite when possible. */
  program?: () => Program<T>;
  /** The job's input for the batcher. */
  batch?: I;
  /** Its chain (chainOf of its batch input), worked out once when it is queued. */
  chain?: string | null;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export interface GroupCommitOptions<I = never> {
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
  /** Jobs given a batch input run together through this, set-based (see Batcher). */
  batcher?: Batcher<I>;
  /**
   * The chain of a batch input (a send's chat): a transaction in flight holds its chains,
   * and jobs of a held chain wait for the next one, in order. Concurrent transactions then
   * never wait for each other's row locks on a chain's rows, nor commit its jobs out of order.
   */
  chainOf?: (input: I) => string;
}

export class GroupCommit<I = never> {
  private readonly db: Kysely<Database>;
  private readonly batcher: Batcher<I> | null;
  private readonly chainOf: ((input: I) => string) | null;
  /** Chains held by transactions in flight (see chainOf). */
  private readonly held = new Set<string>();
  private readonly maxBatch: number;
  private readonly concurrency: number;
  private readonly sqlite: SyncSqlite | null;
  private readonly onCommit: ((jobs: number) => void) | null;
  private queue: Job<unknown, I>[] = [];
  private active = 0;
  private scheduled = false;
  /** Transactions committed and jobs run (for tests and the bench). */
  readonly stats = { commits: 0, jobs: 0 };

  constructor(db: Kysely<Database>, opts: GroupCommitOptions<I> = {}) {
    this.db = db;
    this.batcher = opts.batcher ?? null;
    this.chainOf = opts.chainOf ?? null;
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

  /**
   * Runs a program (made anew for each attempt) in a grouped transaction; with `batch`,
   * the batcher may run it set-based together with others instead.
   */
  program<T>(make: () => Program<T>, batch?: I): Promise<T> {
    return this.enqueue({ run: (tx) => runProgram(tx, make()), program: make, batch });
  }

  private enqueue<T>(job: Pick<Job<T, I>, 'run' | 'program' | 'batch'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const chain = this.chainOf && job.batch !== undefined ? this.chainOf(job.batch) : null;
      this.queue.push({ ...job, chain, resolve, reject } as Job<unknown, I>);
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
    while (this.active < this.concurrency) {
      const taken = this.take();
      if (taken.jobs.length === 0) return;
      this.active += 1;
      void this.drain(taken);
    }
  }

  /** The next jobs to run together (up to maxBatch, none of a held chain), their chains now held. */
  private take(): { jobs: Job<unknown, I>[]; chains: string[] } {
    if (!this.chainOf) return { jobs: this.queue.splice(0, this.maxBatch), chains: [] };
    const jobs: Job<unknown, I>[] = [];
    const rest: Job<unknown, I>[] = [];
    const chains = new Set<string>();
    for (const job of this.queue) {
      const chain = job.chain ?? null;
      if (jobs.length >= this.maxBatch || (chain !== null && this.held.has(chain) && !chains.has(chain))) {
        rest.push(job);
        continue;
      }
      jobs.push(job);
      if (chain !== null && !chains.has(chain)) {
        chains.add(chain);
        this.held.add(chain);
      }
    }
    this.queue = rest;
    return { jobs, chains: [...chains] };
  }

  private async drain(first: { jobs: Job<unknown, I>[]; chains: string[] }): Promise<void> {
    let taken = first;
    try {
      while (taken.jobs.length > 0) {
        let jobs = taken.jobs;
        try {
          if (this.sqlite) jobs = await this.synchronously(this.sqlite, jobs);
          if (this.batcher) jobs = await this.batched(this.batcher, jobs);
          if (jobs.length === 1) await this.alone(jobs[0] as Job<unknown>);
          else if (jobs.length > 1) await this.together(jobs);
        } finally {
          for (const chain of taken.chains) this.held.delete(chain);
        }
        taken = this.take();
        // Chains released: other transactions may start on jobs that waited for them.
        if (this.queue.length > 0) this.fill();
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
  private async synchronously(sqlite: SyncSqlite, jobs: Job<unknown, I>[]): Promise<Job<unknown, I>[]> {
    const programs = jobs.filter((j) => j.program);
    if (programs.length === 0) return jobs;
    const rest = jobs.filter((j) => !j.program);
    const done: { job: Job<unknown, I>; value: unknown }[] = [];
    const refused = new Set<Job<unknown, I>>();
    /** Chains with a job sent to the asynchronous path: their later jobs follow it there, in order. */
    const deferred = new Set<string>();
    const exec = (sql: string) => sqlite.prepare(sql).run();
    try {
      await this.db.connection().execute(async () => {
        exec('begin immediate');
        try {
          for (const job of programs) {
            const chain = job.chain ?? null;
            if (chain !== null && deferred.has(chain)) {
              rest.push(job);
              continue;
            }
            exec('savepoint job');
            try {
              const value = runProgramSync(sqlite, (job.program as () => Program<unknown>)());
              if (value === NEEDS_ASYNC) {
                exec('rollback to job');
                rest.push(job);
                if (chain !== null) deferred.add(chain);
              } else done.push({ job, value });
              exec('release job');
            } catch (err) {
              exec('rollback to job');
              exec('release job');
              refused.add(job);
              job.reject(err);
            }
          }
          exec('commit');
        } catch (err) {
          try {
            exec('rollback');
          } catch {
            // No transaction left to roll back (the failure ended it): `err` is what matters.
          }
          throw err;
        }
      });
    } catch {
      // Nothing was committed: the jobs not refused are tried again, asynchronously, in order.
      return jobs.filter((j) => !refused.has(j));
    }
    this.committed(done.length);
    for (const d of done) d.job.resolve(d.value);
    return rest;
  }

  /**
   * Runs the jobs that carry a batch input through the batcher (one transaction), then
   * those it sent back to run alone: each `alone` chain in order, the chains at once.
   * Returns the jobs without a batch input. A batch that fails commits nothing: its jobs
   * run alone, one after another.
   */
  private async batched(batcher: Batcher<I>, jobs: Job<unknown, I>[]): Promise<Job<unknown, I>[]> {
    const batch = jobs.filter((j) => j.batch !== undefined);
    if (batch.length === 0) return jobs;
    let outcomes: BatchOutcome[];
    try {
      outcomes = await batcher(batch.map((j) => j.batch as I));
    } catch {
      outcomes = batch.map(() => ({ alone: '' }));
    }
    const chains = new Map<string, Job<unknown>[]>();
    let done = 0;
    batch.forEach((job, i) => {
      const outcome = outcomes[i] ?? { alone: '' };
      if ('alone' in outcome) {
        const chain = chains.get(outcome.alone);
        if (chain) chain.push(job);
        else chains.set(outcome.alone, [job]);
      } else if ('error' in outcome) job.reject(outcome.error);
      else {
        done += 1;
        job.resolve(outcome.value);
      }
    });
    if (done > 0) this.committed(done);
    await Promise.all(
      [...chains.values()].map(async (chain) => {
        for (const job of chain) await this.alone(job);
      }),
    );
    return jobs.filter((j) => j.batch === undefined);
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
      // Best effort on a connection that may be gone: the jobs are retried alone below.
      await trx
        ?.rollback()
        .execute()
        .catch(() => {});
      for (const job of open) await this.alone(job);
    }
  }
}
