import { API, type Me, MSG, noContentSchema } from '@app/protocol';
import { useState } from 'react';
import { reauth } from '@/client/keys/account-keys';
import { wipeLocalData } from '@/client/local-data';
import { useLeaveSignedOut } from '@/hooks/use-sign-out';
import { ApiError, api } from '@/lib/api';
import { PasswordField } from './password-field';
import { Button } from './ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from './ui/dialog';
import { notify, notifyError } from './ui/toaster';

/**
 * The 'Delete Account' button and its confirmation; on success the user goes to /signup.
 * The password confirms it (the server checks the `auth` derived from it): a session alone,
 * a stolen cookie say, cannot delete an account.
 */
export function DeleteAccountDialog({ user }: { user: Me }) {
  const leave = useLeaveSignedOut();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [password, setPassword] = useState('');

  const onDelete = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!password) {
      notifyError('Failed to Delete Account', MSG.fillAll);
      return;
    }
    setBusy(true);
    try {
      const { auth } = await reauth(user, password);
      await api(noContentSchema, 'DELETE', API.deleteAccount, { auth });
    } catch (err) {
      setBusy(false);
      const wrong = err instanceof ApiError && err.code === 'wrong_password';
      notifyError('Failed to Delete Account', wrong ? err.message : MSG.deleteFailed);
      return;
    }
    setOpen(false);
    notify('Account Deleted');
    await wipeLocalData();
    leave('/signup');
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (busy) return;
        setOpen(next);
        if (!next) setPassword('');
      }}
    >
      <DialogTrigger asChild>
        <Button variant="destructive" className="w-full">
          Delete Account
        </Button>
      </DialogTrigger>
      <DialogContent hideClose>
        <DialogHeader>
          <DialogTitle>Are you absolutely sure?</DialogTitle>
          <DialogDescription>
            This action cannot be undone. This will permanently delete your account and remove your data from our
            servers.
          </DialogDescription>
        </DialogHeader>
        <form noValidate onSubmit={onDelete} className="grid gap-4">
          <PasswordField
            id="delete-account-password"
            label="Password"
            autoComplete="current-password"
            placeholder="Your password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="outline" disabled={busy}>
                Cancel
              </Button>
            </DialogClose>
            <Button type="submit" variant="destructive" disabled={busy}>
              {busy ? 'Deleting...' : 'Delete Account'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
