/**
 * The composer's Emoji button: opens the picker (emoji-panel.tsx, its own chunk, loaded on
 * the first press so the chat screen's script stays as small as it was) above the
 * composer; each emoji picked goes in at the cursor.
 */
import { Smile } from 'lucide-react';
import { lazy, Suspense, useCallback, useRef, useState } from 'react';
import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';

const EmojiPanel = lazy(() => import('./emoji-panel'));

export function EmojiButton({
  userId,
  onPick,
  onClosed,
}: {
  userId: string;
  onPick(emoji: string): void;
  /** The picker closed: focus goes back to the composer. */
  onClosed(): void;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => {
    setOpen(false);
    onClosed();
  }, [onClosed]);
  return (
    <>
      <Button
        ref={button}
        type="button"
        variant="ghost"
        size="icon"
        aria-label="Emoji"
        aria-haspopup="dialog"
        aria-expanded={open}
        className="size-11 shrink-0 rounded-full text-muted-foreground hover:text-foreground"
        onClick={() => (open ? close() : setOpen(true))}
      >
        <Smile className="!size-6" aria-hidden />
      </Button>
      {open ? (
        <Suspense
          fallback={
            <div className="absolute bottom-full left-2 mb-2 flex h-20 w-40 items-center justify-center rounded-2xl border border-border bg-background shadow-xl">
              <Spinner />
            </div>
          }
        >
          <EmojiPanel userId={userId} onPick={onPick} onClose={close} toggle={button.current} />
        </Suspense>
      ) : null}
    </>
  );
}
