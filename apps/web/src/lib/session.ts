/**
 * The signed-in user, kept outside React (React reads it through hooks/use-session.ts).
 * `loading` until the first answer from the server; then `ready` with a user or null.
 */
import { API, type Me } from '@app/protocol';
import { ApiError, apiJson, parseAnswer } from './api';

export interface SessionState {
  status: 'loading' | 'ready';
  user: Me | null;
}

let state: SessionState = { status: 'loading', user: null };
const listeners = new Set<() => void>();

/**
 * Set while this browser is signed in, so that its next start loads the schemas the session
 * answer is checked with alongside the request rather than after the answer (they take the
 * longest script task of a signed-in start); a visitor's first screens still load no zod.
 */
const SIGNED_IN_HINT = 'parley:signed-in';

/** What the hint says, once this tab has written it (a profile update does not write again). */
let remembered: boolean | null = null;

function rememberSignedIn(signedIn: boolean): void {
  if (remembered === signedIn) return;
  remembered = signedIn;
  try {
    if (signedIn) localStorage.setItem(SIGNED_IN_HINT, '1');
    else localStorage.removeItem(SIGNED_IN_HINT);
  } catch {
    // storage unavailable: only the head start is lost
  }
}

function signedInBefore(): boolean {
  try {
    return localStorage.getItem(SIGNED_IN_HINT) === '1';
  } catch {
    return false;
  }
}

function emit(next: SessionState): void {
  if (next.status === 'ready') rememberSignedIn(next.user !== null);
  state = next;
  for (const l of listeners) l();
}

export function getSession(): SessionState {
  return state;
}

export function setUser(user: Me | null): void {
  emit({ status: 'ready', user });
}

let inflight: Promise<SessionState> | null = null;

/** `{ "user": null }`: nobody is signed in (read without the schema, see below). */
function signedOut(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'user' in data && data.user === null;
}

/**
 * Who the answer says is signed in. A signed-out answer is known at a glance, so the first
 * screens of a visitor need no zod (api.ts); a user is checked with the schema.
 */
async function sessionUser(status: number, data: unknown): Promise<Me | null> {
  if (signedOut(data)) return null;
  const { sessionResponseSchema } = await import('./answer-schemas');
  return parseAnswer(sessionResponseSchema, status, data).user;
}

/** Ask the server who we are. A blocked account answers 403 `blocked`. */
export function refreshSession(): Promise<SessionState> {
  // Only the tab's first question gains from the head start (later ones find the schemas loaded).
  // A head start only: a failed chunk load is retried (and reported) where it is needed.
  if (!inflight && state.status === 'loading' && signedInBefore()) import('./answer-schemas').catch(() => undefined);
  inflight ??= apiJson('GET', API.session)
    .then(({ status, data }) => sessionUser(status, data))
    .then((user) => {
      emit({ status: 'ready', user });
      return state;
    })
    .catch((e: unknown) => {
      if (e instanceof ApiError && e.code === 'blocked') {
        emit({ status: 'ready', user: null });
        if (location.pathname !== '/blocked') location.assign('/blocked');
        return state;
      }
      // Offline or server down: keep what we knew, but stop "loading" forever.
      emit({ status: 'ready', user: state.user });
      return state;
    })
    .finally(() => {
      inflight = null;
    });
  return inflight;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls `listener` on every session change (React's view: hooks/use-session.ts). */
export const subscribeSession = subscribe;

/** Where a freshly signed-in user lands. */
export function homeFor(user: Me): string {
  return user.isAdmin ? '/admin' : '/home';
}
