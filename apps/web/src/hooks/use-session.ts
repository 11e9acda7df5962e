import { useSyncExternalStore } from 'react';
import { getSession, type SessionState, subscribeSession } from '@/lib/session';

/** The signed-in user (lib/session.ts), re-rendered on every change. */
export function useSession(): SessionState {
  return useSyncExternalStore(subscribeSession, getSession, getSession);
}
