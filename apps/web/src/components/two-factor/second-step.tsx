/**
 * A sign-in's second step (protocol two-factor.ts): a code from the authenticator app, the
 * account's passkey, or a recovery code; or, when the operator requires it and the account
 * has none, setting up an app first (then its recovery codes). A pending sign-in that expired
 * or ran out of tries goes back to the password.
 */
import type { SecondFactorDue } from '@app/protocol';
import { KeyRound } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { notifyError } from '@/components/ui/toaster';
import { ApiError } from '@/lib/api';
import { enrolConfirm, enrolStart, type SecondStep as Step, secondStep } from '@/lib/two-factor-api';
import { RecoveryCodes } from './recovery-codes';
import { TotpSetup } from './totp-setup';

export type SignedInAnswer = Awaited<ReturnType<typeof secondStep>>;

interface Props {
  due: SecondFactorDue;
  onSignedIn: (res: SignedInAnswer) => Promise<void>;
  /** Back to the password (the pending sign-in is over). */
  onCancel: () => void;
}

export function SecondStep(props: Props) {
  return props.due.enrol ? <Enrol {...props} /> : <Verify {...props} />;
}

function useFailure(onCancel: () => void) {
  return (err: unknown, title: string) => {
    if (err instanceof ApiError && err.code === 'sign_in_expired') {
      notifyError('Sign In Failed', err.message);
      onCancel();
      return;
    }
    notifyError(title, err instanceof Error ? err.message : undefined);
  };
}

function Verify({ due, onSignedIn, onCancel }: Props) {
  const id = useId();
  const [mode, setMode] = useState<'totp' | 'recovery'>(due.methods.includes('totp') ? 'totp' : 'recovery');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const failed = useFailure(onCancel);

  const pass = async (step: Step) => {
    setBusy(true);
    try {
      await onSignedIn(await secondStep(due.token, step));
    } catch (err) {
      failed(err, 'Verification Failed');
      setBusy(false);
    }
  };

  return (
    <div className="grid gap-4">
      <p className="text-sm text-muted-foreground">
        {mode === 'totp'
          ? 'Enter the 6-digit code from your authenticator app.'
          : 'Enter one of the recovery codes you saved when you set up two-step verification.'}
      </p>
      {due.passkey ? (
        <Button type="button" size="lg" disabled={busy} onClick={() => void pass({ passkey: due.passkey ?? {} })}>
          <KeyRound aria-hidden />
          Use a passkey
        </Button>
      ) : null}
      <form
        noValidate
        className="grid gap-4"
        onSubmit={(e) => {
          e.preventDefault();
          void pass(mode === 'totp' ? { totp: code } : { recovery: code });
        }}
      >
        <FormField
          key={mode}
          id={`${id}-${mode}`}
          label={mode === 'totp' ? 'Code from the app' : 'Recovery code'}
          inputMode={mode === 'totp' ? 'numeric' : 'text'}
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          placeholder={mode === 'totp' ? '123 456' : 'abcde-fghjk'}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <Button type="submit" size="lg" variant={due.passkey ? 'outline' : 'default'} disabled={busy}>
          {busy ? 'Checking...' : 'Verify'}
        </Button>
      </form>
      <div className="flex flex-wrap justify-between gap-2 text-sm">
        {due.methods.includes('totp') ? (
          <Button
            type="button"
            variant="link"
            className="h-auto p-0"
            onClick={() => {
              setCode('');
              setMode(mode === 'totp' ? 'recovery' : 'totp');
            }}
          >
            {mode === 'totp' ? 'Use a recovery code' : 'Use your authenticator app'}
          </Button>
        ) : null}
        <Button type="button" variant="link" className="h-auto p-0" onClick={onCancel}>
          Start again
        </Button>
      </div>
    </div>
  );
}

function Enrol({ due, onSignedIn, onCancel }: Props) {
  const [setup, setSetup] = useState<{ secret: string; uri: string } | null>(null);
  const [done, setDone] = useState<SignedInAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const failed = useFailure(onCancel);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per pending sign-in
  useEffect(() => {
    enrolStart(due.token).then(setSetup, (err: unknown) => failed(err, 'Could Not Set Up'));
  }, [due.token]);

  if (done)
    return (
      <RecoveryCodes
        codes={done.recoveryCodes ?? []}
        onDone={() => void onSignedIn(done).catch((err: unknown) => failed(err, 'Sign In Failed'))}
      />
    );
  if (!setup) return <p className="text-sm text-muted-foreground">Preparing…</p>;
  return (
    <div className="grid gap-4">
      <p className="text-sm">
        Your administrator requires two-step verification. Set up an authenticator app to go on.
      </p>
      <TotpSetup
        setup={setup}
        busy={busy}
        onCode={(code) => {
          setBusy(true);
          enrolConfirm(due.token, code).then(setDone, (err: unknown) => {
            failed(err, 'Verification Failed');
            setBusy(false);
          });
        }}
      />
    </div>
  );
}
