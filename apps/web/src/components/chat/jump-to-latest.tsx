import { ArrowDown } from 'lucide-react';
import { useId } from 'react';

/**
 * The round button at the bottom right of the conversation while the reader is away from
 * the newest message, with how many new messages came meanwhile (its description).
 */
export function JumpToLatest({ count, onJump }: { count: number; onJump(): void }) {
  const describedBy = useId();
  return (
    <>
      <button
        type="button"
        onClick={onJump}
        aria-label="Jump to latest message"
        aria-describedby={count > 0 ? describedBy : undefined}
        title="Jump to latest message"
        className="absolute bottom-3 right-3 flex size-10 cursor-pointer items-center justify-center rounded-full border border-border bg-background text-muted-foreground shadow-md hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <ArrowDown className="size-5" aria-hidden />
        {count > 0 ? (
          <span
            aria-hidden
            className="absolute -top-1.5 -right-1 min-w-5 rounded-full bg-primary px-1.5 py-0.5 text-center text-[11px] font-semibold leading-none text-primary-foreground"
          >
            {count > 99 ? '99+' : count}
          </span>
        ) : null}
      </button>
      {count > 0 ? (
        <span id={describedBy} className="sr-only">
          {count === 1 ? '1 new message' : `${count} new messages`}
        </span>
      ) : null}
    </>
  );
}
