/**
 * Variables in the environment that look like Parley's but are not (a misspelled
 * `DATABSE_URL` would otherwise go unseen, and the server run on SQLite): a name of 8 or more
 * characters one or two edits from a setting of the table (6 or 7 characters: one edit), or
 * with a prefix only Parley's settings have. The server
 * logs them at start; `npm run admin -- config check` lists them.
 */
import { CONFIG_OPTIONS } from './config-options.ts';

/** Starts that only Parley's settings (and its near-misses) have among common variables. */
const OURS = /^(PARLEY_|ATTACHMENT_|RATE_LIMIT_|S3_|SMTP_|REDIS_|DATABASE_|SQLITE_|VAPID_|PUSH_|WS_|KDF_|SESSION_)/;

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`, up to `max` + 1. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const up = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

export interface UnknownVariable {
  name: string;
  /** The setting it is probably meant to be, or null. */
  meant: string | null;
}

/** The environment's variables that look like settings of the table but are not. */
export function unknownVariables(env: NodeJS.ProcessEnv): UnknownVariable[] {
  const known = new Set(CONFIG_OPTIONS.map((o) => o.name));
  const out: UnknownVariable[] = [];
  for (const name of Object.keys(env).sort()) {
    if (known.has(name) || env[name] === undefined) continue;
    // Short names are too near each other to guess at (HOME is one edit from HOST).
    let meant: string | null = null;
    let best = name.length < 6 ? 0 : name.length < 8 ? 2 : 3;
    for (const k of best > 0 ? known : []) {
      const d = distance(name, k, 2);
      if (d < best) {
        best = d;
        meant = k;
      }
    }
    if (meant !== null || OURS.test(name)) out.push({ name, meant });
  }
  return out;
}

/** What to say of one (a log line, a CLI line). */
export function describeUnknown(v: UnknownVariable): string {
  return v.meant
    ? `${v.name} is not a Parley setting: did you mean ${v.meant}? It is ignored.`
    : `${v.name} is not a Parley setting; it is ignored.`;
}
