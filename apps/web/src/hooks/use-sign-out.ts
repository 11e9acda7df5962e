import { API } from '@app/protocol';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { notifyError } from '@/components/ui/toaster';
import { ApiError, api } from '@/lib/api';
import { setUser } from '@/lib/session';

/** Signs out on the server, forgets the user and goes to /signin. */
export function useSignOut(): { signOut: () => Promise<void>; busy: boolean } {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const signOut = async () => {
    setBusy(true);
    try {
      await api('POST', API.signOut, {});
    } catch (e) {
      // A session that has already ended is as good as signed out.
      if (!(e instanceof ApiError && e.status === 401)) {
        setBusy(false);
        notifyError('Logout Failed', e instanceof Error ? e.message : undefined);
        return;
      }
    }
    setUser(null);
    navigate('/signin', { replace: true });
  };
  return { signOut, busy };
}
