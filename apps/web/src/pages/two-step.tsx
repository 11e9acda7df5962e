/**
 * "Two-step verification" (Settings): the account's authenticator app, passkeys and recovery
 * codes. Setting up the first way shows a set of recovery codes; removing a way, or a new set
 * of codes, takes the password. With the operator requiring it, the last way stays.
 */
import type { Me, TwoFactorStatus } from '@app/protocol';
import { KeyRound, ShieldCheck, Smartphone } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { LoadingOrFailed } from '@/components/loading-or-failed';
import { PageShell } from '@/components/page-shell';
import { type Confirming, PasswordConfirm } from '@/components/two-factor/password-confirm';
import { RecoveryCodes } from '@/components/two-factor/recovery-codes';
import { TotpSetup } from '@/components/two-factor/totp-setup';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { notify, notifyError } from '@/components/ui/toaster';
import { useSession } from '@/hooks/use-session';
import { formatDayAndTime } from '@/lib/format-time';
import {
  addPasskey,
  confirmTotp,
  loadTwoFactor,
  newRecoveryCodes,
  removePasskey,
  removeTotp,
  startTotp,
} from '@/lib/two-factor-api';

type Shown =
  | { kind: 'totp'; setup: { secret: string; uri: string }; auth: string }
  | { kind: 'codes'; codes: string[] }
  | null;

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section aria-label={title} className="grid gap-3 rounded-2xl border border-border p-4">
      <h2 className="font-semibold">{title}</h2>
      {children}
    </section>
  );
}

