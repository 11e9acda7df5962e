/**
 * The server the browser tests run against: a fresh DATA_DIR (SQLite + outbox) each
 * run, the built web app, and rate limits loose enough for many sign-ups from 127.0.0.1.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { E2E_DATA_DIR, E2E_PORT } from './env.ts';

rmSync(E2E_DATA_DIR, { recursive: true, force: true });
mkdirSync(E2E_DATA_DIR, { recursive: true });
Object.assign(process.env, {
  PORT: String(E2E_PORT),
  HOST: '127.0.0.1',
  DATA_DIR: E2E_DATA_DIR,
  PUBLIC_URL: `http://127.0.0.1:${E2E_PORT}`,
  ADMIN_EMAIL: 'admin@example.com',
  LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
  RATE_LIMIT_SIGNUP_PER_IP: '10000',
  RATE_LIMIT_SIGNIN_PER_IP: '10000',
  RATE_LIMIT_MAIL_PER_IP: '10000',
  RATE_LIMIT_API_PER_MINUTE: '100000',
  // Several tests sign in repeatedly from 127.0.0.1 (the sign-in limits have their own tests).
  RATE_LIMIT_SIGNIN_PER_ACCOUNT: '10000',
  RATE_LIMIT_SIGNIN_PER_ACCOUNT_IP: '10000',
  // The legacy spec turns accounts into ones from before end-to-end encryption as it runs.
  LEGACY_PASSWORDS: 'on',
});
delete process.env.DATABASE_URL;
delete process.env.SMTP_URL;
await import('../apps/server/src/main.ts');
