/** React's view of the public settings (lib/public-settings.ts). */
import { isSafeHttpUrl } from '@app/protocol';
import { useSyncExternalStore } from 'react';
import { currentPublicSettings, subscribePublicSettings } from '@/lib/public-settings';

/** When end-to-end encryption began on this deployment (see PublicSettings.e2eeSince); null until known or never. */
export function useE2eeSince(): number | null {
  return useSyncExternalStore(subscribePublicSettings, () => currentPublicSettings()?.e2eeSince ?? null);
}

/**
 * The help link when one is set and safe to open, null when none, undefined while the
 * settings load.
 */
export function useHelpLink(): string | null | undefined {
  return useSyncExternalStore(subscribePublicSettings, () => {
    const current = currentPublicSettings();
    if (!current) return undefined;
    return current.helpLink && isSafeHttpUrl(current.helpLink) ? current.helpLink : null;
  });
}

/** The largest file one may attach (bytes), once the settings are known (else the default, 100 MB). */
export function useAttachmentMaxBytes(): number {
  return useSyncExternalStore(
    subscribePublicSettings,
    () => currentPublicSettings()?.attachmentMaxBytes ?? 100 * 1024 * 1024,
  );
}
