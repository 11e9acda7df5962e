/**
 * The re-encryption of one's messages from before end-to-end encryption, after sign-in
 * (client/crypto/legacy-migration.ts): "Encrypting your earlier messages… N of M" while it
 * runs, then what came of it until dismissed. Nothing for an account that had none.
 */
import { ShieldCheck, X } from 'lucide-react';
import { useState } from 'react';
import { type LegacyProgress, NO_LEGACY } from '@/client/crypto/legacy-migration';
import { useClientValue } from '@/hooks/chat-hooks';

const n = (x: number) => x.toLocaleString('en-US');

/** What the line says. */
export function legacyStatusText(p: LegacyProgress): string {
  const done = Math.min(p.done, p.total);
  if (p.running) return `Encrypting your earlier messages… ${n(done)} of ${n(p.total)}`;
  if (p.waiting === 0) return `Your earlier messages are end-to-end encrypted now (${n(done)}).`;
  const some = done > 0 ? `${n(done)} of your earlier messages are end-to-end encrypted now. ` : '';
  const one = p.waiting === 1;
  return `${some}${n(p.waiting)} earlier message${one ? '' : 's'} ${one ? 'waits' : 'wait'} until the people you sent them to set up encryption.`;
}

export function LegacyStatus() {
  const p = useClientValue((c) => c.legacy.progress(), NO_LEGACY);
  const [dismissed, setDismissed] = useState(false);
  if (p.total === 0 || dismissed) return null;
  return (
    <div className="flex items-start gap-2 border-b px-4 py-2 text-xs text-muted-foreground">
      <ShieldCheck className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
      <div className="min-w-0 flex-1">
        <p role="status">{legacyStatusText(p)}</p>
        {p.running ? (
          <progress
            className="mt-1 h-1 w-full accent-primary"
            max={p.total}
            value={Math.min(p.done, p.total)}
            aria-hidden
          />
        ) : null}
      </div>
      {p.running ? null : (
        <button
          type="button"
          aria-label="Dismiss"
          onClick={() => setDismissed(true)}
          className="-m-1 flex cursor-pointer items-center justify-center rounded-full p-1 hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring pointer-coarse:size-11"
        >
          <X className="size-4" aria-hidden />
        </button>
      )}
    </div>
  );
}
