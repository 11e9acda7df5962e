import { lazy, Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '@/lib/session';
import { Spinner } from './spinner';
import { VerifyBanner } from './verify-banner';

// Loaded with the chat code, not with the first screen.
const SignedInEffects = lazy(() => import('./signed-in-effects'));

/** Signed-in screens: signed-out users go to /signin, then come back. */
export function RequireAuth() {
  const { status, user } = useSession();
  const location = useLocation();
  if (status === 'loading') return <Spinner fullScreen />;
  if (!user) {
    const next = location.pathname + location.search;
    return <Navigate to={`/signin?next=${encodeURIComponent(next)}`} replace />;
  }
  const effects = (
    <Suspense fallback={null}>
      <SignedInEffects />
    </Suspense>
  );
  if (user.emailVerified) {
    return (
      <>
        {effects}
        <Outlet />
      </>
    );
  }
  // The screen below fills what the banner leaves, so a short screen does not scroll.
  return (
    <div className="flex min-h-full flex-col">
      {effects}
      <VerifyBanner email={user.email} />
      <div className="flex flex-1 flex-col *:flex-1">
        <Outlet />
      </div>
    </div>
  );
}

/** Only the administrator may stay on /admin; everyone else goes to /home. */
export function RequireAdmin() {
  const { user } = useSession();
  if (!user?.isAdmin) return <Navigate to="/home" replace />;
  return <Outlet />;
}
