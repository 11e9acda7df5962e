import { memo } from 'react';
import { Link } from 'react-router';
import type { ContactUser } from '@/client/conversations/conversation';
import { usePresence } from '@/hooks/chat-hooks';
import { cn } from '@/lib/utils';
import { UserAvatar } from './user-avatar';
import { VerifiedBadge } from './verified-badge';

/** One user of the contacts list: picture or initial with an online dot, handle, badge and name. */
export const ContactRow = memo(function ContactRow({ user }: { user: ContactUser }) {
  const presence = usePresence(user.id);
  const online = presence ? presence.online : user.online;
  return (
    <Link
      to={`/chat/${user.id}`}
      className="flex items-center gap-3 px-4 py-3 transition-colors hover:bg-accent focus-visible:bg-accent focus-visible:outline-none"
    >
      <span className="relative">
        <UserAvatar name={user.username} src={user.profilePic} />
        <span
          role="img"
          aria-label={online ? 'Online' : 'Offline'}
          title={online ? 'Online' : 'Offline'}
          className={cn(
            'absolute bottom-0 right-0 size-3.5 rounded-full border-2 border-background',
            online ? 'bg-success' : 'bg-slate-300 dark:bg-slate-600',
          )}
        />
      </span>
      <span className="flex min-w-0 flex-1 flex-col">
        <span className="flex items-center gap-1.5">
          <span className="truncate font-semibold">@{user.username}</span>
          {user.verified ? <VerifiedBadge /> : null}
        </span>
        <span className="truncate text-sm text-muted-foreground">{user.name}</span>
      </span>
    </Link>
  );
});
