import { type ChatSummary, DELETED_ACCOUNT, isMuted } from '@app/protocol';
import { Archive, BellOff, MoreHorizontal, Pin } from 'lucide-react';
import { memo } from 'react';
import { NavLink } from 'react-router';
import { usePresence } from '@/hooks/chat-hooks';
import { FLAG_ACTIONS, type FlagAction, markActionsFor, useChatFlags } from '@/hooks/use-chat-flags';
import { formatListTime } from '@/lib/format-time';
import { cn } from '@/lib/utils';
import { ChatRowPreview } from './chat-row-preview';
import { ActionMenu, type MenuAction, useMenuAnchor } from './ui/action-menu';
import { Button } from './ui/button';
import { UnreadBadge } from './unread-badge';
import { UserAvatar } from './user-avatar';
import { VerifiedBadge } from './verified-badge';

/**
 * Where the row is shown: the main list (menu: Pin, Mute, Mark as unread, Archive, Lock),
 * the archive (an Unarchive button; menu: Mute, Mark as unread, Unarchive, Lock) or the
 * locked chats behind the PIN (an Unlock button).
 */
export type ChatRowVariant = 'home' | 'archived' | 'locked';

function menuOf(variant: ChatRowVariant, chat: ChatSummary, now: number): FlagAction[] {
  if (variant === 'locked') return [];
  if (variant === 'archived') return [...markActionsFor(chat, now, false), 'unarchive', 'lock'];
  return [...markActionsFor(chat, now, true), 'archive', 'lock'];
}

/** The button shown on the row itself, next to the menu. */
const INLINE: Record<ChatRowVariant, FlagAction | null> = {
  home: null,
  archived: 'unarchive',
  locked: 'unlock',
};

/**
 * One chat of a list: avatar, handle, time and last message (or draft: ChatRowPreview),
 * unread count; the actions of its screen (see ChatRowVariant). `onPinExpired` is called when the server asks for
 * the PIN again (the grant of the locked chats ran out).
 */
export const ChatRow = memo(function ChatRow({
  chat,
  now,
  variant = 'home',
  linkState,
  onPinExpired,
}: {
  chat: ChatSummary;
  now: number;
  variant?: ChatRowVariant;
  /** Router state given to the chat screen (the locked chats pass `{ unlocked: true }`). */
  linkState?: unknown;
  onPinExpired?: () => void;
}) {
  const { peer } = chat;
  const handle = peer ? `@${peer.username}` : DELETED_ACCOUNT;
  const presence = usePresence(peer ? chat.peerId : null);
  const menu = useMenuAnchor();
  const { run, busy } = useChatFlags(chat.peerId, onPinExpired);
  const unread = chat.unreadCount;
  const muted = isMuted(chat, now);
  // Cheap to make on each render, and ActionMenu reads them only while it is open.
  const actions: MenuAction[] = menuOf(variant, chat, now).map((a) => ({
    label: FLAG_ACTIONS[a].label,
    icon: FLAG_ACTIONS[a].icon,
    onSelect: () => void run(a),
  }));
  const inline = INLINE[variant];
  const InlineIcon = inline ? FLAG_ACTIONS[inline].icon : Archive;
  const hasMenu = actions.length > 0;

  return (
    <li
      // The open chat's row is tinted whole (its link is aria-current), the ⋯ button's strip too.
      className="group relative flex items-center has-[a[aria-current=page]]:bg-accent"
      onContextMenu={hasMenu ? menu.openAtPointer : undefined}
    >
      {/* The open chat's row (beside it in the desktop layout) is marked: aria-current and a tint. */}
      <NavLink
        to={`/chat/${chat.peerId}`}
        state={linkState}
        className={({ isActive }) =>
          cn(
            'flex min-w-0 flex-1 items-center gap-3 py-3 pl-4 pr-1 transition-colors hover:bg-accent focus-visible:bg-accent focus-visible:outline-none',
            isActive && 'bg-accent',
          )
        }
      >
        <span className="relative">
          <UserAvatar name={peer?.username ?? DELETED_ACCOUNT} src={peer?.profilePic} />
          {presence?.online ? (
            <span
              role="img"
              aria-label="Online"
              title="Online"
              className="absolute bottom-0 right-0 size-3.5 rounded-full border-2 border-background bg-success"
            />
          ) : null}
        </span>
        <span className="flex min-w-0 flex-1 flex-col gap-0.5">
          <span className="flex items-center gap-2">
            <span className={cn('truncate font-semibold', !peer && 'text-muted-foreground')}>{handle}</span>
            {peer?.verified ? <VerifiedBadge /> : null}
            {chat.pinnedAt !== null ? (
              <Pin role="img" aria-label="Pinned" className="ml-auto size-3.5 shrink-0 text-muted-foreground" />
            ) : null}
            <span
              className={cn(
                'shrink-0 text-xs',
                chat.pinnedAt === null && 'ml-auto',
                unread > 0 && !muted ? 'font-semibold text-primary' : 'text-muted-foreground',
              )}
            >
              {chat.last !== null ? formatListTime(chat.timestamp, now) : null}
            </span>
          </span>
          <span className="flex items-center gap-2">
            <ChatRowPreview chat={chat} unread={unread > 0 || chat.markedUnread} />
            {muted ? <BellOff role="img" aria-label="Muted" className="size-4 shrink-0 text-muted-foreground" /> : null}
            <UnreadBadge count={unread} marked={chat.markedUnread} muted={muted} />
          </span>
        </span>
      </NavLink>
      {inline ? (
        <Button
          variant="outline"
          size="sm"
          title={FLAG_ACTIONS[inline].label}
          // A phone keeps the handle's room: the icon only next to the ⋯ button, else the word only.
          className={cn('ml-2 shrink-0', hasMenu ? 'max-sm:size-8 max-sm:px-0' : 'mr-3')}
          disabled={busy}
          onClick={() => void run(inline)}
        >
          <InlineIcon aria-hidden className={cn(!hasMenu && 'max-sm:hidden')} />
          <span className={cn(hasMenu && 'max-sm:sr-only')}>{FLAG_ACTIONS[inline].label}</span>
        </Button>
      ) : null}
      {hasMenu ? (
        <>
          <button
            type="button"
            aria-label={`Chat options for ${handle}`}
            aria-haspopup="menu"
            aria-expanded={menu.anchor !== null}
            onClick={menu.openFromButton}
            className={cn(
              'mr-2 flex size-9 shrink-0 cursor-pointer pointer-coarse:size-11 items-center justify-center rounded-full text-muted-foreground transition-colors hover:bg-accent hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
              inline && 'ml-1',
            )}
          >
            <MoreHorizontal className="size-5" aria-hidden />
          </button>
          <ActionMenu
            anchor={menu.anchor}
            actions={actions}
            label={`Chat options for ${handle}`}
            onClose={menu.close}
          />
        </>
      ) : null}
    </li>
  );
});
