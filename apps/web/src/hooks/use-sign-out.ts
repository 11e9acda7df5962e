import { API } from '@app/protocol';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { notifyError } from '@/components/ui/toaster';
import { ApiError, apiJson } from '@/lib/api';
import { getSession, setUser } from '@/lib/session';

/**
 * Leaving a signed-in screen for a signed-out one (after sign-out or account deletion).
 *
 * The router applies navigations in a React transition, while a session change
 * re-renders at once. Clearing the user first would let the sign-in guard of the
 * current screen redirect to /signin?next=... before our navigation lands. So we
 * navigate first, marking the entry, and the destination clears the user.
 */
const SIGNED_OUT = 'signedOut';

export function useLeaveSignedOut(): (path: string) => void {
  const navigate = useNavigate();
  return (path) => navigate(path, { replace: true, state: { [SIGNED_OUT]: true } });
}

/** On a signed-out destination: forgets the user if we arrived by leaving. True until it has. */
export function useFinishSignOut(): boolean {
  const location = useLocation();
  const navigate = useNavigate();
  const arriving = (location.state as Record<string, unknown> | null)?.[SIGNED_OUT] === true;
  useEffect(() => {
    if (!arriving) return;
    if (getSession().user) setUser(null);
    // Drop the mark, so a later sign-in on this screen is handled as usual.
    navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: null });
  }, [arriving, navigate, location.pathname, location.search]);
  return arriving;
}

/** Signs out on the server, then goes to /signin signed out. */
export function useSignOut(): { signOut: () => Promise<void>; busy: boolean } {
  const leave = useLeaveSignedOut();
  const [busy, setBusy] = useState(false);
  const signOut = async () => {
    setBusy(true);
    try {
      await apiJson('POST', API.signOut, {});
    } catch (e) {
      // A session that has already ended is as good as signed out.
      if (!(e instanceof ApiError && e.status === 401)) {
        setBusy(false);
        notifyError('Logout Failed', e instanceof Error ? e.message : undefined);
        return;
      }
    }
    // This browser's copy of the keys, and the drafts, go with the session. Loaded here:
    // the sign-in and sign-up screens use this module, and need none of it (nor its zod).
    const { wipeLocalData } = await import('@/client/local-data');
    await wipeLocalData();
    leave('/signin');
  };
  return { signOut, busy };
}
