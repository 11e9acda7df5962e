import type { UiMessage } from '@/client/conversations/conversation';
import { shownText } from '@/client/crypto/message-crypto';
import { useShown } from '@/hooks/chat-hooks';
import { formatDateTime } from '@/lib/format-time';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from './ui/dialog';

/** The message's text, its Sent time (or why it was not sent), and its Delivered and Read times when it has them. */
export function MessageInfoDialog({ message, onClose }: { message: UiMessage | null; onClose: () => void }) {
  return (
    <Dialog
      open={message !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Message info</DialogTitle>
          <DialogDescription className="sr-only">When this message was sent, delivered and read.</DialogDescription>
        </DialogHeader>
        {message ? (
          <>
            <p className="max-h-48 overflow-y-auto whitespace-pre-wrap rounded-xl bg-muted px-4 py-3 text-sm [overflow-wrap:anywhere]">
              <MessageInfoText message={message} />
            </p>
            <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
              {message.failed !== undefined ? (
                <>
                  <dt className="font-medium">Not sent</dt>
                  <dd className="text-destructive">{message.failed}</dd>
                </>
              ) : (
                <>
                  <dt className="font-medium">Sent</dt>
                  <dd className="text-muted-foreground">
                    {message.pending ? 'Waiting to be sent' : formatDateTime(message.timestamp)}
                  </dd>
                </>
              )}
              {message.deliveredAt !== null ? (
                <>
                  <dt className="font-medium">Delivered</dt>
                  <dd className="text-muted-foreground">{formatDateTime(message.deliveredAt)}</dd>
                </>
              ) : null}
              {message.readAt !== null ? (
                <>
                  <dt className="font-medium">Read</dt>
                  <dd className="text-muted-foreground">{formatDateTime(message.readAt)}</dd>
                </>
              ) : null}
            </dl>
          </>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

function MessageInfoText({ message }: { message: UiMessage }) {
  return <>{shownText(useShown(message))}</>;
}
