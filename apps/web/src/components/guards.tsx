import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '@/lib/session';
import { Spinner } from './spinner';
import { VerifyBanner } from './verify-banner';

/** Signed-in screens: signed-out users go to /signin, then come back. */
export function RequireAuth() {
  const { status, user } = useSession();
  const location = useLocation();
  if (status === 'loading') return <Spinner fullScreen />;
  if (!user) {
    const next = location.pathname + location.search;
    return <Navigate to={`/signin?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <>
      {user.emailVerified ? null : <VerifyBanner email={user.email} />}
      <Outlet />
    </>
  );
}

/** Only the administrator may stay on /admin; everyone else goes to /home. */
export function RequireAdmin() {
  const { user } = useSession();
  if (!user?.isAdmin) return <Navigate to="/home" replace />;
  return <Outlet />;
}
