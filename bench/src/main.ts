/**
 * `npm run bench`: the server's HTTP request path against a bare Fastify baseline in the
 * same run, on loopback. Today it measures the session check (cookie → HMAC → SQLite
 * lookup) that every signed-in request pays; the WebSocket message benchmark joins it
 * with real-time messaging. Figures are ratios to the baseline: these machines are shared.
 *
 *   npm run bench            (about 20 s)
 *   npm run bench -- --quick (about 5 s)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildServer, loadConfig } from '@app/server';
import Fastify from 'fastify';

const quick = process.argv.includes('--quick');
const DURATION_MS = quick ? 2_000 : 8_000;
const CONCURRENCY = 32;

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function get(url: string, cookie?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: cookie ? { cookie } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

async function load(url: string, cookie?: string): Promise<{ rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  const end = performance.now() + DURATION_MS;
  let errors = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const status = await get(url, cookie);
        if (status !== 200) errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  if (errors) throw new Error(`${errors} failed requests against ${url}`);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: (latencies.length / DURATION_MS) * 1000, p50: at(0.5), p99: at(0.99) };
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  PORT: '0',
  WEB_DIST: '',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_API_PER_MINUTE: '100000000',
});
const server = await buildServer(config, { logger: false });
await server.app.listen({ port: 0, host: '127.0.0.1' });
const serverUrl = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;

const signup = await fetch(`${serverUrl}/api/auth/signup`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    name: 'Bench User',
    phone: '5551234567',
    age: 30,
    username: 'bench',
    email: 'bench@example.com',
    password: 'bench-password',
    agree: true,
  }),
});
const cookie = signup.headers.getSetCookie()[0]?.split(';')[0];
if (!cookie) throw new Error('no session cookie');

const bare = Fastify({ logger: false });
bare.get('/api/session', async () => ({ user: null }));
await bare.listen({ port: 0, host: '127.0.0.1' });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

console.log(
  `Parley bench${quick ? ' (quick)' : ''}: ${os.cpus().length}× ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
);
console.log(`${CONCURRENCY} concurrent keep-alive HTTP clients, ${DURATION_MS / 1000} s each, loopback\n`);

const baseline = await load(`${bareUrl}/api/session`);
const session = await load(`${serverUrl}/api/session`, cookie);
const anonymous = await load(`${serverUrl}/api/session`);

const row = (name: string, r: { rps: number; p50: number; p99: number }) =>
  `${name.padEnd(44)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  ${(r.rps / baseline.rps).toFixed(2)}× baseline`;
console.log(row('baseline: bare Fastify, same route', baseline));
console.log(row('GET /api/session, signed in (SQLite lookup)', session));
console.log(row('GET /api/session, no cookie', anonymous));

agent.destroy();
await bare.close();
await server.close();
rmSync(dataDir, { recursive: true, force: true });
