import { ShieldCheck } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from '@/components/ui/dialog';
import { useChatClient } from '@/lib/chat-hooks';
import { type SafetyNumber, safetyNumberOf } from '@/lib/keys/safety-number';

/** "Verify security code": the chat's safety number, to compare with the peer's screen. */
export function SafetyNumberDialog({ peerId, handle }: { peerId: string; handle: string }) {
  const client = useChatClient();
  const [open, setOpen] = useState(false);
  const [number, setNumber] = useState<SafetyNumber | null>(null);
  useEffect(() => {
    if (!open || !client) return;
    let live = true;
    setNumber(null);
    safetyNumberOf(client.keys, client.userId, peerId).then(
      (n) => live && setNumber(n),
      () => live && setNumber({ kind: 'nokeys' }),
    );
    return () => {
      live = false;
    };
  }, [open, client, peerId]);

  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="ghost" size="icon" aria-label="Verify security code" title="Verify security code">
          <ShieldCheck />
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Verify security code</DialogTitle>
          <DialogDescription>
            Messages with {handle} are end-to-end encrypted. Compare these numbers with the ones on {handle}&rsquo;s
            screen, in person or on a call: if they match, nobody can read or change your messages on the way.
          </DialogDescription>
        </DialogHeader>
        {number?.kind === 'number' ? (
          <p
            data-testid="security-code"
            className="grid grid-cols-4 gap-x-4 gap-y-2 rounded-xl bg-muted px-4 py-3 text-center font-mono text-lg tracking-wider"
          >
            {number.groups.map((g, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: twelve fixed groups, in order
              <span key={i}>{g}</span>
            ))}
          </p>
        ) : (
          <p className="text-sm text-muted-foreground">
            {number === null
              ? 'Loading…'
              : number.kind === 'peer-nokeys'
                ? `${handle} has not set up encryption yet.`
                : 'This browser does not hold your keys: sign in again to see the code.'}
          </p>
        )}
      </DialogContent>
    </Dialog>
  );
}
