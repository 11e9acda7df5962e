import { MESSAGE_MAX } from '@app/protocol';
import { Pencil, SendHorizontal, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import type { ChatClient } from '@/lib/chat-client';
import type { UiMessage } from '@/lib/conversation';
import { messageTextError } from '@/lib/message-text';
import { Button } from './ui/button';
import { notifyError } from './ui/toaster';

/**
 * The composer: Enter or the send button sends (blank text is ignored), typing is
 * reported to the peer, and in edit mode the text of the message being edited is
 * changed instead (Escape or the cancel button leaves edit mode). A text the protocol
 * refuses (messageTextSchema: too long, characters that cannot be stored) is not sent:
 * its message is shown under the input, and the text stays there to be corrected.
 */
export function MessageInput({
  client,
  peerId,
  editing,
  onEditDone,
  onSent,
}: {
  client: ChatClient | null;
  peerId: string;
  editing: UiMessage | null;
  onEditDone: () => void;
  onSent: () => void;
}) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const problemId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const draft = useRef('');

  // Entering edit mode puts the message's text in the input; leaving it restores the draft.
  const [shownEditing, setShownEditing] = useState(editing);
  if (editing !== shownEditing) {
    setShownEditing(editing);
    setText(editing ? (client?.crypto.plainText(editing) ?? '') : draft.current);
    setProblem(null);
  }
  useEffect(() => {
    if (editing) inputRef.current?.focus();
  }, [editing]);

  const submit = async () => {
    if (!client || busy) return;
    const value = text.trim();
    if (!value) return;
    const refused = messageTextError(value);
    if (refused !== null) {
      setProblem(refused);
      inputRef.current?.focus();
      return;
    }
    if (editing) {
      if (value === client.crypto.plainText(editing)) {
        onEditDone();
        return;
      }
      setBusy(true);
      try {
        await client.editMessage(editing, value);
        onEditDone();
      } catch (e) {
        notifyError('Edit Failed', e instanceof Error ? e.message : undefined);
      } finally {
        setBusy(false);
      }
      return;
    }
    const notQueued = client.sendMessage(peerId, value);
    if (notQueued !== null) {
      setProblem(notQueued);
      return;
    }
    draft.current = '';
    setText('');
    onSent();
  };

  return (
    <div className="border-t border-border bg-background">
      {editing ? (
        <div className="flex items-center gap-2 border-b border-border px-4 py-2 text-sm">
          <Pencil className="size-4 shrink-0 text-primary" aria-hidden />
          <div className="min-w-0 flex-1">
            <p className="font-medium text-primary">Editing message</p>
            <p className="truncate text-muted-foreground">{client?.crypto.plainText(editing) ?? ''}</p>
          </div>
          <Button variant="ghost" size="icon" aria-label="Cancel editing" onClick={onEditDone}>
            <X />
          </Button>
        </div>
      ) : null}
      <form
        className="flex items-center gap-2 p-3"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <input
          ref={inputRef}
          value={text}
          maxLength={MESSAGE_MAX}
          aria-label={editing ? 'Edit message' : 'Message'}
          placeholder={editing ? 'Edit message...' : 'Type a message...'}
          autoComplete="off"
          enterKeyHint="send"
          aria-invalid={problem !== null}
          aria-describedby={problem !== null ? problemId : undefined}
          className="h-11 min-w-0 flex-1 rounded-full border border-input bg-muted px-4 text-base outline-none transition-colors placeholder:text-slate-400 focus-visible:border-ring focus-visible:ring-2 focus-visible:ring-ring/40 md:text-sm"
          onChange={(e) => {
            const value = e.target.value;
            setText(value);
            setProblem(null);
            if (editing) return;
            draft.current = value;
            if (!client) return;
            if (value) client.noteTyping(peerId);
            else client.stopTyping(peerId);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && editing) {
              e.preventDefault();
              onEditDone();
            }
          }}
        />
        <Button
          type="submit"
          size="icon"
          aria-label="Send"
          className="size-11 shrink-0 rounded-full"
          disabled={!client || busy || text.trim().length === 0}
        >
          <SendHorizontal className="!size-5" aria-hidden />
        </Button>
      </form>
      {problem !== null ? (
        <p id={problemId} role="alert" className="-mt-1 px-5 pb-2 text-sm text-destructive">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
