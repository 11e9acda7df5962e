import type { ChatSummary } from '@app/protocol';
import { MessageCircle } from 'lucide-react';
import type { ChatListView } from '@/client/conversations/conversation';
import type { ConnectionStatus } from '@/client/socket/chat-socket';
import { ChatRow } from '@/components/chat-row';
import { EmptyState as EmptyStateBase } from '@/components/empty-state';
import { ScreenMain } from '@/components/layout/screen-frame';
import { Spinner } from '@/components/spinner';
import { ListAnnouncer } from './list-announcer';
import { MessageResults } from './message-results';

function EmptyState({ title, text }: { title: string; text: string }) {
  return <EmptyStateBase icon={MessageCircle} title={title} text={text} />;
}

/** What the list shows when it has no rows: why. */
function NoRows(props: {
  list: ChatListView;
  connection: ConnectionStatus;
  searching: string | null;
  hidden: boolean;
}) {
  const { list } = props;
  const loading = list.status === 'loading' || list.status === 'idle';
  if (props.searching !== null)
    return <EmptyState title="No users found" text={`No chats match “${props.searching}”`} />;
  if (loading && props.connection === 'offline') {
    return <EmptyState title="You are offline" text="Your chats will appear when you are back online" />;
  }
  if (loading) {
    return (
      <div className="flex flex-1 items-center justify-center py-16">
        <Spinner />
      </div>
    );
  }
  if (list.status === 'error') {
    return <EmptyState title="Could not load your chats" text={list.error ?? 'Please try again.'} />;
  }
  if (props.hidden) return <EmptyState title="No other conversations" text="Your other chats are archived or locked" />;
  return <EmptyState title="No conversations yet" text="Search for users to start chatting" />;
}

/** The home screen's chats (those neither archived nor locked), filtered by the search. */
export function HomeChatList(props: {
  list: ChatListView;
  chats: readonly ChatSummary[];
  visible: readonly ChatSummary[];
  query: string;
  connection: ConnectionStatus;
  hidden: boolean;
  now: number;
}) {
  return (
    <ScreenMain className="flex flex-1 flex-col">
      <ListAnnouncer />
      {props.visible.length > 0 ? (
        <ul aria-label="Chats" className="divide-y divide-border">
          {props.visible.map((chat) => (
            <ChatRow key={chat.chatId} chat={chat} now={props.now} />
          ))}
        </ul>
      ) : (
        <NoRows
          list={props.list}
          connection={props.connection}
          searching={props.chats.length > 0 ? props.query.trim() : null}
          hidden={props.hidden}
        />
      )}
      <MessageResults query={props.query} now={props.now} />
    </ScreenMain>
  );
}
