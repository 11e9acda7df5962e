/**
 * The emoji picker (frimousse, loaded with this chunk only when the composer's Emoji button
 * is pressed): search, skin tones, the browser's recently used row, and every emoji by
 * category, from the keyboard too (arrows in the list, Enter picks). The data comes from
 * Parley's own origin (/emojibase, apps/web/emoji-data.ts). Escape or a click elsewhere
 * closes it.
 */
import { EmojiPicker } from 'frimousse';
import { useEffect, useRef, useState } from 'react';
import { noteEmoji, recentEmoji } from '@/lib/emoji-recents';
import { cn } from '@/lib/utils';

const CELL =
  'flex size-9 cursor-pointer items-center justify-center rounded-lg text-2xl data-[active]:bg-accent hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring';

/**
 * frimousse's props for a grid row or cell (its role among them), with its index counted
 * from 1 as ARIA's aria-rowindex and aria-colindex are (frimousse counts from 0).
 */
function fromOne<P extends object>(props: P, index: 'aria-rowindex' | 'aria-colindex'): P {
  const i = (props as Record<string, unknown>)[index];
  return typeof i === 'number' ? { ...props, [index]: i + 1 } : props;
}

export default function EmojiPanel({
  userId,
  onPick,
  onClose,
  toggle,
  placement = 'composer',
}: {
  userId: string;
  onPick(emoji: string): void;
  onClose(): void;
  /** The button that opens and closes it (a click on it is not a click elsewhere). */
  toggle: HTMLElement | null;
  /** 'composer': above the composer; 'inline': where its parent puts it (the reaction picker). */
  placement?: 'composer' | 'inline';
}) {
  const [recent, setRecent] = useState(() => recentEmoji(userId));
  const panel = useRef<HTMLDivElement>(null);
  const pick = (emoji: string) => {
    setRecent(noteEmoji(userId, emoji));
    onPick(emoji);
  };

  useEffect(() => {
    const away = (e: PointerEvent) => {
      const t = e.target as Node;
      if (!panel.current?.contains(t) && !toggle?.contains(t)) onClose();
    };
    document.addEventListener('pointerdown', away, true);
    return () => document.removeEventListener('pointerdown', away, true);
  }, [onClose, toggle]);

  return (
    <div
      ref={panel}
      role="dialog"
      aria-label="Emoji"
      className={cn(
        'w-[min(21rem,calc(100vw-1rem))] overflow-hidden rounded-2xl bg-background',
        placement === 'composer' && 'absolute bottom-full left-2 z-40 mb-2 border border-border shadow-xl',
      )}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        onClose();
      }}
    >
      <EmojiPicker.Root
        emojibaseUrl="/emojibase"
        columns={8}
        onEmojiSelect={({ emoji }) => pick(emoji)}
        className="flex h-[22rem] flex-col"
      >
        <div className="flex items-center gap-2 p-2">
          <EmojiPicker.Search
            aria-label="Search emoji"
            placeholder="Search emoji"
            autoFocus
            className="h-9 min-w-0 flex-1 rounded-lg border border-input bg-muted px-3 text-sm outline-none focus-visible:border-focus-ring focus-visible:ring-1 focus-visible:ring-focus-ring"
          />
          <EmojiPicker.SkinToneSelector
            aria-label="Skin tone"
            className="flex size-9 shrink-0 cursor-pointer items-center justify-center rounded-lg text-xl hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          />
        </div>
        {recent.length > 0 ? (
          <fieldset className="border-b border-border px-2 pb-2">
            <legend className="px-1 pb-1 text-xs font-medium text-muted-foreground">Recently used</legend>
            <div className="flex flex-wrap">
              {recent.slice(0, 8).map((emoji) => (
                <button key={emoji} type="button" aria-label={emoji} className={CELL} onClick={() => pick(emoji)}>
                  {emoji}
                </button>
              ))}
            </div>
          </fieldset>
        ) : null}
        <EmojiPicker.Viewport className="relative flex-1 outline-none">
          <EmojiPicker.Loading className="absolute inset-0 flex items-center justify-center text-sm text-muted-foreground">
            Loading…
          </EmojiPicker.Loading>
          <EmojiPicker.Empty className="absolute inset-0 flex items-center justify-center text-sm text-muted-foreground">
            No emoji found
          </EmojiPicker.Empty>
          <EmojiPicker.List
            className="select-none pb-2"
            components={{
              CategoryHeader: ({ category, ...props }) => (
                <div {...props} className="bg-background px-3 pt-3 pb-1 text-xs font-medium text-muted-foreground">
                  {category.label}
                </div>
              ),
              Row: ({ children, ...props }) => (
                <div {...fromOne(props, 'aria-rowindex')} className="scroll-my-1 px-2">
                  {children}
                </div>
              ),
              Emoji: ({ emoji, ...props }) => (
                <button {...fromOne(props, 'aria-colindex')} className={cn(CELL)}>
                  {emoji.emoji}
                </button>
              ),
            }}
          />
        </EmojiPicker.Viewport>
      </EmojiPicker.Root>
    </div>
  );
}
