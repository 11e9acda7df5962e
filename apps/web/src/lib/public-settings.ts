/**
 * The public settings (the administrator's help link, the upload site): fetched once per
 * page load, fetched again on every (re)connect of the chat socket, and changed live by
 * the administrator's `settings` event.
 */
import { API, type PublicSettings, publicSettingsSchema } from '@app/protocol';
import { api } from './api';
import { logged } from './log';

let current: PublicSettings | null = null;
let inFlight: Promise<PublicSettings> | null = null;
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of [...listeners]) l();
}

function fetchSettings(): Promise<PublicSettings> {
  const p = api(publicSettingsSchema, 'GET', API.publicSettings).then(
    (s) => {
      if (inFlight === p) inFlight = null;
      current = s;
      emit();
      return s;
    },
    (e: unknown) => {
      if (inFlight === p) inFlight = null;
      throw e;
    },
  );
  inFlight = p;
  return p;
}

/** The settings, fetched once per page load (shared by every caller). */
export function publicSettings(): Promise<PublicSettings> {
  if (current) return Promise.resolve(current);
  return inFlight ?? fetchSettings();
}

/** Fetches anew (after a reconnect: a change may have been missed). */
export function refreshPublicSettings(): void {
  if (!inFlight) fetchSettings().catch(logged('settings', 'refresh'));
}

/** The administrator changed the help link (live event). */
export function setHelpLink(helpLink: string | null): void {
  if (!current) {
    refreshPublicSettings();
    return;
  }
  current = { ...current, helpLink };
  emit();
}

/** The settings once fetched, null until then. */
export function currentPublicSettings(): PublicSettings | null {
  return current;
}

/**
 * Calls `listener` on every change of the settings (React's view: hooks/use-public-settings.ts),
 * fetching them ahead: a screen that needs them awaits them and shows its own error.
 */
export function subscribePublicSettings(listener: () => void): () => void {
  listeners.add(listener);
  if (!current) publicSettings().catch(() => {});
  return () => listeners.delete(listener);
}
