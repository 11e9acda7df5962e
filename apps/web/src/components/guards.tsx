import type { Me } from '@app/protocol';
import { lazy, type ReactNode, Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '@/hooks/use-session';
import { Spinner } from './spinner';
import { VerifyBanner } from './verify-banner';

// Loaded with the chat code, not with the first screen.
const SignedInEffects = lazy(() => import('./signed-in-effects'));

/**
 * Signed-in screens: signed-out users go to /signin, then come back; or, on a screen anyone
 * may open (About, which Settings links to), see `visitor` instead, the screen alone. For a
 * signed-in user both kinds are the same tree, so going from Settings to About keeps the
 * signed-in layout as it was (the chat open beside it).
 */
export function RequireAuth({ visitor }: { visitor?: ReactNode }) {
  const { status, user } = useSession();
  const location = useLocation();
  if (status === 'loading') return <Spinner fullScreen />;
  if (!user) {
    if (visitor) return visitor;
    const next = location.pathname + location.search;
    return <Navigate to={`/signin?next=${encodeURIComponent(next)}`} replace />;
  }
  return <SignedInFrame user={user} screen={<Outlet />} />;
}

/** What every signed-in screen has around it: the signed-in effects, and the e-mail banner until verified. */
function SignedInFrame({ user, screen }: { user: Me; screen: ReactNode }) {
  const effects = (
    <Suspense fallback={null}>
      <SignedInEffects />
    </Suspense>
  );
  if (user.emailVerified) {
    return (
      <>
        {effects}
        {screen}
      </>
    );
  }
  // The screen below fills what the banner leaves, so a short screen does not scroll.
  return (
    <div className="flex min-h-full flex-col">
      {effects}
      <VerifyBanner email={user.email} />
      <div className="flex flex-1 flex-col *:flex-1">{screen}</div>
    </div>
  );
}

/** Only the administrator may stay on /admin; everyone else goes to /home. */
export function RequireAdmin() {
  const { user } = useSession();
  if (!user?.isAdmin) return <Navigate to="/home" replace />;
  return <Outlet />;
}
