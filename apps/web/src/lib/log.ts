/**
 * The web client's log: what went wrong where nothing is shown (an IndexedDB write that
 * failed, a background request refused), kept in memory, the newest 200 entries, with no
 * message text, key or password in them (callers pass a scope, what failed and the error).
 * `localStorage['parley:debug'] = '1'` also prints each entry to the console; the entries
 * are readable at any time from the console as `parleyLog()`.
 */
export interface LogEntry {
  at: number;
  scope: string;
  what: string;
  error: string;
}

const MAX = 200;
const entries: LogEntry[] = [];

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function printing(): boolean {
  try {
    return globalThis.localStorage?.getItem('parley:debug') === '1';
  } catch {
    return false; // storage refused (a sandboxed frame): nothing to print to anyway
  }
}

/** Records a failure nobody was shown: `scope` is the part of the client, `what` the step. */
export function logFailure(scope: string, what: string, error: unknown): void {
  const entry = { at: Date.now(), scope, what, error: describe(error) };
  entries.push(entry);
  if (entries.length > MAX) entries.splice(0, entries.length - MAX);
  if (printing()) console.warn(`[parley] ${scope}: ${what}: ${entry.error}`);
}

/** `.catch(logged(scope, what))`: the failure is recorded and the chain goes on. */
export function logged(scope: string, what: string): (error: unknown) => void {
  return (error) => logFailure(scope, what, error);
}

/** The entries, oldest first (a copy). */
export function logEntries(): LogEntry[] {
  return entries.slice();
}

if (typeof window !== 'undefined') (window as unknown as { parleyLog?: () => LogEntry[] }).parleyLog = logEntries;
