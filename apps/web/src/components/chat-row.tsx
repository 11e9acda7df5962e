import { type ChatSummary, DELETED_ACCOUNT, DELETED_TEXT } from '@app/protocol';
import { Archive, Lock, MoreHorizontal } from 'lucide-react';
import { memo, useMemo } from 'react';
import { Link } from 'react-router';
import { usePresence } from '@/lib/chat-hooks';
import { formatListTime } from '@/lib/format-time';
import { cn } from '@/lib/utils';
import { ActionMenu, type MenuAction, useMenuAnchor } from './ui/action-menu';
import { notify } from './ui/toaster';
import { UserAvatar } from './user-avatar';
import { VerifiedBadge } from './verified-badge';

/** One chat of the list: avatar, handle, time and last message, unread count; a menu with Archive and Lock. */
export const ChatRow = memo(function ChatRow({ chat, now }: { chat: ChatSummary; now: number }) {
  const { peer } = chat;
  const handle = peer ? `@${peer.username}` : DELETED_ACCOUNT;
  const presence = usePresence(peer ? chat.peerId : null);
  const menu = useMenuAnchor();
  const actions = useMemo<MenuAction[]>(
    () => [
      { label: 'Archive', icon: Archive, onSelect: () => notify('Coming soon', 'Archived chats arrive in an update.') },
      { label: 'Lock', icon: Lock, onSelect: () => notify('Coming soon', 'Locked chats arrive in an update.') },
    ],
    [],
  );
  const unread = chat.unreadCount;

  return (
    <li className="group relative flex items-center" onContextMenu={menu.openAtPointer}>
      <Link
        to={`/chat/${chat.peerId}`}
        className="flex min-w-0 flex-1 items-center gap-3 py-3 pl-4 pr-1 transition-colors hover:bg-accent focus-visible:bg-accent focus-visible:outline-none"
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
            <span
              className={cn(
                'ml-auto shrink-0 text-xs',
                unread > 0 ? 'font-semibold text-primary' : 'text-muted-foreground',
              )}
            >
              {chat.lastMessage !== null ? formatListTime(chat.timestamp, now) : null}
            </span>
          </span>
          <span className="flex items-center gap-2">
            <span
              className={cn(
                'min-w-0 flex-1 truncate text-sm',
                unread > 0 ? 'font-medium text-foreground' : 'text-muted-foreground',
                chat.lastMessage === DELETED_TEXT && 'italic opacity-70',
              )}
            >
              {chat.lastMessage ?? ''}
            </span>
            {unread > 0 ? (
              <span className="flex h-5 min-w-5 shrink-0 items-center justify-center rounded-full bg-primary px-1.5 text-[11px] font-semibold leading-none text-primary-foreground">
                {unread > 99 ? '99+' : unread}
                <span className="sr-only"> unread</span>
              </span>
            ) : null}
          </span>
        </span>
      </Link>
      <button
        type="button"
        aria-label={`Chat options for ${handle}`}
        aria-haspopup="menu"
        aria-expanded={menu.anchor !== null}
        onClick={menu.openFromButton}
        className="mr-2 flex size-9 shrink-0 cursor-pointer items-center justify-center rounded-full text-muted-foreground transition-colors hover:bg-accent hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <MoreHorizontal className="size-5" aria-hidden />
      </button>
      <ActionMenu anchor={menu.anchor} actions={actions} label={`Chat options for ${handle}`} onClose={menu.close} />
    </li>
  );
});
