/**
 * What the bench reads of processes from /proc: resident memory and CPU time, of the
 * target's processes and of the services it uses (PostgreSQL's server processes, Redis).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The processes' resident memory after a garbage collection (SIGUSR2, see the server's main.ts). */
export async function settledRss(pids: number[]): Promise<number> {
  for (const pid of pids) process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 500));
  return pids.reduce((sum, pid) => sum + rssOf(pid), 0);
}

export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** CPU time a process has used (ms), from /proc; 0 once it is gone. */
export function cpuOf(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  const fields = stat.split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return (ticks / 100) * 1000;
}

/** The pids of every process whose command name is `comm` (e.g. "postgres", "redis-server"). */
export function pidsNamed(comm: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * CPU time (ms) used so far by a group of processes: the given pids and every process
 * named in `comms` that exists now (PostgreSQL starts a process per connection). Read at
 * the start and end of a phase, the difference is the group's CPU during it (a process
 * that ended in between is missed, which the bench's own connections do not do).
 */
export class CpuMeter {
  private readonly pids: () => number[];
  private readonly start: Map<number, number>;
  constructor(pids: () => number[]) {
    this.pids = pids;
    this.start = new Map(this.pids().map((pid) => [pid, cpuOf(pid)]));
  }
  /** CPU ms since the meter was made. */
  used(): number {
    let ms = 0;
    for (const pid of this.pids()) ms += cpuOf(pid) - (this.start.get(pid) ?? 0);
    return ms;
  }
}
