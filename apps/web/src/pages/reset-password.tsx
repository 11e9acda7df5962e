import { API, FIRST_PASSWORD_PARAM, MSG, noContentSchema, passwordSchema, tokenSchema } from '@app/protocol';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { newCredentials } from '@/client/keys/password-keys';
import { AuthLayout } from '@/components/auth-layout';
import { InvalidLink } from '@/components/invalid-link';
import { PasswordField } from '@/components/password-field';
import { Button } from '@/components/ui/button';
import { notify, notifyError } from '@/components/ui/toaster';
import { useSubmit } from '@/hooks/use-submit';
import { ApiError, api } from '@/lib/api';
import { setUser } from '@/lib/session';

export default function ResetPasswordPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  // An imported account's first password (the e-mail of cli/import-rtdb.ts), not a reset.
  const first = params.get(FIRST_PASSWORD_PARAM) === '1';
  const title = first ? 'Set Your Password' : 'Reset Password';
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [invalid, setInvalid] = useState(() => !tokenSchema.safeParse(token).success);

  const { busy, onSubmit } = useSubmit(async () => {
    const parsed = passwordSchema.safeParse(password);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? MSG.password);
      return;
    }
    setError(undefined);
    try {
      const { credentials } = await newCredentials(parsed.data);
      await api(noContentSchema, 'POST', API.resetPassword, { token, credentials });
      // Every session of this account has ended, this browser's included.
      setUser(null);
      notify(first ? 'Password Set' : 'Password Reset', 'Sign in with your new password');
      navigate('/signin', { replace: true });
      return 'leaving';
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_token') {
        setInvalid(true);
        return;
      }
      const fieldIssue = err instanceof ApiError ? err.issues.find((i) => i.path === 'password') : undefined;
      if (fieldIssue) setError(fieldIssue.message);
      notifyError('Reset Failed', err instanceof Error ? err.message : undefined);
    }
  });

  if (invalid) {
    return (
      <AuthLayout title={title} back="/signin">
        <InvalidLink>
          <Button asChild className="w-full">
            <Link to="/forgot-password">Request a new link</Link>
          </Button>
        </InvalidLink>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title={title}
      subtitle={
        first
          ? 'Your account and your chats have moved here. Choose a password to sign in.'
          : 'Choose a new password. You will be signed out everywhere.'
      }
      back="/signin"
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <PasswordField
          id="reset-password"
          label="New Password"
          autoComplete="new-password"
          placeholder="At least 6 characters"
          value={password}
          error={error}
          onChange={(e) => {
            setPassword(e.target.value);
            setError(undefined);
          }}
        />
        <p className="text-sm text-muted-foreground">
          {first
            ? 'Your password protects your encryption keys: this browser makes them when you sign in.'
            : 'Your password protects your encryption keys. After a reset, a browser you used before keeps them; any other browser starts new keys.'}
        </p>
        <Button type="submit" size="lg" className="mt-2 w-full" disabled={busy}>
          {busy ? (first ? 'Saving...' : 'Resetting...') : first ? 'Set Password' : 'Reset Password'}
        </Button>
      </form>
    </AuthLayout>
  );
}
