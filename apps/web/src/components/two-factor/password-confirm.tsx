/**
 * The password confirms a change to two-step verification (a way removed, new recovery
 * codes): the server checks the `auth` derived from it, so a session alone, a stolen cookie
 * say, cannot turn the second step off.
 */
import type { Me } from '@app/protocol';
import { useState } from 'react';
import { reauth } from '@/client/keys/account-keys';
import { PasswordField } from '@/components/password-field';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { notifyError } from '@/components/ui/toaster';

export interface Confirming {
  title: string;
  action: string;
  run: (auth: string) => Promise<void>;
}

export function PasswordConfirm({ user, what, onClose }: { user: Me; what: Confirming | null; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const close = () => {
    if (busy) return;
    setPassword('');
    onClose();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!what) return;
    setBusy(true);
    try {
      await what.run((await reauth(user, password)).auth);
      setPassword('');
      onClose();
    } catch (err) {
      notifyError(`Could not ${what.action.toLowerCase()}`, err instanceof Error ? err.message : undefined);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={what !== null} onOpenChange={(open) => (open ? null : close())}>
      <DialogContent>
        <form noValidate onSubmit={(e) => void submit(e)} className="grid gap-4">
          <DialogHeader>
            <DialogTitle>{what?.title}</DialogTitle>
            <DialogDescription>Enter your password to confirm.</DialogDescription>
          </DialogHeader>
          <PasswordField
            id="two-step-password"
            label="Password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={close} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy || !password}>
              {busy ? 'Checking...' : what?.action}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
