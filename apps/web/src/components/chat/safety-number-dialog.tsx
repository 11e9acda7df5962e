import { ScanLine, ShieldCheck } from 'lucide-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { isVerified, type PeerTrust, setVerified } from '@/client/keys/peer-trust';
import { type SafetyNumber, safetyNumberOf } from '@/client/keys/safety-number';
import { SecurityQrCode } from '@/components/security/security-qr-code';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { notify, notifyError } from '@/components/ui/toaster';
import { useChatClient } from '@/hooks/chat-hooks';
import { qrMatches } from '@/lib/security-qr';

const QrScanner = lazy(() => import('@/components/security/qr-scanner'));

/**
 * "Compare security code": the chat's safety number, to compare with the peer's screen,
 * also as a QR code the peer's camera can read ("Scan code", as Signal does: a match marks
 * the code confirmed), and the "Mark as confirmed" switch (kept in this browser; a later
 * change of the peer's identity then blocks sending until the user looks again).
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
  const [scanning, setScanning] = useState(false);
  const [scanProblem, setScanProblem] = useState<string | null>(null);
  const verified = isVerified(trust);
  // Computed again when the identity changes while the dialog is open.
  const ik = trust?.ik;
  useEffect(() => {
    if (open) return;
    setScanning(false);
    setScanProblem(null);
  }, [open]);
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

  /** What the camera read: the same code confirms it; another says so; anything else is read past. */
  const scanned = (text: string): boolean => {
    if (number?.kind !== 'number') return false;
    const result = qrMatches(text, number.groups);
    if (result === 'not-a-code') return false;
    setScanning(false);
    if (result === 'mismatch') {
      setScanProblem(
        `This code does not match. Check that it is ${handle}’s code for this chat; if it is, someone may be between you.`,
      );
      return true;
    }
    setScanProblem(null);
    if (!verified) void mark(true);
    notify('Security Codes Match', `You confirmed ${handle}’s code`);
    return true;
  };

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Compare security code</DialogTitle>
          <DialogDescription>
            Messages with {handle} are end-to-end encrypted. Compare these numbers with the ones on {handle}&rsquo;s
            screen, side by side in person, or scan the code on their screen: if they match, nobody can read or change
            your messages on the way.
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
        ) : null}
        {number?.kind === 'number' ? (
          <div className="grid gap-3">
            {scanning ? (
              <Suspense
                fallback={
                  <div className="flex aspect-square items-center justify-center rounded-xl bg-muted">
                    <Spinner />
                  </div>
                }
              >
                <QrScanner onResult={scanned} />
              </Suspense>
            ) : (
              <SecurityQrCode groups={number.groups} />
            )}
            {scanProblem !== null ? (
              <p role="alert" className="text-sm text-destructive">
                {scanProblem}
              </p>
            ) : null}
            <Button variant="outline" className="mx-auto" onClick={() => setScanning((on) => !on)}>
              <ScanLine aria-hidden />
              {scanning ? 'Show my code' : 'Scan code'}
            </Button>
          </div>
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
