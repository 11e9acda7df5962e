import { API, MSG } from '@app/protocol';
import { type ChangeEvent, useState } from 'react';
import { Link } from 'react-router';
import { AuthLayout } from '@/components/auth-layout';
import { PasswordField } from '@/components/password-field';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { notify, notifyError } from '@/components/ui/toaster';
import { useLandAfterAuth, useNextQuery } from '@/hooks/use-auth-redirect';
import { useFinishSignOut } from '@/hooks/use-sign-out';
import { useSubmit } from '@/hooks/use-submit';
import { ApiError, api } from '@/lib/api';
import { setUser } from '@/lib/session';

const FIELDS = ['name', 'phone', 'age', 'username', 'email', 'password'] as const;
type Field = (typeof FIELDS)[number];
type Values = Record<Field, string>;
type Errors = Partial<Record<Field, string>>;

const EMPTY: Values = { name: '', phone: '', age: '', username: '', email: '', password: '' };

function isField(key: unknown): key is Field {
  return typeof key === 'string' && (FIELDS as readonly string[]).includes(key);
}

/** The first message per field, from zod issues or the server's issues. */
function errorsFrom(issues: readonly { path: readonly PropertyKey[] | string; message: string }[]): Errors {
  const errors: Errors = {};
  for (const issue of issues) {
    const key = typeof issue.path === 'string' ? issue.path.split('.')[0] : issue.path[0];
    if (isField(key) && !errors[key]) errors[key] = issue.message;
  }
  return errors;
}

/** The server refused the sign-up: the fields it names show why, and a toast says it. */
function refused(err: unknown, showErrors: (e: Errors) => void): void {
  const code = err instanceof ApiError ? err.code : null;
  if (code === 'username_taken') {
    showErrors({ username: MSG.usernameTaken });
    notifyError('Username Taken', MSG.usernameTaken);
    return;
  }
  if (code === 'email_taken') showErrors({ email: (err as ApiError).message || MSG.emailTaken });
  if (err instanceof ApiError && err.issues.length > 0) showErrors(errorsFrom(err.issues));
  notifyError('Sign Up Failed', (err instanceof Error && err.message) || MSG.signUpFailed);
}

