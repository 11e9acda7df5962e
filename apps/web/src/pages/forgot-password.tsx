import { API, forgotPasswordSchema, MSG, noContentSchema } from '@app/protocol';
import { MailCheck } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { AuthLayout } from '@/components/auth-layout';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { notifyError } from '@/components/ui/toaster';
import { useSubmit } from '@/hooks/use-submit';
import { api } from '@/lib/api';

export default function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState(false);

  const { busy, onSubmit } = useSubmit(async () => {
    if (!email.trim()) {
      setError(MSG.fillAll);
      return;
    }
    const parsed = forgotPasswordSchema.safeParse({ email });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? MSG.email);
      return;
    }
    setError(undefined);
    try {
      await api(noContentSchema, 'POST', API.forgotPassword, parsed.data);
      setSent(true);
    } catch (err) {
      notifyError('Could Not Send Link', err instanceof Error ? err.message : undefined);
    }
  });

  const backLink = (
    <Link to="/signin" className="font-medium text-primary underline-offset-4 hover:underline">
      Back to sign in
    </Link>
  );

  if (sent) {
    return (
      <AuthLayout title="Check Your Email" back="/signin" footer={backLink}>
        <div role="status" className="flex flex-col items-center gap-4 text-center">
          <span className="flex size-14 items-center justify-center rounded-full bg-secondary text-primary">
            <MailCheck className="size-7" aria-hidden />
          </span>
          <p className="text-sm leading-relaxed text-muted-foreground">
            If an account exists for that address, we sent a link to reset your password.
          </p>
          <Button variant="outline" className="w-full" onClick={() => setSent(false)}>
            Use a different address
          </Button>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Forgot Password"
      subtitle="Enter your account's e-mail and we'll send you a link to choose a new password."
      back="/signin"
      footer={backLink}
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <FormField
          id="forgot-email"
          label="Email"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          placeholder="you@example.com"
          value={email}
          error={error}
          onChange={(e) => {
            setEmail(e.target.value);
            setError(undefined);
          }}
        />
        <Button type="submit" size="lg" className="mt-2 w-full" disabled={busy}>
          {busy ? 'Sending...' : 'Send Reset Link'}
        </Button>
      </form>
    </AuthLayout>
  );
}
