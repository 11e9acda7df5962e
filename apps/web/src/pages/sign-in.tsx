import { API, MSG, type SecondFactorDue, type SignedInResponse } from '@app/protocol';
import { lazy, Suspense, useState } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { AuthLayout } from '@/components/auth-layout';
import { PasswordField } from '@/components/password-field';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { FormField } from '@/components/ui/form-field';
import { Label } from '@/components/ui/label';
import { notify, notifyError } from '@/components/ui/toaster';
import { useLandingPath, useNextQuery } from '@/hooks/use-auth-redirect';
import { useSession } from '@/hooks/use-session';
import { useFinishSignOut } from '@/hooks/use-sign-out';
import { useSubmit } from '@/hooks/use-submit';
import { ApiError, api, apiJson } from '@/lib/api';
import { logged } from '@/lib/log';
import { setUser } from '@/lib/session';

// Only for an account with two-step verification: its code (and zod, WebAuthn) load then.
const SecondStep = lazy(() => import('@/components/two-factor/second-step').then((m) => ({ default: m.SecondStep })));

export default function SignInPage() {
  const navigate = useNavigate();
  const landingPath = useLandingPath();
  const nextQuery = useNextQuery();
  const { user } = useSession();
  const leaving = useFinishSignOut();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(true);

  /** The password step passed and a second is due: what finishing needs, kept until then. */
  const [pending, setPending] = useState<{
    due: SecondFactorDue;
    finish: (res: SignedInResponse) => Promise<void>;
  } | null>(null);

  const { busy, onSubmit } = useSubmit(async () => {
    if (!login.trim() || !password) {
      notifyError('Sign In Failed', MSG.fillAll);
      return;
    }
    try {
      // The password stays here: the server gets `auth`, derived from it (client/keys).
      // Loaded on submit: no first screen carries the key code or zod.
      const [
        { signInSecret, handleKeys, separateEmailSalt },
        { settleKeys, upgradeLegacy },
        { signInAnswerSchema },
        { setKeepsAtRest },
        local,
      ] = await Promise.all([
        import('@/client/keys/password-keys'),
        import('@/client/keys/account-keys'),
        import('@/lib/answer-schemas'),
        import('@/lib/at-rest'),
        import('@/client/keys/local-keys'),
      ]);
      const secret = await signInSecret(login.trim(), password);
      const body = 'auth' in secret ? { auth: secret.auth } : { password };
      const answer = await api(signInAnswerSchema, 'POST', API.signIn, { login: login.trim(), remember, ...body });
      /** Both steps passed: the keys this browser derived open the account's, and in it goes. */
      const finish = async (res: SignedInResponse) => {
        // Without "Remember me", the keys stay in this tab's memory (lib/at-rest.ts).
        if (remember) setKeepsAtRest(true);
        else await local.moveKeysIntoMemory(res.user.id);
        try {
          if ('keys' in secret) await settleKeys(res.user, res.keys, await handleKeys(secret.keys, res.wrap));
          else await upgradeLegacy(res.user, password);
        } catch (e) {
          // Keys refused (older than this browser's, say): not signed in halfway.
          // Best effort: the error above is what the person is shown.
          await apiJson('POST', API.signOut, {}).catch(() => {});
          throw e;
        }
        // Once per account from before addresses had their own salt; nothing waits for it.
        if (res.sharedSalt && res.keys)
          void separateEmailSalt(password, res.keys).catch(logged('sign-in', 'give the address its own salt'));
        notify('Welcome Back!', 'Successfully signed in');
        // Rendering with a user redirects to the landing path (see below).
        setUser(res.user);
      };
      if ('secondFactor' in answer) {
        setPending({ due: answer.secondFactor, finish });
        return;
      }
      await finish(answer);
      return 'leaving';
    } catch (err) {
      if (err instanceof ApiError && err.code === 'blocked') {
        setUser(null);
        navigate('/blocked', { replace: true });
        return;
      }
      if (err instanceof ApiError && err.status === 401) {
        notifyError('Sign In Failed', MSG.invalidCredentials);
        return;
      }
      notifyError('Sign In Failed', (err instanceof Error && err.message) || MSG.invalidCredentials);
    }
  });

  // Already signed in (on load, or just now): straight to where this user belongs.
  if (user && !leaving) return <Navigate to={landingPath(user)} replace />;

  if (pending)
    return (
      <AuthLayout title="Two-Step Verification" subtitle="One more step to keep your account yours">
        <Suspense fallback={<p className="text-sm text-muted-foreground">Loading…</p>}>
          <SecondStep due={pending.due} onSignedIn={pending.finish} onCancel={() => setPending(null)} />
        </Suspense>
      </AuthLayout>
    );

  return (
    <AuthLayout
      title="Welcome Back"
      subtitle="Sign in to continue your conversations"
      footer={
        <>
          Don&apos;t have an account?{' '}
          <Link to={`/signup${nextQuery}`} className="font-medium text-primary underline-offset-4 hover:underline">
            Sign up
          </Link>
        </>
      }
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <FormField
          id="signin-login"
          label="Email or Username"
          autoComplete="username"
          autoCapitalize="none"
          autoCorrect="off"
          spellCheck={false}
          placeholder="you@example.com or username"
          value={login}
          onChange={(e) => setLogin(e.target.value)}
        />
        <PasswordField
          id="signin-password"
          label="Password"
          autoComplete="current-password"
          placeholder="Your password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <div className="flex items-center justify-between gap-3 pt-1">
          <div className="flex items-center gap-2">
            <Checkbox id="signin-remember" checked={remember} onCheckedChange={(c) => setRemember(c === true)} />
            <Label htmlFor="signin-remember" className="font-normal">
              Remember me
            </Label>
          </div>
          <Link to="/forgot-password" className="text-sm font-medium text-primary underline-offset-4 hover:underline">
            Forgot password?
          </Link>
        </div>
        <Button type="submit" size="lg" className="mt-2 w-full" disabled={busy}>
          {busy ? 'Signing In...' : 'Sign In'}
        </Button>
      </form>
    </AuthLayout>
  );
}
