/**
 * The public settings (the administrator's help link, the upload site): fetched once per
 * page load, fetched again on every (re)connect of the chat socket, and changed live by
 * the administrator's `settings` event.
 */
import { API, isSafeHttpUrl, type PublicSettings, publicSettingsSchema } from '@app/protocol';
import { useSyncExternalStore } from 'react';
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

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Fetched ahead: a screen that needs the settings awaits them and shows its own error.
  if (!current) publicSettings().catch(() => {});
  return () => listeners.delete(listener);
}

/** When end-to-end encryption began on this deployment (see PublicSettings.e2eeSince); null until known or never. */
export function useE2eeSince(): number | null {
  return useSyncExternalStore(subscribe, () => current?.e2eeSince ?? null);
}

/**
 * The help link when one is set and safe to open, null when none, undefined while the
 * settings load.
 */
export function useHelpLink(): string | null | undefined {
  return useSyncExternalStore(subscribe, () => {
    if (!current) return undefined;
    return current.helpLink && isSafeHttpUrl(current.helpLink) ? current.helpLink : null;
  });
}
