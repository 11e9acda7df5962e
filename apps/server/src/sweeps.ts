import type { FastifyInstance } from 'fastify';
import type { WritePace } from './realtime/write-pace.ts';
import type { LimitStore } from './security/limits.ts';
import type { AccountStore } from './storage/accounts/account-store.ts';

/**
 * Expired sessions are swept hourly (they are refused on use anyway), expired attempt
 * counts and send leases every minute; the timers stop as soon as the app starts closing.
 */
export function registerSweeps(
  app: FastifyInstance,
  store: AccountStore,
  limits: LimitStore,
  writePace: WritePace,
): void {
  const sessions = setInterval(
    () => {
      store.deleteExpiredSessions(Date.now()).catch((err: unknown) => app.log.warn({ err }, 'session sweep failed'));
    },
    60 * 60 * 1000,
  );
  sessions.unref();
  const counts = setInterval(() => {
    const now = Date.now();
    for (const sweep of [limits.sweep(now), writePace.sweep(now)]) {
      sweep.catch((err: unknown) => app.log.warn({ err }, 'limit sweep failed'));
    }
  }, 60_000);
  counts.unref();
  app.addHook('preClose', async () => {
    clearInterval(sessions);
    clearInterval(counts);
  });
}
