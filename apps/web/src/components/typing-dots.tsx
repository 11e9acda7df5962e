import { TYPING_DOT_DELAYS_MS } from '@app/protocol';

/** Three bouncing dots (spec: animation delays 0, 150 and 300 ms) while the peer types. */
export function TypingDots({ handle }: { handle: string }) {
  return (
    <div
      role="status"
      aria-label={`${handle} is typing`}
      className="inline-flex items-center gap-1 rounded-2xl rounded-bl-sm bg-background px-3.5 py-3 shadow-sm"
    >
      {TYPING_DOT_DELAYS_MS.map((delay) => (
        <span
          key={delay}
          aria-hidden
          className="size-2 animate-bounce rounded-full bg-muted-foreground/70"
          style={{ animationDelay: `${delay}ms` }}
        />
      ))}
    </div>
  );
}
