import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.ts';

/**
 * Cross-site requests are refused: state-changing calls must come from our own origin
 * (`originAllowed` says which: security/origin.ts).
 */
export function registerOriginGuard(
  app: FastifyInstance,
  originAllowed: (origin: string, host: string | undefined) => boolean,
): void {
  app.addHook('onRequest', async (req) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, req.headers.host)) {
      throw new HttpError(403, 'bad_origin', 'Cross-origin requests are not allowed');
    }
  });
}
