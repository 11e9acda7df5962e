import type { ChatSummary } from '@app/protocol';
import type { LucideIcon } from 'lucide-react';
import { useChatList, useConnectionStatus } from '@/hooks/chat-hooks';
import { useMinuteClock } from '@/hooks/use-minute-clock';
import { ChatRow, type ChatRowVariant } from './chat-row';
import { EmptyState } from './empty-state';
import { Spinner } from './spinner';

/**
 * The chats of /archive or /locked (newest first, as the client keeps them), with the
 * list's loading, offline, error and empty states.
 */
export function HiddenChatList({
  label,
  variant,
  filter,
  empty,
  linkState,
  onPinExpired,
}: {
  /** The list's accessible name. */
  label: string;
  variant: ChatRowVariant;
  filter: (chat: ChatSummary) => boolean;
  empty: { icon: LucideIcon; title: string; text: string };
  linkState?: unknown;
  onPinExpired?: () => void;
}) {
  const list = useChatList();
  const connection = useConnectionStatus();
  const now = useMinuteClock();
  const chats = list.chats.filter(filter);
  const loading = list.status === 'loading' || list.status === 'idle';

  if (chats.length > 0) {
    return (
      <ul aria-label={label} className="divide-y divide-border">
        {chats.map((chat) => (
          <ChatRow
            key={chat.chatId}
            chat={chat}
            now={now}
            variant={variant}
            linkState={linkState}
            onPinExpired={onPinExpired}
          />
        ))}
      </ul>
    );
  }
  if (loading && connection === 'offline') {
    return (
      <EmptyState icon={empty.icon} title="You are offline" text="Your chats will appear when you are back online" />
    );
  }
  if (loading) {
    return (
      <div className="flex flex-1 items-center justify-center py-16">
        <Spinner />
      </div>
    );
  }
  if (list.status === 'error') {
    return <EmptyState icon={empty.icon} title="Could not load your chats" text={list.error ?? 'Please try again.'} />;
  }
  return <EmptyState {...empty} />;
}
