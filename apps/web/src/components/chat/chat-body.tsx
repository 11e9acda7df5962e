import type { Access } from '@app/protocol';
import type { ConversationView, UiMessage } from '@/client/conversations/conversation';
import { MessageList } from '@/components/message-list';
import { PinGate } from '@/components/pin-gate';
import { Spinner } from '@/components/spinner';
import type { MenuAnchor } from '@/components/ui/action-menu';
import { useChatList, useChatSummary } from '@/hooks/chat-hooks';
import type { PeerPaging } from '@/hooks/use-peer-paging';

/** The middle of a chat: the PIN gate of a locked chat, the messages, the load's error, or a spinner. */
export function ChatBody(props: {
  gated: boolean;
  onUnlocked(): void;
  view: ConversationView;
  peerId: string;
  me: string;
  handle: string;
  access: Access | undefined;
  typing: boolean;
  sentCount: number;
  keyChanges: readonly number[];
  onVerify(): void;
  paging: PeerPaging;
  onMenu(message: UiMessage, anchor: MenuAnchor): void;
  onReply(message: UiMessage): void;
  onReact(message: UiMessage, anchor: MenuAnchor): void;
  /** A message to go to (a search result). */
  jump: { msgId: string } | null;
}) {
  const { view, handle } = props;
  const summary = useChatSummary(props.peerId);
  const listReady = useChatList().status === 'ready';
  // A chat with no summary once the list is loaded has nothing unread.
  const unreadCount = summary ? summary.unreadCount : listReady ? 0 : undefined;
  if (props.gated) {
    return (
      <div className="flex flex-1 flex-col justify-center overflow-y-auto bg-background px-4">
        <PinGate title="This chat is locked. Enter PIN" onUnlocked={props.onUnlocked} />
      </div>
    );
  }
  if (view.status === 'ready' || view.messages.length > 0) {
    return (
      <MessageList
        key={props.peerId}
        view={view}
        me={props.me}
        peerId={props.peerId}
        peerHandle={handle || 'them'}
        unreadCount={unreadCount}
        emptyText={
          props.access?.state === 'pending' ? `Waiting for ${handle || 'them'} to accept your request` : undefined
        }
        typing={props.typing}
        sentCount={props.sentCount}
        keyChanges={props.keyChanges}
        onVerify={props.onVerify}
        paging={props.paging}
        onMenu={props.onMenu}
        onReply={props.onReply}
        onReact={props.onReact}
        jump={props.jump}
      />
    );
  }
  if (view.status === 'error') {
    return (
      <div className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
        <p className="text-sm text-muted-foreground">{view.error ?? 'Could not load the messages.'}</p>
      </div>
    );
  }
  return (
    <div className="flex flex-1 items-center justify-center">
      <Spinner />
    </div>
  );
}
