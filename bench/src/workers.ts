/**
 * The bench's load generators: worker processes (worker.ts) asked the same command at
 * once, and the clients dealt to them.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { peerIndex } from './seed.ts';
import type { ClientSpec, Command, Reply } from './worker.ts';

export class Workers {
  private readonly procs: ChildProcess[] = [];
  constructor(n: number) {
    for (let i = 0; i < n; i++)
      this.procs.push(fork(path.join(import.meta.dirname, 'worker.ts'), { stdio: 'inherit' }));
  }
  private ask(p: ChildProcess, cmd: Command): Promise<Reply> {
    return new Promise((resolve) => {
      p.once('message', (r: Reply) => resolve(r));
      p.send(cmd);
    });
  }
  all(make: (i: number) => Command): Promise<Reply[]> {
    return Promise.all(this.procs.map((p, i) => this.ask(p, make(i))));
  }
  get size(): number {
    return this.procs.length;
  }
}

/**
 * Clients in pairs (see peerIndex), dealt to the workers in turn, each connected to the
 * target's processes in turn (with two, the two of a pair are on different processes).
 */
export function deal(users: { id: string; token: string }[], workers: number, urls: string[]): ClientSpec[][] {
  const shares: ClientSpec[][] = Array.from({ length: workers }, () => []);
  users.forEach((u, i) => {
    const peer = users[peerIndex(i, users.length)];
    const url = urls[i % urls.length] as string;
    shares[i % workers]?.push({ userId: u.id, token: u.token, peer: peer?.id ?? u.id, url });
  });
  return shares;
}
