import type { Access } from '@app/protocol';
import { MailQuestion, ShieldAlert } from 'lucide-react';
import type { PreparedFile } from '@/client/attachments/prepared-file';
import type { ChatClient } from '@/client/chat-client';
import type { UiMessage } from '@/client/conversations/conversation';
import { shownText } from '@/client/crypto/message-crypto';
import { MessageInput } from '@/components/message-input';
import { Button } from '@/components/ui/button';
import { useRequestText } from '@/hooks/chat-hooks';
import { formatListTime } from '@/lib/format-time';

/** In place of the composer while the user's message request waits for the peer. */
function RequestPending({
  handle,
  peerId,
  request,
}: {
  handle: string;
  peerId: string;
  request: Extract<Access, { state: 'pending' }>;
}) {
  const message = shownText(useRequestText(request, peerId, true));
  const { timestamp } = request;
  return (
    <section aria-label="Message request" className="border-t border-border bg-background p-4">
      <div className="rounded-xl border border-border bg-secondary/50 p-3 text-sm">
        <p className="flex items-center gap-2 font-semibold">
          <MailQuestion className="size-4 text-primary" aria-hidden />
          Request pending
          <span className="ml-auto text-xs font-normal text-muted-foreground">
            {formatListTime(timestamp, Date.now())}
          </span>
        </p>
        <p className="mt-1 line-clamp-3 break-words text-muted-foreground">“{message}”</p>
        <p className="mt-2 text-muted-foreground">You can message {handle || 'them'} once they accept your request.</p>
      </div>
    </section>
  );
}

/** In place of the composer when a confirmed peer's security code changed (Signal's behaviour). */
function CodeChanged({ handle, onVerify, onAccept }: { handle: string; onVerify(): void; onAccept(): void }) {
  return (
    <section aria-label="Security code changed" className="border-t border-border bg-background p-4">
      <p className="flex items-start gap-2 text-sm">
        <ShieldAlert className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
        <span>
          {handle}&rsquo;s security code changed since you confirmed it. Compare the new code with {handle}, or accept
          it to keep chatting.
        </span>
      </p>
      <div className="mt-3 flex justify-end gap-2">
        <Button variant="outline" onClick={onVerify}>
          Compare
        </Button>
        <Button onClick={onAccept}>Accept</Button>
      </div>
    </section>
  );
}

/**
 * The bottom of a chat: the composer, or why there is none (the peer's account is gone,
 * the user's request waits, or a verified peer's security code changed), with a note when
 * the first message will be a request.
 */
export function ChatComposer(props: {
  client: ChatClient | null;
  peerId: string;
  peerGone: boolean;
  handle: string;
  access: Access | undefined;
  editing: UiMessage | null;
  /** The message being answered, and who wrote it ('You' or the handle). */
  replying: UiMessage | null;
  replySender: string;
  onReplyDone(): void;
  /** A verified peer's identity changed: sending waits for Verify or Accept. */
  codeChanged: boolean;
  onVerify(): void;
  onAcceptCode(): void;
  /** Edit mode for a message: ↑ in the empty composer edits the user's last one. */
  onEdit?(message: UiMessage): void;
  onEditDone(): void;
  onSent(): void;
  /** Files picked or pasted, for the attach dialog. */
  onFiles(files: File[]): void;
  /** A voice message recorded: sent at once. */
  onVoice(file: PreparedFile): void;
}) {
  const { access, handle } = props;
  if (props.peerGone) {
    return (
      <p className="border-t border-border bg-background p-4 text-center text-sm text-muted-foreground">
        This account no longer exists. You cannot reply to this conversation.
      </p>
    );
  }
  if (props.codeChanged) {
    return <CodeChanged handle={handle} onVerify={props.onVerify} onAccept={props.onAcceptCode} />;
  }
  if (access?.state === 'pending') {
    return <RequestPending handle={handle} peerId={props.peerId} request={access} />;
  }
  return (
    <>
      {access?.state === 'request' ? (
        <p className="flex items-start gap-2 border-t border-border bg-secondary/60 px-4 py-2.5 text-sm text-secondary-foreground">
          <MailQuestion className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden />
          <span>
            {handle} accepts messages from contacts only. Your first message will be sent as a message request.
          </span>
        </p>
      ) : null}
      <MessageInput
        key={props.peerId}
        client={props.client}
        peerId={props.peerId}
        editing={props.editing}
        onEdit={props.onEdit}
        onEditDone={props.onEditDone}
        replying={props.replying}
        replySender={props.replySender}
        onReplyDone={props.onReplyDone}
        onSent={props.onSent}
        onFiles={props.onFiles}
        onVoice={props.onVoice}
      />
    </>
  );
}
