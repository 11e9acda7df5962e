import { Archive, ChevronRight, Lock } from 'lucide-react';
import type * as React from 'react';
import { Link } from 'react-router';

/** A row above the list leading to the archived or locked chats. */
function Shortcut({
  to,
  icon,
  label,
  children,
}: {
  to: string;
  icon: React.ReactNode;
  label: string;
  children?: React.ReactNode;
}) {
  return (
    <Link
      to={to}
      className="flex items-center gap-3 px-4 py-2.5 text-sm font-medium transition-colors hover:bg-accent focus-visible:bg-accent focus-visible:outline-none"
    >
      <span className="flex size-9 items-center justify-center text-primary">{icon}</span>
      <span className="flex-1">{label}</span>
      {children}
      <ChevronRight className="size-4 text-muted-foreground" aria-hidden />
    </Link>
  );
}

/** The ways to the archived and locked chats, when there are any. */
export function HiddenChatsNav({
  archivedCount,
  archivedUnread,
  lockedCount,
}: {
  archivedCount: number;
  archivedUnread: number;
  lockedCount: number;
}) {
  if (archivedCount === 0 && lockedCount === 0) return null;
  return (
    <nav aria-label="Hidden chats" className="flex flex-col divide-y divide-border border-b border-border">
      {archivedCount > 0 ? (
        <Shortcut to="/archive" icon={<Archive className="size-5" aria-hidden />} label="Archived">
          {archivedUnread > 0 ? (
            <span className="rounded-full bg-primary px-1.5 text-[11px] font-semibold leading-5 text-primary-foreground">
              {archivedUnread > 99 ? '99+' : archivedUnread}
              <span className="sr-only"> unread</span>
            </span>
          ) : (
            <span className="text-xs text-muted-foreground">{archivedCount}</span>
          )}
        </Shortcut>
      ) : null}
      {lockedCount > 0 ? <Shortcut to="/locked" icon={<Lock className="size-5" aria-hidden />} label="Locked" /> : null}
    </nav>
  );
}
