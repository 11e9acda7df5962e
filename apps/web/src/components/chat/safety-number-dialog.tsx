import { ShieldCheck } from 'lucide-react';
import { useEffect, useState } from 'react';
import { isVerified, type PeerTrust, setVerified } from '@/client/keys/peer-trust';
import { type SafetyNumber, safetyNumberOf } from '@/client/keys/safety-number';
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
import { useChatClient } from '@/hooks/chat-hooks';

/**
 * "Compare security code": the chat's safety number, to compare with the peer's screen,
 * and the "Mark as confirmed" switch (kept in this browser; a later change of the peer's
 * identity then blocks sending until the user looks again).
 */
export function SafetyNumberDialog({
  peerId,
  handle,
  trust,
  open,
  onOpenChange,
}: {
  peerId: string;
  handle: string;
  trust: PeerTrust | null;
  open: boolean;
  onOpenChange(open: boolean): void;
}) {
  const client = useChatClient();
  const [number, setNumber] = useState<SafetyNumber | null>(null);
  const [busy, setBusy] = useState(false);
  const verified = isVerified(trust);
  // Computed again when the identity changes while the dialog is open.
  const ik = trust?.ik;
  useEffect(() => {
    if (!open || !client || ik === undefined) return;
    let live = true;
    setNumber(null);
    safetyNumberOf(client.keys, client.userId, peerId).then(
      (n) => live && setNumber(n),
      () => live && setNumber({ kind: 'nokeys' }),
    );
    return () => {
      live = false;
    };
  }, [open, client, peerId, ik]);

  const mark = async (next: boolean) => {
    if (!client || number?.kind !== 'number') return;
    setBusy(true);
    try {
      await setVerified(client.keys, client.userId, peerId, next ? number.peerIk : null);
    } catch (e) {
      notifyError('Could Not Save', e instanceof Error ? e.message : 'Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Compare security code</DialogTitle>
          <DialogDescription>
            Messages with {handle} are end-to-end encrypted. Compare these numbers with the ones on {handle}&rsquo;s
            screen, side by side in person: if they match, nobody can read or change your messages on the way.
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
        {number?.kind === 'number' ? (
          <DialogFooter className="items-center gap-3 sm:justify-between">
            <p className="flex items-center gap-1.5 text-sm text-muted-foreground">
              {verified ? (
                <>
                  <ShieldCheck className="size-4 text-success" aria-hidden /> You confirmed {handle}&rsquo;s code.
                </>
              ) : (
                `${handle}’s code is not confirmed.`
              )}
            </p>
            <Button variant={verified ? 'outline' : 'default'} disabled={busy} onClick={() => mark(!verified)}>
              {verified ? 'Clear confirmation' : 'Mark as confirmed'}
            </Button>
          </DialogFooter>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
