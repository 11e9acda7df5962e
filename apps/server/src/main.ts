/** Starts the server on PORT and shuts it down gracefully on SIGTERM/SIGINT. */
import { setTimeout as sleep } from 'node:timers/promises';
import { buildServer } from './app.ts';
import { loadConfig } from './config.ts';
import { describeUnknown, unknownVariables } from './config-check.ts';
import { helpText } from './config-docs.ts';
import { loadDotEnv } from './dot-env.ts';
import { waitForDependencies } from './starting.ts';

if (process.argv.includes('--help')) {
  process.stdout.write(helpText());
  process.exit(0);
}
// A .env in the working directory (variables already in the environment win).
loadDotEnv();
const config = loadConfig();
// PostgreSQL or Redis not there yet: alive, not ready, trying again (starting.ts).
// A stop meanwhile ends the wait at once.
const stopEarly = () => process.exit(0);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, stopEarly);
await waitForDependencies(config);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.off(signal, stopEarly);
const server = await buildServer(config);
const address = await server.app.listen({ port: config.port, host: config.host });
server.app.log.info(
  {
    address,
    url: config.publicUrl,
    dataDir: config.dataDir,
    engine: server.ctx.store.engine,
    mail: server.ctx.mailer.mode,
    admin: config.adminEmail,
  },
  'Parley is ready',
);
// A misspelled setting would otherwise go unseen (DATABSE_URL: running on SQLite).
for (const v of unknownVariables(process.env)) server.app.log.warn({ variable: v.name }, describeUnknown(v));

// Diagnostics: started with --expose-gc, SIGUSR2 collects garbage now (the benchmark
// measures memory per connection after it).
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) process.on('SIGUSR2', () => gc());

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      server.app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownDrainMs + 10_000);
    force.unref();
    // Not ready first (a balancer stops sending new clients), then stop accepting.
    server.drain();
    sleep(config.shutdownDrainMs)
      .then(() => server.close())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  });
}
