/** One search result: who wrote it and when, and the words around the match (the match marked). */
import type { SearchHit } from '@/client/search/search-index';
import { snippet } from '@/client/search/search-index';
import { formatListTime } from '@/lib/format-time';

export function SearchHitText({ hit, sender, now }: { hit: SearchHit; sender: string; now: number }) {
  const s = snippet(hit);
  return (
    <span className="flex min-w-0 flex-1 flex-col text-left">
      <span className="flex items-baseline gap-2">
        <span className="min-w-0 flex-1 truncate text-sm font-medium">{sender}</span>
        <time
          className="shrink-0 text-xs text-muted-foreground"
          dateTime={new Date(hit.message.timestamp).toISOString()}
        >
          {formatListTime(hit.message.timestamp, now)}
        </time>
      </span>
      <span className="line-clamp-2 break-words text-sm text-muted-foreground">
        {s.before}
        {s.match ? <mark className="rounded-sm bg-primary/20 px-0.5 text-foreground">{s.match}</mark> : null}
        {s.after}
      </span>
    </span>
  );
}