export default function TwoStepPage() {
  const { user } = useSession();
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<Shown>(null);
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const [busy, setBusy] = useState(false);
  const [passkeyName, setPasskeyName] = useState('');

  const load = useCallback(() => {
    setError(null);
    loadTwoFactor().then(setStatus, (e: unknown) => setError(e instanceof Error ? e.message : 'Could not load'));
  }, []);
  useEffect(() => load(), [load]);

  const act = async (title: string, work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (e) {
      notifyError(title, e instanceof Error ? e.message : undefined);
    } finally {
      setBusy(false);
      load();
    }
  };
  const codesOrDone = (codes: string[] | null, what: string) => {
    if (codes) setShown({ kind: 'codes', codes });
    else setShown(null);
    notify('Two-Step Verification', what);
  };

  if (!user) return null;
  const on = status ? status.totp || status.passkeys.length > 0 : false;
  const last = status ? (status.totp ? 1 : 0) + status.passkeys.length === 1 && status.required : false;
  return (
    <PageShell title="Two-step verification" back="/settings" className="grid content-start gap-6">
      <p className="text-sm text-muted-foreground">
        After your password, Parley asks for a second proof that it is you: a code from an app on your phone, or a
        passkey. Your password alone then cannot sign anyone in. It does not change your encryption: your password still
        protects your keys.
      </p>
      {status ? (
        <>
          <p role="status" className="flex items-center gap-2 font-medium">
            <ShieldCheck className={on ? 'size-5 text-success' : 'size-5 text-muted-foreground'} aria-hidden />
            {on ? 'On' : 'Off'}
            {status.required ? (
              <span className="text-sm font-normal text-muted-foreground">(required by your administrator)</span>
            ) : null}
          </p>
          <Section title="Authenticator app">
            {status.totp ? (
              <div className="flex items-center justify-between gap-3">
                <span className="flex items-center gap-2 text-sm">
                  <Smartphone className="size-4" aria-hidden /> Set up
                </span>
                <Button
                  variant="outline"
                  size="sm"
                  disabled={busy || (last && status.totp)}
                  onClick={() =>
                    setConfirming({
                      title: 'Remove the authenticator app',
                      action: 'Remove',
                      run: (auth) => removeTotp(auth).then(load),
                    })
                  }
                >
                  Remove
                </Button>
              </div>
            ) : (
              <Button
                className="justify-self-start"
                disabled={busy}
                onClick={() =>
                  setConfirming({
                    title: 'Set up an authenticator app',
                    action: 'Continue',
                    run: async (auth) => setShown({ kind: 'totp', setup: await startTotp(), auth }),
                  })
                }
              >
                Set up an authenticator app
              </Button>
            )}
          </Section>
          <Section title="Passkeys">
            {status.passkeys.length ? (
              <ul aria-label="Passkeys" className="divide-y divide-border">
                {status.passkeys.map((p) => (
                  <li key={p.id} className="flex items-center gap-3 py-2">
                    <KeyRound className="size-4 shrink-0" aria-hidden />
                    <span className="min-w-0 flex-1">
                      <span className="block truncate font-medium">{p.name}</span>
                      <span className="block text-xs text-muted-foreground">
                        Added {formatDayAndTime(p.createdAt, Date.now())}
                        {p.lastUsedAt ? ` · last used ${formatDayAndTime(p.lastUsedAt, Date.now())}` : ''}
                      </span>
                    </span>
                    <Button
                      variant="outline"
                      size="sm"
                      aria-label={`Remove ${p.name}`}
                      disabled={busy || last}
                      onClick={() =>
                        setConfirming({
                          title: `Remove ${p.name}`,
                          action: 'Remove',
                          run: (auth) => removePasskey(p.id, auth).then(load),
                        })
                      }
                    >
                      Remove
                    </Button>
                  </li>
                ))}
              </ul>
            ) : null}
            <form
              noValidate
              className="flex flex-wrap items-end gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                setConfirming({
                  title: 'Add a passkey',
                  action: 'Continue',
                  run: (auth) =>
                    act('Could not add the passkey', async () => {
                      codesOrDone(await addPasskey(passkeyName.trim() || 'Passkey', auth), 'Passkey added');
                      setPasskeyName('');
                    }),
                });
              }}
            >
              <div className="min-w-40 flex-1">
                <FormField
                  id="passkey-name"
                  label="Passkey name"
                  placeholder="Laptop, phone, security key…"
                  value={passkeyName}
                  onChange={(e) => setPasskeyName(e.target.value)}
                />
              </div>
              <Button type="submit" disabled={busy}>
                Add a passkey
              </Button>
            </form>
          </Section>
          {on ? (
            <Section title="Recovery codes">
              <p className="text-sm text-muted-foreground">
                {status.recoveryCodesLeft} of 10 left. Each signs you in once if you lose your phone or passkey.
              </p>
              <Button
                variant="outline"
                className="justify-self-start"
                disabled={busy}
                onClick={() =>
                  setConfirming({
                    title: 'New recovery codes',
                    action: 'Get New Codes',
                    run: async (auth) => setShown({ kind: 'codes', codes: await newRecoveryCodes(auth) }),
                  })
                }
              >
                Get new codes
              </Button>
            </Section>
          ) : null}
        </>
      ) : (
        <LoadingOrFailed error={error} onRetry={load} />
      )}
      <SetupDialog
        user={user}
        shown={shown}
        busy={busy}
        onClose={() => setShown(null)}
        onCode={(code) =>
          void act('Verification Failed', async () =>
            codesOrDone(await confirmTotp(code, shown?.kind === 'totp' ? shown.auth : ''), 'Authenticator app set up'),
          )
        }
      />
      <PasswordConfirm user={user} what={confirming} onClose={() => setConfirming(null)} />
    </PageShell>
  );
}

function SetupDialog(props: {
  user: Me;
  shown: Shown;
  busy: boolean;
  onClose: () => void;
  onCode: (code: string) => void;
}) {
  const { shown } = props;
  return (
    <Dialog open={shown !== null} onOpenChange={(open) => (open ? null : props.onClose())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{shown?.kind === 'codes' ? 'Your recovery codes' : 'Set up an authenticator app'}</DialogTitle>
          <DialogDescription className="sr-only">
            {shown?.kind === 'codes' ? 'Save these codes.' : 'Scan the code and enter the one the app shows.'}
          </DialogDescription>
        </DialogHeader>
        {shown?.kind === 'totp' ? <TotpSetup setup={shown.setup} busy={props.busy} onCode={props.onCode} /> : null}
        {shown?.kind === 'codes' ? <RecoveryCodes codes={shown.codes} onDone={props.onClose} /> : null}
      </DialogContent>
    </Dialog>
  );
}
