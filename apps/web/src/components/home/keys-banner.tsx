import type { Me } from '@app/protocol';
import { LockKeyhole } from 'lucide-react';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { upgradeLegacy } from '@/client/keys/account-keys';
import { type KeyStatus, keyStatus, unlockHistory, unlockThisBrowser } from '@/client/keys/locked-history';
import { Banner } from '@/components/banner';
import { useSession } from '@/hooks/use-session';
import type { Ask } from './keys-unlock-dialog';
import { UnlockButton } from './unlock-button';
import type { UnlockField } from './unlock-form';

// The dialog (and the dialog library) only for a browser that lacks keys, which is rare.
const KeysUnlockDialog = lazy(() => import('./keys-unlock-dialog'));

const CURRENT: UnlockField = {
  id: 'unlock-current-password',
  label: 'Current Password',
  autoComplete: 'current-password',
};

const THIS_BROWSER: Ask = {
  banner: 'Enter your password to read your messages on this browser.',
  title: 'Unlock your messages',
  description: 'Your messages are end-to-end encrypted with keys your password protects.',
  fields: [{ ...CURRENT, label: 'Password' }],
  unlock: (user, [password]) => unlockThisBrowser(user, password ?? ''),
};

const ASKS: Record<Exclude<KeyStatus, 'ok'>, Ask> = {
  locked: {
    banner:
      'Messages from before your password reset are locked. Unlock them with your old password, your recovery key, or by signing in on a browser you used before.',
    title: 'Unlock earlier messages',
    description:
      'Enter the password you had before the reset (or your recovery key) to unlock those messages, and your current password to keep them unlocked on all your browsers.',
    fields: [{ id: 'unlock-old-password', label: 'Old Password or Recovery Key', autoComplete: 'off' }, CURRENT],
    unlock: (user, [old, current]) => unlockHistory(user, old ?? '', current ?? ''),
  },
  nokeys: THIS_BROWSER,
  legacy: {
    banner: 'Parley now encrypts your messages end to end. Enter your password once to set it up.',
    title: 'Set up end-to-end encryption',
    action: 'Set up',
    success: 'Encryption Set Up',
    description:
      'Your password makes the keys that encrypt your messages; after this, it never leaves your browser again.',
    fields: [{ ...CURRENT, label: 'Password' }],
    unlock: (user, [password]) => upgradeLegacy(user, password ?? ''),
  },
  behind: {
    ...THIS_BROWSER,
    banner: 'Earlier messages were unlocked on another browser. Enter your password to read them here too.',
  },
};

/** Keys this browser lacks, asked again each time the chat list shows. */
function useKeyStatus(user: Me | null): [KeyStatus, () => void] {
  const [status, setStatus] = useState<KeyStatus>('ok');
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new `round` asks again (after an unlock)
  useEffect(() => {
    if (!user) return;
    let live = true;
    keyStatus(user).then(
      (s) => live && setStatus(s),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [user, round]);
  return [status, useCallback(() => setRound((r) => r + 1), [])];
}

/**
 * Tells the user which messages this browser cannot read and why (history locked by a
 * password reset, or keys this browser lacks), and unlocks them with a password.
 */
export function KeysBanner() {
  const { user } = useSession();
  const [status, recheck] = useKeyStatus(user);
  if (!user || status === 'ok') return null;
  const ask = ASKS[status];
  return (
    <Banner
      icon={LockKeyhole}
      action={
        <Suspense fallback={<UnlockButton label={ask.action ?? 'Unlock'} disabled />}>
          <KeysUnlockDialog key={status} ask={ask} user={user} done={recheck} />
        </Suspense>
      }
    >
      {ask.banner}
    </Banner>
  );
}
