/**
 * "React": a quick row of six emoji and a button for the full picker (emoji-panel.tsx,
 * its own chunk, loaded only when asked for), in a popup at the message's menu or its
 * hover button. Picking the emoji one has already reacted with takes it back (as the
 * chips under the bubble do). Arrow keys move along the row, Escape closes, and focus goes
 * back where it came from.
 */
import { Plus } from 'lucide-react';
import type * as React from 'react';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { UiMessage } from '@/client/conversations/conversation';
import { Spinner } from '@/components/spinner';
import { type MenuAnchor, usePopupPosition } from '@/components/ui/action-menu';
import { useChatClient, useReactions } from '@/hooks/chat-hooks';
import { useReact } from '@/hooks/use-react';
import { cn } from '@/lib/utils';

const EmojiPanel = lazy(() => import('../emoji/emoji-panel'));

/** The quick row (WhatsApp's six). */
export const QUICK_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🙏'] as const;

export function ReactionPicker({
  target,
  onClose,
}: {
  target: { message: UiMessage; anchor: MenuAnchor } | null;
  onClose(): void;
}) {
  if (!target) return null;
  return <PickerPopup key={target.message.id} message={target.message} anchor={target.anchor} onClose={onClose} />;
}

function PickerPopup({ message, anchor, onClose }: { message: UiMessage; anchor: MenuAnchor; onClose(): void }) {
  const client = useChatClient();
  const react = useReact();
  const ref = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(false);
  // Placed again (a copy of the anchor) when the full picker replaces the row.
  const [placedAt, setPlacedAt] = useState(anchor);
  const pos = usePopupPosition(placedAt, ref);
  const mine = useReactions(message).find((r) => r.userId === client?.userId)?.emoji ?? null;

  const close = (restoreFocus = true) => {
    onClose();
    if (restoreFocus && anchor.returnFocus?.isConnected) anchor.returnFocus.focus();
  };
  const pick = (emoji: string) => {
    close();
    react(message, emoji);
  };

  useEffect(() => {
    if (pos && !more) ref.current?.querySelector<HTMLElement>('[data-quick]')?.focus();
  }, [pos, more]);

  // A click elsewhere, or a new window size (the message moved), closes it.
  useEffect(() => {
    const away = (e: PointerEvent) => {
      if (!ref.current?.contains(e.target as Node)) onClose();
    };
    document.addEventListener('pointerdown', away, true);
    window.addEventListener('resize', onClose);
    return () => {
      document.removeEventListener('pointerdown', away, true);
      window.removeEventListener('resize', onClose);
    };
  }, [onClose]);

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
      return;
    }
    if (more || (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft')) return;
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[data-quick]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    e.preventDefault();
    items[(at + (e.key === 'ArrowRight' ? 1 : -1) + items.length) % items.length]?.focus();
  };

  return createPortal(
    <div
      ref={ref}
      role="dialog"
      aria-label="React to message"
      onKeyDown={onKeyDown}
      className="fixed z-50 rounded-2xl border border-border bg-background p-1 shadow-lg"
      style={pos ? { left: pos.left, top: pos.top } : { left: anchor.x, top: anchor.y, visibility: 'hidden' }}
    >
      {more && client ? (
        <Suspense
          fallback={
            <div className="flex h-20 w-40 items-center justify-center">
              <Spinner />
            </div>
          }
        >
          <EmojiPanel userId={client.userId} onPick={pick} onClose={() => close()} toggle={null} placement="inline" />
        </Suspense>
      ) : (
        <div className="flex items-center gap-0.5">
          {QUICK_REACTIONS.map((emoji) => (
            <button
              key={emoji}
              type="button"
              data-quick
              aria-label={`React with ${emoji}`}
              aria-pressed={mine === emoji}
              onClick={() => pick(emoji)}
              className={cn(
                'flex size-10 cursor-pointer items-center justify-center rounded-full font-emoji text-2xl transition-transform hover:scale-110 hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
                mine === emoji && 'bg-primary/15',
              )}
            >
              {emoji}
            </button>
          ))}
          <button
            type="button"
            data-quick
            aria-label="More reactions"
            onClick={() => {
              setMore(true);
              setPlacedAt({ ...anchor });
            }}
            className="flex size-10 cursor-pointer items-center justify-center rounded-full text-muted-foreground hover:bg-accent hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          >
            <Plus className="size-5" aria-hidden />
          </button>
        </div>
      )}
    </div>,
    anchor.returnFocus?.closest('main') ?? document.body,
  );
}
