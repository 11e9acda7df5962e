/**
 * Which origin may call the API and open the WebSocket. With PUBLIC_URL set, only its
 * origin (and ALLOWED_ORIGINS): a Host header proves nothing (a rebound DNS name sends
 * its own), so it is not consulted. Without it (local use), the default URL's origin or
 * the request's own host.
 */
import type { Config } from '../config.ts';

export type OriginCheck = (origin: string, host: string | undefined) => boolean;

export function originCheck(config: Pick<Config, 'publicUrl' | 'publicUrlFromEnv' | 'allowedOrigins'>): OriginCheck {
  const allowed = new Set([new URL(config.publicUrl).origin, ...config.allowedOrigins]);
  if (config.publicUrlFromEnv) return (origin) => allowed.has(origin);
  return (origin, host) =>
    allowed.has(origin) || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`));
}
