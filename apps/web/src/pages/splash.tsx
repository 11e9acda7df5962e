import { APP_MAKER, APP_NAME, SPLASH_DELAY_MS } from '@app/protocol';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { AppLogo } from '@/components/app-logo';
import { useSession } from '@/hooks/use-session';
import { getSession, homeFor } from '@/lib/session';

/** The first screen: the product name for a moment, then home (signed in) or the intro (signed out). */
export default function SplashPage() {
  const { status } = useSession();
  const navigate = useNavigate();

  useEffect(() => {
    if (status !== 'ready') return;
    const timer = window.setTimeout(() => {
      // Read the session when the timer fires, so a late sign-in or sign-out is honoured.
      const { user } = getSession();
      navigate(user ? homeFor(user) : '/welcome', { replace: true });
    }, SPLASH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [status, navigate]);

  return (
    <main
      id="main"
      className="brand-gradient flex min-h-full flex-col items-center justify-center gap-6 px-6 text-center text-white"
    >
      <AppLogo onGradient className="size-24 rounded-3xl" />
      <div className="space-y-2">
        <h1 className="text-5xl font-bold tracking-tight drop-shadow-sm">{APP_NAME}</h1>
        <p className="text-lg text-white/85">by {APP_MAKER}</p>
      </div>
      <div className="mt-6 flex gap-1.5" role="status" aria-label="Loading">
        {[0, 150, 300].map((delay) => (
          <span
            key={delay}
            className="size-2 rounded-full bg-white/80 motion-safe:animate-bounce"
            style={{ animationDelay: `${delay}ms` }}
          />
        ))}
      </div>
    </main>
  );
}
