export { buildServer, type Server } from './app.ts';
export { hashSecret } from './auth/passwords.ts';
export { hashToken, newToken } from './auth/tokens.ts';
export { type Config, loadConfig } from './config.ts';
export { metricSample, scrapeMetrics } from './metrics/scrape.ts';
export { SERVER_NODE_FLAGS } from './node-flags.ts';
export { AccountStore } from './storage/accounts/account-store.ts';
export { migrate, openDb } from './storage/db.ts';
