import { cn } from '@/lib/utils';

/**
 * A chat row's unread mark: the count of unread messages ("99+" past 99), or a dot when the
 * user marked the chat unread; quiet (grey) when the chat is muted. Nothing when neither.
 */
export function UnreadBadge({ count, marked, muted }: { count: number; marked: boolean; muted: boolean }) {
  if (count === 0 && !marked) return null;
  return (
    <span
      className={cn(
        'flex shrink-0 items-center justify-center rounded-full text-[11px] font-semibold leading-none',
        // A count in a pill; marked unread, a dot.
        count > 0 ? 'h-5 min-w-5 px-1.5' : 'mr-1 size-3',
        muted ? 'bg-muted-foreground text-background' : 'bg-primary text-primary-foreground',
      )}
    >
      {count > 0 ? (
        <>
          {count > 99 ? '99+' : count}
          <span className="sr-only"> unread</span>
        </>
      ) : (
        <span className="sr-only">Marked unread</span>
      )}
    </span>
  );
}
