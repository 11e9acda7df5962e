/**
 * The server's Prometheus metrics (prom-client), served at /metrics when METRICS_TOKEN is set
 * (metrics/routes.ts). Counting is always on: each is a counter or a histogram bucket bumped
 * in memory, far below the cost of the work it counts. Besides the ones below, prom-client's
 * defaults: process CPU and memory, event-loop lag, GC, handles.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { VERSION } from '../version.ts';
import { SIGN_IN_FAILURE_REASONS } from './sign-in.ts';

export class Metrics {
  readonly registry = new Registry();

  private openSockets: () => number = () => 0;
  readonly messagesStored = new Counter({
    name: 'parley_messages_stored_total',
    help: 'Messages stored (acknowledged to their senders) by this process',
    registers: [this.registry],
  });
  readonly sendSeconds = new Histogram({
    name: 'parley_send_seconds',
    help: "A send's time on this process, from its frame read to its acknowledgement written",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly groupCommitJobs = new Histogram({
    name: 'parley_group_commit_jobs',
    help: 'Writes committed together in one transaction',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });
  readonly updatesPublished = new Counter({
    name: 'parley_updates_published_total',
    help: "Update-log entries published to their users' sockets",
    registers: [this.registry],
  });
  readonly updateLagSeconds = new Histogram({
    name: 'parley_update_lag_seconds',
    help: "An update-log entry's way from its commit on another process to this one, through Redis (clocks of different machines must agree)",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly updateCatchUp = new Counter({
    name: 'parley_update_catchup_entries_total',
    help: 'Update-log entries sockets read from the database because pub/sub lost or reordered them',
    registers: [this.registry],
  });
  readonly redisReconnects = new Counter({
    name: 'parley_redis_reconnects_total',
    help: 'Times a Redis connection came back after it was lost',
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'parley_rate_limited_total',
    help: 'Requests refused by a limit: http (429 answers), socket (frames), user (writes over the pace)',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });
  readonly httpResponses = new Counter({
    name: 'parley_http_responses_total',
    help: 'HTTP responses by status code',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  /**
   * `route` is the route's pattern (/api/me/sessions/:id), never the URL asked for: no id,
   * handle or query reaches a label, and the series stay as few as the routes ("static": the
   * web app's files; "unmatched": no route, e.g. a 404 or a page of the web app). See routes.ts.
   */
  readonly httpDuration = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status class, from the request read to its answer sent',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly signInFailures = new Counter({
    name: 'parley_sign_in_failures_total',
    help: `Sign-ins refused, by reason (${SIGN_IN_FAILURE_REASONS.join(', ')})`,
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    const sockets = () => this.openSockets();
    new Gauge({
      name: 'parley_sockets',
      help: 'Open WebSockets on this process',
      registers: [this.registry],
      collect() {
        this.set(sockets());
      },
    });
    // Which release runs where: 1, labelled with its version and Node's.
    new Gauge({
      name: 'parley_build_info',
      help: 'The release this process runs (1), by version and Node.js version',
      labelNames: ['version', 'node'] as const,
      registers: [this.registry],
    }).set({ version: VERSION, node: process.versions.node }, 1);
    collectDefaultMetrics({ register: this.registry });
    // Every reason from 0, so that a rate over them exists before the first refusal.
    for (const reason of SIGN_IN_FAILURE_REASONS) this.signInFailures.inc({ reason }, 0);
  }

  /** Where the open sockets are counted (the realtime endpoint, made after the stores). */
  countSockets(count: () => number): void {
    this.openSockets = count;
  }
}
