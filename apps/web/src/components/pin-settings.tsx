/**
 * The PIN part of Privacy settings: set a PIN, or change or remove it (both need the
 * account password), and the lock-out after too many wrong PINs.
 */

import { PIN_LENGTH, type PrivacyResponse, pinSchema, SOCIAL_MSG } from '@app/protocol';
import { CircleAlert, KeyRound, ShieldCheck } from 'lucide-react';
import { type ChangeEvent, useEffect, useState } from 'react';
import { FormSection } from '@/components/form-section';
import { PasswordField } from '@/components/password-field';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { notify, notifyError } from '@/components/ui/toaster';
import { useFields } from '@/hooks/use-fields';
import { useSubmit } from '@/hooks/use-submit';
import { ApiError } from '@/lib/api';
import { type FieldErrors, fieldErrors } from '@/lib/field-errors';
import { formatClock } from '@/lib/format-time';
import { removePin, setPin } from '@/lib/social-api';

const PINS_DIFFER = 'PINs do not match';

function errorMessage(e: unknown): string | undefined {
  return e instanceof Error ? e.message : undefined;
}

interface PinProps {
  state: PrivacyResponse;
  onSaved: (r: PrivacyResponse) => void;
  /** The server knows better (the PIN was set or removed elsewhere): load again. */
  onStale: () => void;
}

export function PinSettings({ state, onSaved, onStale }: PinProps) {
  const lockedUntil = useLockedUntil(state.pinLockedUntil);
  return (
    <>
      {lockedUntil !== null ? (
        <p
          role="status"
          className="flex items-start gap-2 rounded-xl border border-warning-border bg-warning-subtle px-4 py-3 text-sm text-warning-foreground"
        >
          <CircleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
          <span>
            After too many wrong PINs, PIN checks are paused until {formatClock(lockedUntil)}. Changing or removing the
            PIN with your account password ends the pause.
          </span>
        </p>
      ) : null}
      {state.hasPin ? (
        <>
          <div className="flex items-start gap-3 rounded-xl bg-secondary px-4 py-3 text-sm text-secondary-foreground md:px-5">
            <KeyRound className="mt-0.5 size-4 shrink-0" aria-hidden />
            <div className="grid gap-1">
              <p className="font-semibold">Forgot your PIN?</p>
              <p>
                You don't need it here: your account password replaces it. Choose a new PIN below, or remove the PIN.
                Removing the PIN unlocks all your locked chats.
              </p>
            </div>
          </div>
          <ChangePinForm onSaved={onSaved} onStale={onStale} />
          <RemovePinForm onSaved={onSaved} onStale={onStale} />
        </>
      ) : (
        <SetPinForm onSaved={onSaved} onStale={onStale} />
      )}
    </>
  );
}

/** The lock-out time while it lies ahead; null once it has passed. */
function useLockedUntil(until: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null || until <= Date.now()) return;
    const t = setTimeout(() => setNow(Date.now()), until - Date.now() + 50);
    return () => clearTimeout(t);
  }, [until]);
  return until !== null && until > now ? until : null;
}

/** A 6-digit masked PIN input; anything but digits is dropped as it is typed. */
function PinField({
  id,
  label,
  value,
  error,
  onValue,
}: {
  id: string;
  label: string;
  value: string;
  error: string | undefined;
  onValue: (v: string) => void;
}) {
  return (
    <FormField
      id={id}
      label={label}
      type="password"
      inputMode="numeric"
      pattern="[0-9]*"
      autoComplete="off"
      maxLength={PIN_LENGTH}
      placeholder="••••••"
      className="tracking-[0.3em] sm:max-w-48"
      value={value}
      error={error}
      onChange={(e: ChangeEvent<HTMLInputElement>) => onValue(e.target.value.replace(/\D/g, '').slice(0, PIN_LENGTH))}
    />
  );
}

/** The checks of a new PIN and its confirmation: the format first, then equality. */
function checkNewPin(pin: string, confirm: string): FieldErrors {
  const errors: FieldErrors = {};
  const parsed = pinSchema.safeParse(pin);
  if (!parsed.success) errors.pin = parsed.error.issues[0]?.message ?? SOCIAL_MSG.pinFormat;
  else if (confirm !== pin) errors.confirm = PINS_DIFFER;
  return errors;
}

/** Shows a failed PIN call: inline on its field and as a toast. */
function showFailure(
  e: unknown,
  title: string,
  setErrors: (e: FieldErrors) => void,
  passwordField: string | null,
  onStale: () => void,
): void {
  if (e instanceof ApiError) {
    if (e.code === 'wrong_password' && passwordField) setErrors({ [passwordField]: e.message });
    else if (e.issues.length > 0) setErrors(fieldErrors(e.issues));
    else setErrors({ form: e.message });
    // Set or removed in another tab: show the forms that fit.
    if (e.code === 'no_pin' || (e.code === 'wrong_password' && !passwordField)) onStale();
  }
  notifyError(title, errorMessage(e));
}

