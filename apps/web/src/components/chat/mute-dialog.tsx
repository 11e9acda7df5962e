/**
 * "Mute notifications" for one chat, as the contact panel asks it: for 8 hours, a week or
 * always (protocol chat-flags.ts). A muted chat makes no sound, raises no browser
 * notification or push, and leaves the tab title's count; its messages still count as unread.
 */
import { useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import type { FlagAction } from '@/hooks/use-chat-flags';

const CHOICES: { action: FlagAction; label: string }[] = [
  { action: 'mute8h', label: '8 hours' },
  { action: 'mute1w', label: '1 week' },
  { action: 'muteAlways', label: 'Always' },
];

export function MuteDialog({
  handle,
  open,
  onOpenChange,
  onMute,
}: {
  handle: string;
  open: boolean;
  onOpenChange(open: boolean): void;
  onMute(action: FlagAction): void;
}) {
  const [choice, setChoice] = useState<FlagAction>('mute8h');
  const name = useId();
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Mute notifications</DialogTitle>
          <DialogDescription>
            No sound or notifications for messages from {handle}. They still show in the chat list.
          </DialogDescription>
        </DialogHeader>
        <fieldset className="grid gap-1">
          <legend className="sr-only">Mute for</legend>
          {CHOICES.map((c) => (
            <label
              key={c.action}
              className="flex cursor-pointer items-center gap-3 rounded-lg px-2 py-2 hover:bg-accent has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring"
            >
              <input
                type="radio"
                name={name}
                value={c.action}
                checked={choice === c.action}
                onChange={() => setChoice(c.action)}
                className="size-4 accent-primary"
              />
              {c.label}
            </label>
          ))}
        </fieldset>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button
            onClick={() => {
              onOpenChange(false);
              onMute(choice);
            }}
          >
            Mute
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
