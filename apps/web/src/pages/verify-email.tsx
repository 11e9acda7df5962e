import { API, sessionResponseSchema, tokenSchema } from '@app/protocol';
import { CircleCheck, Loader2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { AuthLayout } from '@/components/auth-layout';
import { InvalidLink } from '@/components/invalid-link';
import { Button } from '@/components/ui/button';
import { useSession } from '@/hooks/use-session';
import { ApiError, api } from '@/lib/api';
import { homeFor, setUser } from '@/lib/session';

type State = { kind: 'verifying' } | { kind: 'verified' } | { kind: 'invalid' } | { kind: 'failed'; message: string };

export default function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { user } = useSession();
  const [state, setState] = useState<State>(() =>
    tokenSchema.safeParse(token).success ? { kind: 'verifying' } : { kind: 'invalid' },
  );
  // A token is used once: StrictMode's second effect run must not send it again.
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current || state.kind !== 'verifying') return;
    sent.current = true;
    api(sessionResponseSchema, 'POST', API.verifyEmail, { token })
      .then((res) => {
        if (res?.user) setUser(res.user);
        setState({ kind: 'verified' });
      })
      .catch((e: unknown) => {
        if (e instanceof ApiError && (e.code === 'invalid_token' || e.code === 'invalid_input')) {
          setState({ kind: 'invalid' });
        } else {
          setState({ kind: 'failed', message: e instanceof Error ? e.message : 'Something went wrong' });
        }
      });
  }, [token, state.kind]);

  const next = user ? homeFor(user) : '/signin';

  if (state.kind === 'verifying') {
    return (
      <AuthLayout title="Verify Email">
        <div role="status" className="flex flex-col items-center gap-3 py-4 text-center text-muted-foreground">
          <Loader2 className="size-8 animate-spin text-primary" aria-hidden />
          <p className="text-sm">Verifying...</p>
        </div>
      </AuthLayout>
    );
  }

  if (state.kind === 'verified') {
    return (
      <AuthLayout title="Email Verified">
        <div role="status" className="flex flex-col items-center gap-4 text-center">
          <span className="flex size-14 items-center justify-center rounded-full bg-success/10 text-success">
            <CircleCheck className="size-7" aria-hidden />
          </span>
          <p className="text-sm text-muted-foreground">
            Your e-mail address is confirmed. {user ? 'You are all set.' : 'Sign in to start chatting.'}
          </p>
          <Button asChild size="lg" className="w-full">
            <Link to={next} replace>
              {user ? 'Continue' : 'Continue to Sign In'}
            </Link>
          </Button>
        </div>
      </AuthLayout>
    );
  }

  if (state.kind === 'failed') {
    return (
      <AuthLayout title="Verify Email">
        <div role="alert" className="flex flex-col items-center gap-4 text-center">
          <p className="text-sm">{state.message}</p>
          <Button
            className="w-full"
            onClick={() => {
              sent.current = false;
              setState({ kind: 'verifying' });
            }}
          >
            Try again
          </Button>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title="Verify Email">
      <InvalidLink>
        <p className="text-sm text-muted-foreground">
          {!user
            ? 'Sign in to send yourself a new link.'
            : user.emailVerified
              ? 'Your e-mail address is already verified.'
              : 'You can send a new link from the banner at the top of the app.'}
        </p>
        <Button asChild className="w-full">
          <Link to={next}>{user ? 'Continue' : 'Go to Sign In'}</Link>
        </Button>
      </InvalidLink>
    </AuthLayout>
  );
}
