/**
 * The server's test utilities, for the tests of other packages (web client suites, e2e):
 * `import { startEngineServer } from '@app/server/test'`, never a path into apps/server.
 */

export { type OutboxMail, readOutbox } from '../mail/outbox.ts';
export * from './accounts.ts';
export * from './harness.ts';
export { messageRow } from './legacy-plaintext.ts';
export * from './sealing.ts';
export * from './uploads.ts';
export { WsTestClient } from './ws-client.ts';