function FormError({ message }: { message: string | undefined }) {
  return message ? (
    <p role="alert" className="text-sm text-destructive">
      {message}
    </p>
  ) : null;
}

function SetPinForm({ onSaved, onStale }: Omit<PinProps, 'state'>) {
  const f = useFields({ pin: '', confirm: '' }, { pin: 'pin-new', confirm: 'pin-confirm' });

  const { busy, onSubmit } = useSubmit(async () => {
    const errors = checkNewPin(f.values.pin, f.values.confirm);
    if (Object.keys(errors).length > 0) {
      f.fail(errors);
      return;
    }
    try {
      const r = await setPin(f.values.pin);
      f.reset();
      notify('PIN Set', 'You can now lock chats');
      onSaved(r);
    } catch (err) {
      showFailure(err, 'Failed to Set PIN', f.fail, null, onStale);
    }
  });

  return (
    <FormSection
      title="Set PIN"
      description="A 6-digit PIN keeps the chats you lock private. You enter it to open Locked chats."
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <PinField id="pin-new" label="New PIN" value={f.values.pin} error={f.errors.pin} onValue={f.set('pin')} />
        <PinField
          id="pin-confirm"
          label="Confirm PIN"
          value={f.values.confirm}
          error={f.errors.confirm}
          onValue={f.set('confirm')}
        />
        <FormError message={f.errors.form} />
        <Button type="submit" className="w-full sm:w-auto sm:justify-self-start" disabled={busy}>
          <ShieldCheck aria-hidden />
          {busy ? 'Saving...' : 'Set PIN'}
        </Button>
      </form>
    </FormSection>
  );
}

function ChangePinForm({ onSaved, onStale }: Omit<PinProps, 'state'>) {
  const f = useFields(
    { pin: '', confirm: '', password: '' },
    { pin: 'pin-change-new', confirm: 'pin-change-confirm', password: 'pin-change-password' },
  );

  const { busy, onSubmit } = useSubmit(async () => {
    const errors = checkNewPin(f.values.pin, f.values.confirm);
    if (!f.values.password) errors.password = SOCIAL_MSG.pinPasswordRequired;
    if (Object.keys(errors).length > 0) {
      f.fail(errors);
      return;
    }
    try {
      const r = await setPin(f.values.pin, f.values.password);
      f.reset();
      notify('PIN Changed');
      onSaved(r);
    } catch (err) {
      showFailure(err, 'Failed to Change PIN', f.fail, 'password', onStale);
    }
  });

  return (
    <FormSection title="Change PIN" description="Choose a new PIN. Your account password confirms it is you.">
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <PinField
          id="pin-change-new"
          label="New PIN"
          value={f.values.pin}
          error={f.errors.pin}
          onValue={f.set('pin')}
        />
        <PinField
          id="pin-change-confirm"
          label="Confirm New PIN"
          value={f.values.confirm}
          error={f.errors.confirm}
          onValue={f.set('confirm')}
        />
        <PasswordField
          id="pin-change-password"
          label="Account Password"
          autoComplete="current-password"
          value={f.values.password}
          error={f.errors.password}
          onChange={(e) => f.set('password')(e.target.value)}
        />
        <FormError message={f.errors.form} />
        <Button type="submit" className="w-full sm:w-auto sm:justify-self-start" disabled={busy}>
          {busy ? 'Saving...' : 'Change PIN'}
        </Button>
      </form>
    </FormSection>
  );
}

function RemovePinForm({ onSaved, onStale }: Omit<PinProps, 'state'>) {
  const f = useFields({ password: '' }, { password: 'pin-remove-password' });

  const { busy, onSubmit } = useSubmit(async () => {
    if (!f.values.password) {
      f.fail({ password: SOCIAL_MSG.pinPasswordRequired });
      return;
    }
    try {
      const r = await removePin(f.values.password);
      f.reset();
      notify('PIN Removed', 'Your locked chats are unlocked');
      onSaved(r);
    } catch (err) {
      showFailure(err, 'Failed to Remove PIN', f.fail, 'password', onStale);
    }
  });

  return (
    <FormSection
      title="Remove PIN"
      description="Without a PIN no chat can be locked: removing it unlocks all your locked chats."
    >
      <form noValidate onSubmit={onSubmit} className="grid gap-4">
        <PasswordField
          id="pin-remove-password"
          label="Account Password"
          autoComplete="current-password"
          value={f.values.password}
          error={f.errors.password}
          onChange={(e) => f.set('password')(e.target.value)}
        />
        <FormError message={f.errors.form} />
        <Button type="submit" variant="destructive" className="w-full sm:w-auto sm:justify-self-start" disabled={busy}>
          {busy ? 'Removing...' : 'Remove PIN'}
        </Button>
      </form>
    </FormSection>
  );
}
