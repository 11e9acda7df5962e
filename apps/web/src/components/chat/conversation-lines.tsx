/** The lines between a conversation's messages: the day, the unread ones, key changes, encryption. */
import { LockKeyhole, ShieldAlert } from 'lucide-react';
import { dayLabel } from '@/lib/day-label';

const PILL = 'rounded-full bg-background/90 px-3 py-1 text-xs text-muted-foreground shadow-sm';

/** 'Today', 'Yesterday', 'Monday', 'November 3' or 'November 3, 2023' above a day's first message. */
export function DayLine({ at, now }: { at: number; now: number }) {
  return (
    <div className="flex justify-center px-3 pb-1 pt-3">
      <p className={`${PILL} font-medium`}>{dayLabel(at, now)}</p>
    </div>
  );
}

/** '3 unread messages' above the first message that was unread when the chat was opened. */
export function UnreadLine({ count }: { count: number }) {
  return (
    <div className="flex items-center gap-3 px-3 pb-1 pt-3">
      <span className="h-px flex-1 bg-primary/30" aria-hidden />
      <p className="rounded-full bg-background px-3 py-1 text-xs font-medium text-primary shadow-sm">
        {count === 1 ? '1 unread message' : `${count} unread messages`}
      </p>
      <span className="h-px flex-1 bg-primary/30" aria-hidden />
    </div>
  );
}

/** "Messages above were sent before end-to-end encryption" (WhatsApp's and Signal's line). */
export function E2eeLine() {
  return (
    <div className="flex justify-center px-3 py-1.5">
      <p className={`flex items-center gap-1.5 ${PILL}`}>
        <LockKeyhole className="size-3.5 shrink-0" aria-hidden />
        Messages above were sent before end-to-end encryption
      </p>
    </div>
  );
}

/** "@bob's security code changed. Tap to compare." */
export function KeyChangeLine({ peerHandle, onVerify }: { peerHandle: string; onVerify(): void }) {
  return (
    <div className="flex justify-center px-3 py-1.5">
      <button
        type="button"
        onClick={onVerify}
        className={`flex items-center gap-1.5 ${PILL} hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring`}
      >
        <ShieldAlert className="size-3.5 shrink-0" aria-hidden />
        {peerHandle}&rsquo;s security code changed. Tap to compare.
      </button>
    </div>
  );
}
