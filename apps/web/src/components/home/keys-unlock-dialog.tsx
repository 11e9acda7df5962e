/**
 * The banner's button and the dialog it opens to unlock keys with a password (keys-banner.tsx
 * loads it only when the banner shows).
 */
import type { Me } from '@app/protocol';
import { useState } from 'react';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from '@/components/ui/dialog';
import { UnlockButton } from './unlock-button';
import { type UnlockField, UnlockForm } from './unlock-form';

/** What the banner asks for, and how the dialog unlocks it. */
export interface Ask {
  banner: string;
  /** The banner's button and the form's submit (default 'Unlock'). */
  action?: string;
  success?: string;
  title: string;
  description: string;
  fields: UnlockField[];
  unlock: (user: Me, values: string[]) => Promise<unknown>;
}

export default function KeysUnlockDialog({ ask, user, done }: { ask: Ask; user: Me; done: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <UnlockButton label={ask.action ?? 'Unlock'} />
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{ask.title}</DialogTitle>
          <DialogDescription>{ask.description}</DialogDescription>
        </DialogHeader>
        <UnlockForm
          fields={ask.fields}
          {...(ask.success ? { success: ask.success } : {})}
          {...(ask.action ? { action: ask.action } : {})}
          unlock={async (values) => {
            await ask.unlock(user, values);
          }}
          done={() => {
            setOpen(false);
            done();
          }}
        />
      </DialogContent>
    </Dialog>
  );
}
