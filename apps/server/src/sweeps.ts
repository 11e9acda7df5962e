import type { FastifyInstance } from 'fastify';
import type { Services } from './services.ts';
import { TwoFactorStore } from './storage/accounts/two-factor-store.ts';

/**
 * Expired sessions and sign-ins waiting for their second step are swept hourly (they are
 * refused on use anyway), and so are attachments
 * left over a day (attachments.ts: collect); expired attempt counts and send leases every
 * minute. The timers stop as soon as the app starts closing.
 */
export function registerSweeps(
  app: FastifyInstance,
  s: Pick<Services, 'store' | 'limits' | 'writePace' | 'attachments'>,
): void {
  const pending = new TwoFactorStore(s.store.db);
  const hourly = setInterval(
    () => {
      const now = Date.now();
      s.store.deleteExpiredSessions(now).catch((err: unknown) => app.log.warn({ err }, 'session sweep failed'));
      pending.deleteExpiredPending(now).catch((err: unknown) => app.log.warn({ err }, 'sign-in sweep failed'));
      s.attachments.collect(now).then(
        (n) => {
          if (n > 0) app.log.info({ attachments: n }, 'left-over attachments removed');
        },
        (err: unknown) => app.log.warn({ err }, 'attachment sweep failed'),
      );
    },
    60 * 60 * 1000,
  );
  hourly.unref();
  const counts = setInterval(() => {
    const now = Date.now();
    for (const sweep of [s.limits.sweep(now), s.writePace.sweep(now)]) {
      sweep.catch((err: unknown) => app.log.warn({ err }, 'limit sweep failed'));
    }
  }, 60_000);
  counts.unref();
  app.addHook('preClose', async () => {
    clearInterval(hourly);
    clearInterval(counts);
  });
}
