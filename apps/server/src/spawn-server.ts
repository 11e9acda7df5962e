/**
 * The server as a child process: started, waited for, stopped. For the tools that run it
 * beside themselves (the cluster script, the benchmark, the web performance check) and
 * the tests that need a real process (kill -9, browser tests with a server of their own).
 * Imported as `@app/server/spawn`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** The server's entry point. */
export const SERVER_MAIN = path.join(import.meta.dirname, 'main.ts');
const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface SpawnOptions {
  env: NodeJS.ProcessEnv;
  /** Another checkout's root, to run its server instead (the bench compares two). */
  root?: string;
  /** Node flags before the entry point. */
  nodeArgs?: readonly string[];
  /**
   * Ready once GET `${healthz}/healthz` answers 200. Without it: once the server logs
   * 'Parley is ready' with its address (LOG_LEVEL info or lower; PORT may be 0).
   */
  healthz?: string;
  /** The child's output: kept (and shown when it fails to start), or the parent's own. */
  output?: 'keep' | 'inherit';
  timeoutMs?: number;
  /**
   * Called with the child as soon as it is spawned, before it is ready: for a caller that
   * must be able to stop it while it starts (the cluster, when a sibling fails or it is
   * told to stop), since spawnServer hands the child back only once it is ready.
   */
  onSpawn?: (child: ChildProcess) => void;
}

export interface SpawnedServer {
  child: ChildProcess;
  /** Its base URL (http://host:port). */
  url: string;
  /** What it printed (when kept). */
  output(): string;
  /** SIGTERM (a graceful shutdown), SIGKILL after 10 s; resolves once it is gone. */
  stop(): Promise<void>;
}

/** SIGTERM (a graceful shutdown), SIGKILL if it takes over `graceMs`; resolves once the process is gone. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const address = srv.address();
  srv.close();
  await once(srv, 'close');
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function healthy(url: string): Promise<boolean> {
  // Bounded: something else on the port that accepts and never answers must not hang this.
  return fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.ok,
    () => false,
  );
}

/** The address of the 'Parley is ready' log line, or null. */
function readyAddress(line: string): string | null {
  try {
    const e = JSON.parse(line) as { msg?: string; address?: string };
    return e.msg === 'Parley is ready' && e.address ? e.address : null;
  } catch {
    return null; // not a log line
  }
}

/** Starts the server and resolves once it is ready; rejects (after stopping it) if it does not get there. */
export async function spawnServer(o: SpawnOptions): Promise<SpawnedServer> {
  const keep = o.output !== 'inherit';
  const root = o.root ?? ROOT;
  const main = o.root ? path.join(o.root, path.relative(ROOT, SERVER_MAIN)) : SERVER_MAIN;
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), main], {
    cwd: root,
    env: o.env,
    stdio: ['ignore', keep || !o.healthz ? 'pipe' : 'inherit', keep ? 'pipe' : 'inherit'],
  });
  o.onSpawn?.(child);
  let output = '';
  if (keep) {
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
  }
  const fromLog = new Promise<string>((resolve) => {
    if (o.healthz || !child.stdout) return;
    createInterface({ input: child.stdout }).on('line', (line) => {
      const address = readyAddress(line);
      if (address) resolve(address);
    });
  });
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  const server: SpawnedServer = { child, url: o.healthz ?? '', output: () => output, stop: () => stopProcess(child) };
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited (${child.exitCode ?? child.signalCode}):\n${output}`);
    }
    if (o.healthz) {
      if (await healthy(o.healthz)) return server;
      await pause(100);
      continue;
    }
    server.url = await Promise.race([fromLog, pause(100)]);
    if (server.url) return server;
  }
  await server.stop();
  throw new Error(`server did not start:\n${output}`);
}

function pause(ms: number): Promise<string> {
  return new Promise((r) => setTimeout(() => r(''), ms));
}
