import type { Me } from '@app/protocol';
import { useCallback } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { homeFor } from '@/lib/session';

/** A `?next=` value that stays on this site: a path starting with '/' but not '//' (nor '/\'). */
export function safeNext(raw: string | null): string | null {
  if (!raw?.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return null;
  return raw;
}

/** Where a user who has just signed in (or up) lands: `?next=` if safe, else their home. */
export function useLandingPath(): (user: Me) => string {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  return useCallback((user: Me) => next ?? homeFor(user), [next]);
}

/** Navigates a freshly signed-in user to their landing path. */
export function useLandAfterAuth(): (user: Me) => void {
  const navigate = useNavigate();
  const landingPath = useLandingPath();
  return useCallback((user: Me) => navigate(landingPath(user), { replace: true }), [navigate, landingPath]);
}

/** The `?next=` query to carry along when moving between sign-in and sign-up, or ''. */
export function useNextQuery(): string {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  return next ? `?next=${encodeURIComponent(next)}` : '';
}
