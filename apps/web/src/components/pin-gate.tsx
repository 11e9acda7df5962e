import { PIN_LENGTH, SOCIAL_MSG } from '@app/protocol';
import { LockKeyhole } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '@/lib/api';
import { loadPrivacy, verifyPin } from '@/lib/social-api';
import { Button } from './ui/button';
import { Input } from './ui/input';
import { notify, notifyError } from './ui/toaster';

function clock(ms: number): string {
  return new Date(ms).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
}

/**
 * The gate's state: the lock-out (known when the gate opens, and after a refusal) that
 * ends by itself, whether the user has a PIN at all, and the last error.
 */
function usePinState() {
  const [error, setError] = useState<string | null>(null);
  const [lockedUntil, setLockedUntil] = useState<number | null>(null);
  const [noPin, setNoPin] = useState(false);

  // A gate opened during a lock-out (or without a PIN) says so at once, before any typing.
  useEffect(() => {
    let live = true;
    loadPrivacy()
      .then((r) => {
        if (!live) return;
        if (!r.hasPin) setNoPin(true);
        else if (r.pinLockedUntil !== null && r.pinLockedUntil > Date.now()) {
          setLockedUntil(r.pinLockedUntil);
          setError(SOCIAL_MSG.pinLocked);
        }
      })
      .catch(() => {
        // The check on Unlock still tells.
      });
    return () => {
      live = false;
    };
  }, []);

  // The lock-out ends by itself.
  useEffect(() => {
    if (lockedUntil === null) return;
    const t = setTimeout(
      () => {
        setLockedUntil(null);
        setError(null);
      },
      Math.max(0, lockedUntil - Date.now()),
    );
    return () => clearTimeout(t);
  }, [lockedUntil]);

  /** The server refused the PIN: why, said on the gate and in a toast. */
  const refused = (e: unknown) => {
    const code = e instanceof ApiError ? e.code : null;
    const message = e instanceof Error ? e.message : null;
    if (code === 'pin_locked') {
      setLockedUntil((e as ApiError).retryAt ?? Date.now() + 15 * 60_000);
      setError(message);
      notifyError('Too Many Attempts', message ?? undefined);
    } else if (code === 'no_pin') {
      setNoPin(true);
      setError(null);
    } else if (code === 'invalid_pin') {
      setError(message);
      notifyError('Invalid PIN', 'Please try again');
    } else {
      setError(message ?? 'Could not check the PIN');
      notifyError('Error', message ?? undefined);
    }
  };

  const lockedOut = lockedUntil !== null && lockedUntil > Date.now();
  return { error, lockedUntil, lockedOut, noPin, refused };
}

/**
 * 'Enter PIN': a 6-digit masked input checked by the server. Unlock is enabled only at
 * exactly 6 characters; a wrong PIN clears the input; after too many the gate says
 * until when it refuses. Cancel goes to /home, 'Forgot PIN?' to /privacy-settings.
 */
export function PinGate({
  onUnlocked,
  onCancel,
  title = 'Enter PIN',
}: {
  onUnlocked: () => void;
  /** Cancel's action: by default, back to the chat list. */
  onCancel?: () => void;
  title?: string;
}) {
  const navigate = useNavigate();
  const cancel = onCancel ?? (() => navigate('/home'));
  const [pin, setPin] = useState('');
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const { error, lockedUntil, lockedOut, noPin, refused } = usePinState();

  const submit = async () => {
    if (pin.length !== PIN_LENGTH || busy || lockedOut) return;
    setBusy(true);
    try {
      await verifyPin(pin);
      notify('Access Granted', 'PIN verified successfully');
      onUnlocked();
    } catch (e) {
      setPin('');
      refused(e);
      setTimeout(() => inputRef.current?.focus(), 0);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="mx-auto flex w-full max-w-sm flex-col items-center gap-5 py-8 text-center">
      <span className="flex size-16 items-center justify-center rounded-full bg-secondary text-primary">
        <LockKeyhole className="size-8" aria-hidden />
      </span>
      <h2 className="text-xl font-semibold">{title}</h2>
      {noPin ? (
        <>
          <p className="text-sm text-muted-foreground">
            {SOCIAL_MSG.noPin}.{' '}
            <Link to="/privacy-settings" className="font-medium text-primary underline-offset-4 hover:underline">
              Set a PIN
            </Link>
          </p>
          <Button type="button" variant="outline" className="w-full" onClick={cancel}>
            Cancel
          </Button>
        </>
      ) : (
        <form
          className="flex w-full flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Input
            ref={inputRef}
            autoFocus
            type="password"
            inputMode="numeric"
            autoComplete="off"
            aria-label="PIN"
            placeholder="••••••"
            maxLength={PIN_LENGTH}
            disabled={lockedOut}
            aria-invalid={error !== null || undefined}
            aria-describedby={error ? 'pin-error' : undefined}
            className="h-12 text-center text-2xl tracking-[0.5em]"
            value={pin}
            onChange={(e) => setPin(e.target.value.replace(/\D/g, '').slice(0, PIN_LENGTH))}
          />
          {error ? (
            <p id="pin-error" role="alert" className="text-sm text-destructive">
              {lockedOut && lockedUntil ? (
                <>
                  {SOCIAL_MSG.pinLocked} <span className="whitespace-nowrap">(until {clock(lockedUntil)})</span>
                </>
              ) : (
                error
              )}
            </p>
          ) : null}
          <div className="flex gap-3">
            <Button type="button" variant="outline" className="flex-1" onClick={cancel}>
              Cancel
            </Button>
            <Button type="submit" className="flex-1" disabled={pin.length !== PIN_LENGTH || busy || lockedOut}>
              {busy ? 'Checking...' : 'Unlock'}
            </Button>
          </div>
          <Link to="/privacy-settings" className="text-sm font-medium text-primary underline-offset-4 hover:underline">
            Forgot PIN?
          </Link>
        </form>
      )}
    </div>
  );
}
