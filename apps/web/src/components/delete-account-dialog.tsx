import { API, MSG, noContentSchema } from '@app/protocol';
import { useState } from 'react';
import { useLeaveSignedOut } from '@/hooks/use-sign-out';
import { api } from '@/lib/api';
import { wipeLocalData } from '@/lib/local-data';
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

/** The 'Delete Account' button and its confirmation; on success the user goes to /signup. */
export function DeleteAccountDialog() {
  const leave = useLeaveSignedOut();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);

  const onDelete = async () => {
    setBusy(true);
    try {
      await api(noContentSchema, 'DELETE', API.deleteAccount, {});
    } catch {
      setBusy(false);
      notifyError('Failed to Delete Account', MSG.deleteFailed);
      return;
    }
    setOpen(false);
    notify('Account Deleted');
    await wipeLocalData();
    leave('/signup');
  };

  return (
    <Dialog open={open} onOpenChange={(next) => (busy ? undefined : setOpen(next))}>
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
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline" disabled={busy}>
              Cancel
            </Button>
          </DialogClose>
          <Button variant="destructive" disabled={busy} onClick={onDelete}>
            {busy ? 'Deleting...' : 'Delete Account'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
