import { type Me, MSG } from '@app/protocol';
import { useEffect, useState } from 'react';
import { createRecoveryKey, recoveryCreatedAt } from '@/client/keys/recovery';
import { FormSection } from '@/components/form-section';
import { PasswordField } from '@/components/password-field';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from '@/components/ui/dialog';
import { notify, notifyError } from '@/components/ui/toaster';
import { useSubmit } from '@/hooks/use-submit';
import { copyText } from '@/lib/copy-text';

/**
 * Account › Recovery Key (optional, docs/e2ee.md): the password confirms it, the key
 * is shown once, and after a password reset it unlocks the messages from before.
 */
export function RecoveryKeySection({ user }: { user: Me }) {
  const [createdAt, setCreatedAt] = useState<number | null | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  useEffect(() => {
    recoveryCreatedAt().then(setCreatedAt, () => setCreatedAt(null));
  }, []);

  const { busy, onSubmit } = useSubmit(async () => {
    if (!password) {
      notifyError('Error', MSG.fillAll);
      return;
    }
    try {
      setShown(await createRecoveryKey(user, password));
      setPassword('');
      setCreatedAt(Date.now());
    } catch (e) {
      notifyError('Could Not Create Recovery Key', e instanceof Error ? e.message : undefined);
    }
  });

  const close = (next: boolean) => {
    setOpen(next);
    if (!next) {
      setShown(null);
      setPassword('');
    }
  };
  const made = createdAt ? new Date(createdAt).toLocaleDateString() : null;
  return (
    <FormSection
      title="Recovery Key"
      description="If you reset your password, a recovery key unlocks your earlier messages. Keep it somewhere safe: anyone with it and your account can read them."
    >
      <p className="text-sm text-muted-foreground">
        {createdAt === undefined
          ? '\u00a0'
          : made
            ? `You made a recovery key on ${made}.`
            : 'You have no recovery key.'}
      </p>
      <Dialog open={open} onOpenChange={close}>
        <DialogTrigger asChild>
          <Button variant="outline" className="w-full sm:w-auto sm:justify-self-start">
            {made ? 'Replace Recovery Key' : 'Create Recovery Key'}
          </Button>
        </DialogTrigger>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{shown ? 'Your recovery key' : 'Create a recovery key'}</DialogTitle>
            <DialogDescription>
              {shown
                ? 'Write it down or store it in a password manager now: it is shown only once.'
                : made
                  ? 'A new key replaces the one you made before: the old one stops working.'
                  : 'Enter your password to make a key that unlocks your messages after a password reset.'}
            </DialogDescription>
          </DialogHeader>
          {shown ? (
            <>
              <p
                data-testid="recovery-key"
                className="flex flex-wrap justify-center rounded-xl bg-muted px-4 py-3 font-mono text-lg tracking-wider"
              >
                {/* Lines break between groups only. */}
                {shown.split('-').map((group, i, all) => (
                  <span key={group + String(i)} className="whitespace-nowrap">
                    {group}
                    {i < all.length - 1 ? '-' : ''}
                  </span>
                ))}
              </p>
              <DialogFooter>
                <Button
                  variant="outline"
                  onClick={() =>
                    copyText(shown).then(
                      () => notify('Copied'),
                      () => notifyError('Could Not Copy'),
                    )
                  }
                >
                  Copy
                </Button>
                <Button onClick={() => close(false)}>I saved it</Button>
              </DialogFooter>
            </>
          ) : (
            <form noValidate onSubmit={onSubmit} className="grid gap-4">
              <PasswordField
                id="recovery-password"
                label="Password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <DialogFooter>
                <Button type="submit" disabled={busy}>
                  {busy ? 'Creating...' : 'Create'}
                </Button>
              </DialogFooter>
            </form>
          )}
        </DialogContent>
      </Dialog>
    </FormSection>
  );
}