export default function SignUpPage() {
  const land = useLandAfterAuth();
  const nextQuery = useNextQuery();
  useFinishSignOut(); // after account deletion
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [agree, setAgree] = useState(false);
  const [agreeMissing, setAgreeMissing] = useState(false);

  /** Shows the field errors and moves the focus to the first field in error. */
  const showErrors = (next: Errors) => {
    setErrors(next);
    const first = FIELDS.find((f) => next[f]);
    if (first) document.getElementById(`signup-${first}`)?.focus();
  };

  const bind = (field: Field) => ({
    value: values[field],
    error: errors[field],
    onChange: (e: ChangeEvent<HTMLInputElement>) => {
      // The '@' is shown before the input; someone may still type it.
      const value = field === 'username' ? e.target.value.replace(/^@+/, '') : e.target.value;
      setValues((v) => ({ ...v, [field]: value }));
      if (errors[field]) setErrors((errs) => ({ ...errs, [field]: undefined }));
    },
  });

  const { busy, onSubmit } = useSubmit(async () => {
    if (!agree) {
      setAgreeMissing(true);
      notifyError('Agreement Required', MSG.agreement);
      return;
    }
    try {
      // Loaded on submit: the form's screen carries neither zod nor the key code.
      const [{ signUpSchema, signedInResponseSchema }, { newCredentials }, { settleKeys }] = await Promise.all([
        import('@/lib/answer-schemas'),
        import('@/client/keys/password-keys'),
        import('@/client/keys/account-keys'),
      ]);
      const parsed = signUpSchema.safeParse({
        ...values,
        age: values.age.trim() ? Number(values.age) : Number.NaN,
        agree: true,
      });
      if (!parsed.success) {
        showErrors(errorsFrom(parsed.error.issues));
        notifyError('Sign Up Failed', parsed.error.issues[0]?.message ?? MSG.signUpFailed);
        return;
      }
      setErrors({});
      // The password stays here: the server gets `auth`, derived from it, then the new keys.
      const { password, ...fields } = parsed.data;
      const { credentials, keys } = await newCredentials(password);
      const { user } = await api(signedInResponseSchema, 'POST', API.signUp, { ...fields, credentials });
      await settleKeys(user, null, keys, { newAccount: true });
      notify('Account Created!', 'Please check your email to verify your account');
      setUser(user);
      land(user);
      return 'leaving';
    } catch (err) {
      refused(err, showErrors);
    }
  });

  return (
    <AuthLayout
      title="Create Account"
      subtitle="Join and start chatting in seconds"
      back="/welcome"
      footer={
        <>
          Already have an account?{' '}
          <Link to={`/signin${nextQuery}`} className="font-medium text-primary underline-offset-4 hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <FormField id="signup-name" label="Full Name" autoComplete="name" placeholder="Jane Doe" {...bind('name')} />
        <FormField
          id="signup-phone"
          label="Phone Number"
          type="tel"
          autoComplete="tel"
          inputMode="tel"
          placeholder="5551234567"
          {...bind('phone')}
        />
        <FormField
          id="signup-age"
          label="Age"
          inputMode="numeric"
          pattern="[0-9]*"
          autoComplete="off"
          placeholder="18"
          maxLength={3}
          {...bind('age')}
        />
        <UsernameField {...bind('username')} />
        <FormField
          id="signup-email"
          label="Email"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          placeholder="you@example.com"
          {...bind('email')}
        />
        <PasswordField
          id="signup-password"
          label="Password"
          autoComplete="new-password"
          placeholder="At least 6 characters"
          {...bind('password')}
        />
        <div className="flex items-start gap-3 pt-1">
          <Checkbox
            id="signup-agree"
            checked={agree}
            onCheckedChange={(c) => {
              setAgree(c === true);
              setAgreeMissing(false);
            }}
            required
            aria-invalid={agreeMissing ? true : undefined}
            className="mt-0.5 aria-invalid:border-destructive aria-invalid:ring-2 aria-invalid:ring-destructive/30"
          />
          <Label htmlFor="signup-agree" className="text-sm font-normal leading-snug text-muted-foreground">
            I agree to the{' '}
            <Link to="/terms" className="font-medium text-primary underline-offset-4 hover:underline">
              Terms of Service
            </Link>{' '}
            and{' '}
            <Link to="/privacy" className="font-medium text-primary underline-offset-4 hover:underline">
              Privacy Policy
            </Link>
          </Label>
        </div>
        <Button type="submit" size="lg" className="mt-2 w-full" disabled={busy}>
          {busy ? 'Creating Account...' : 'Sign Up'}
        </Button>
      </form>
    </AuthLayout>
  );
}

/** The username input with its '@' prefix. */
function UsernameField({
  value,
  error,
  onChange,
}: {
  value: string;
  error: string | undefined;
  onChange: (e: ChangeEvent<HTMLInputElement>) => void;
}) {
  const id = 'signup-username';
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>Username</Label>
      <div className="relative">
        <span
          aria-hidden
          className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-muted-foreground"
        >
          @
        </span>
        <Input
          id={id}
          className="pl-7"
          autoComplete="username"
          autoCapitalize="none"
          autoCorrect="off"
          spellCheck={false}
          placeholder="username"
          maxLength={20}
          value={value}
          onChange={onChange}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : `${id}-hint`}
        />
      </div>
      {error ? (
        <p id={`${id}-error`} className="text-xs text-destructive">
          {error}
        </p>
      ) : (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          Letters, numbers and underscores; people find you by it.
        </p>
      )}
    </div>
  );
}
