/**
 * `npm run cluster`: several server processes on one PostgreSQL and one Redis, behind
 * nginx configured with deploy/nginx/parley.conf (its upstream and listen lines rewritten
 * for the ports used here). Needs DATABASE_URL and REDIS_URL, and nginx on PATH (or NGINX).
 *
 *   DATABASE_URL=postgres://… REDIS_URL=redis://… npm run cluster -- --processes 3
 *
 * PORT (default 8080) is nginx's; the processes listen on 3001, 3002, … as in parley.conf
 * and compose.yaml (or on free ports with --free-ports). When everything answers, one JSON line is printed:
 * {"msg":"cluster ready","url":…,"processes":[{"pid":…,"url":…}]}. SIGTERM/SIGINT stop
 * it all. The browser tests of scale-out run this script.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnServer } from '@app/server/spawn';
import { CLUSTER_FIRST_PORT, CLUSTER_PROXY_PORT, clusterProcessEnv } from '../apps/server/src/cluster-env.ts';
import { SERVER_NODE_FLAGS } from '../apps/server/src/node-flags.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const count = Number(flag('--processes') ?? 2);
const freePorts = args.includes('--free-ports');
const env = process.env;
if (!env.DATABASE_URL || !env.REDIS_URL) {
  console.error('npm run cluster needs DATABASE_URL (PostgreSQL) and REDIS_URL: the processes share them.');
  process.exit(2);
}
if (!Number.isInteger(count) || count < 1 || count > 16) {
  console.error('--processes takes 1 to 16');
  process.exit(2);
}

function findNginx(): string {
  if (env.NGINX) return env.NGINX;
  for (const p of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'])
    if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  console.error('nginx not found (apt-get install nginx-light, or set NGINX=/path/to/nginx)');
  process.exit(2);
}

const proxyPort = freePorts ? await freePort() : Number(env.PORT ?? CLUSTER_PROXY_PORT);
const ports: number[] = [];
for (let i = 0; i < count; i++) ports.push(freePorts ? await freePort() : CLUSTER_FIRST_PORT + i);
const publicUrl = env.PUBLIC_URL ?? `http://127.0.0.1:${proxyPort}`;

// The example config, with this cluster's upstreams and port.
const example = readFileSync(path.join(root, 'deploy/nginx/parley.conf'), 'utf8');
const upstreamLines = ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`).join('\n');
const site = example
  .replace(/^(\s*server 127\.0\.0\.1:\d+[^\n]*\n)+/m, `${upstreamLines}\n`)
  .replace(/^(\s*)listen \d+;/m, `$1listen 127.0.0.1:${proxyPort};`);
if (!site.includes(`127.0.0.1:${ports[0]}`) || !site.includes(`listen 127.0.0.1:${proxyPort}`)) {
  throw new Error('deploy/nginx/parley.conf no longer has the upstream/listen lines this script rewrites');
}
const dir = mkdtempSync(path.join(os.tmpdir(), 'parley-cluster-'));
for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, d));
writeFileSync(path.join(dir, 'parley.conf'), site);
writeFileSync(
  path.join(dir, 'nginx.conf'),
  `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/parley.conf;
}
`,
);

// Every process started, from the moment it is spawned (not once it is ready): a server
// still starting when a sibling fails, or when this script is told to stop, is stopped too
// instead of being left running after this script exits.
const children: ChildProcess[] = [];
let stopping: Promise<never> | null = null;
function stop(code = 0): Promise<never> {
  stopping ??= (async () => {
    const exits = children
      .filter((c) => c.exitCode === null && c.signalCode === null)
      .map((c) => {
        const exited = once(c, 'exit');
        c.kill('SIGTERM');
        const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
        return exited.finally(() => clearTimeout(t));
      });
    await Promise.allSettled(exits);
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  })();
  return stopping;
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

const procs = await Promise.all(
  ports.map(async (port) => {
    const url = `http://127.0.0.1:${port}`;
    const server = await spawnServer({
      nodeArgs: SERVER_NODE_FLAGS,
      healthz: url,
      output: 'inherit',
      timeoutMs: 60_000,
      onSpawn: (child) => children.push(child),
      env: { ...env, ...clusterProcessEnv(port, publicUrl, env.ALLOWED_ORIGINS) },
    });
    return { child: server.child, port, url };
  }),
).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  return stop(1);
});
// Told to stop while the servers started: no nginx (it would outlive this script).
if (stopping) await stopping;
const nginx = spawn(findNginx(), ['-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
children.push(nginx);
for (const c of children) {
  c.on('exit', (code, signal) => {
    // A process killed on purpose (a test's kill -9) leaves the others running.
    if (!stopping && c === nginx) {
      console.error(`nginx exited (${code ?? signal}); stopping the cluster`);
      void stop(1);
    }
  });
}

async function healthy(url: string): Promise<boolean> {
  // Bounded: something else on the port that accepts and never answers must not hang this.
  return fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.ok,
    () => false,
  );
}
const deadline = Date.now() + 60_000;
for (const url of [`http://127.0.0.1:${proxyPort}`]) {
  while (!(await healthy(url))) {
    if (Date.now() > deadline) {
      console.error(`${url} did not become healthy`);
      await stop(1);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
console.log(
  JSON.stringify({
    msg: 'cluster ready',
    url: `http://127.0.0.1:${proxyPort}`,
    processes: procs.map((p) => ({ pid: p.child.pid, url: p.url })),
  }),
);
