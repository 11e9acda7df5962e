/**
 * Whether this browser keeps the signed-in user's secrets on disk (docs/threat-model.md,
 * "A browser profile"). A session signed in with "Remember me" keeps the account's keys,
 * the waiting messages and the drafts in IndexedDB (sealed under a per-browser key), so a
 * reload or another tab reads them. One signed in without it keeps them in the tab's memory
 * only: a copy of the closed profile holds none of them, and a reload asks for the
 * password again. The choice is made at sign-in and kept here until sign-out.
 */
const MEMORY_ONLY = 'parley:memory-only';

let cached: boolean | null = null;

export function keepsAtRest(): boolean {
  if (cached === null) {
    try {
      cached = typeof localStorage === 'undefined' || localStorage.getItem(MEMORY_ONLY) !== '1';
    } catch {
      cached = true;
    }
  }
  return cached;
}

/** Sign-in: "Remember me" (true) keeps secrets at rest; sign-out forgets the choice (null). */
export function setKeepsAtRest(keep: boolean | null): void {
  cached = keep ?? true;
  try {
    if (keep === false) localStorage.setItem(MEMORY_ONLY, '1');
    else localStorage.removeItem(MEMORY_ONLY);
  } catch {
    // storage unavailable: this tab keeps the choice
  }
}
