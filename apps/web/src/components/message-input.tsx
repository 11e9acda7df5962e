import { replyExcerpt } from '@app/e2ee/message-content';
import { Pencil, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import type { PreparedFile } from '@/client/attachments/prepared-file';
import type { ChatClient } from '@/client/chat-client';
import type { UiMessage } from '@/client/conversations/conversation';
import { AttachButton } from '@/components/attachments/attach-button';
import { EmojiButton } from '@/components/emoji/emoji-button';
import { useDrafts, useDraftsLoaded } from '@/hooks/draft-hooks';
import { useAutoGrow } from '@/hooks/use-auto-grow';
import { useCoarsePointer } from '@/hooks/use-coarse-pointer';
import { COMPOSER_MAX_LINES, editsLastOnKey, lastEditable, lengthCounter, sendsOnKey } from '@/lib/composer-keys';
import { registerEditCancel } from '@/lib/edit-escape';
import { messageTextError } from '@/lib/message-text';
import { cn } from '@/lib/utils';
import { ReplyBar } from './chat/reply-quote';
import { SendOrRecord } from './chat/send-or-record';
import { Button } from './ui/button';
import { notifyError } from './ui/toaster';

/**
 * The composer: a text area growing with its text. Enter sends and Shift+Enter starts a
 * new line with a keyboard; on a touch screen Enter starts a new line and the send button
 * sends (blank text is ignored). Typing is reported to the peer, and the unsent text is the
 * chat's draft (client/drafts/drafts.ts), restored when the chat opens again. In edit mode the text
 * of the message being edited is changed instead (Escape or the cancel button leaves edit
 * mode, giving the draft back; so does Escape elsewhere in the chat, lib/edit-escape.ts), and ↑ in
 * the empty composer edits the user's last message, as the message menu's Edit does. It is
 * the element a chat screen focuses when it opens (data-autofocus, use-route-focus.ts). Near the length limit a counter shows; a text the protocol
 * refuses (messageTextSchema: too long, characters that cannot be stored) is not sent: its
 * message is shown under the input, and the text stays there to be corrected. While
 * replying, the quoted message shows above the input (Escape or its close button stops),
 * and the next message sent carries the reference, sealed with it. The clip button picks
 * files, and an image pasted into the input is taken as one (`onFiles`: the chat's attach dialog).
 */
export function MessageInput({
  client,
  peerId,
  editing,
  onEdit,
  onEditDone,
  replying = null,
  replySender = '',
  onReplyDone,
  onSent,
  onFiles,
  onVoice,
}: {
  client: ChatClient | null;
  peerId: string;
  editing: UiMessage | null;
  /** The message being answered (the reply bar above the input). */
  replying?: UiMessage | null;
  /** Who wrote it: 'You' or the peer's handle. */
  replySender?: string;
  onReplyDone?: () => void;
  /** Enters edit mode for a message (↑ in the empty composer). */
  onEdit?: (message: UiMessage) => void;
  onEditDone: () => void;
  onSent: () => void;
  /** Files to send (picked or pasted): the chat shows them for captions before they go. */
  onFiles?: (files: File[]) => void;
  /** A voice message recorded (the microphone, in place of Send while there is no text). */
  onVoice?: (file: PreparedFile) => void;
}) {
  const drafts = useDrafts();
  const draftsLoaded = useDraftsLoaded();
  const coarse = useCoarsePointer();
  const [text, setText] = useState(() => drafts?.get(peerId) ?? '');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const problemId = useId();
  const counterId = useId();
  const inputRef = useRef<HTMLTextAreaElement>(null);

  // Drafts read after the chat opened (a reload straight into it): restored unless typed over.
  const [restored, setRestored] = useState(draftsLoaded);
  if (draftsLoaded && !restored) {
    setRestored(true);
    if (text === '' && !editing) setText(drafts?.get(peerId) ?? '');
  }

  // Entering edit mode puts the message's text in the input; leaving it restores the draft.
  const [shownEditing, setShownEditing] = useState(editing);
  if (editing !== shownEditing) {
    setShownEditing(editing);
    setText(editing ? (client?.crypto.plainText(editing) ?? '') : (drafts?.get(peerId) ?? ''));
    setProblem(null);
  }
  const editDone = useRef(onEditDone);
  editDone.current = onEditDone;
  useEffect(() => {
    if (!editing) return;
    inputRef.current?.focus();
    return registerEditCancel(() => editDone.current());
  }, [editing]);
  // Replying: the input takes focus, and Escape anywhere in the chat stops (as it leaves edit mode).
  const replyDone = useRef(onReplyDone);
  replyDone.current = onReplyDone;
  useEffect(() => {
    if (!replying) return;
    inputRef.current?.focus();
    return registerEditCancel(() => replyDone.current?.());
  }, [replying]);

  // Leaving the chat writes its draft at once.
  useEffect(() => () => void drafts?.flush(peerId), [drafts, peerId]);

  useAutoGrow(inputRef, text, COMPOSER_MAX_LINES);

  const counter = lengthCounter(text.length);
  // Past the limit the protocol's message shows as the text is typed, not only on sending.
  const shownProblem = problem ?? (counter?.over ? messageTextError(text) : null);

  /** Saves an edit (an unchanged text just leaves edit mode). */
  const submitEdit = async (c: ChatClient, m: UiMessage, value: string) => {
    if (value === c.crypto.plainText(m)) {
      onEditDone();
      return;
    }
    setBusy(true);
    try {
      await c.editMessage(m, value);
      onEditDone();
    } catch (e) {
      notifyError('Edit Failed', e instanceof Error ? e.message : undefined);
    } finally {
      setBusy(false);
    }
  };

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
      await submitEdit(client, editing, value);
      return;
    }
    // The text stays the draft at rest until the outbox has stored it (a reload meanwhile
    // keeps it), and goes out once the draft let go of it.
    const reply = replying
      ? {
          msgId: replying.id,
          senderId: replying.senderId,
          excerpt: replyExcerpt(client.crypto.plainText(replying) ?? ''),
        }
      : undefined;
    const queued = client.queueMessage(
      peerId,
      reply ? { text: value, reply } : value,
      drafts ? (msgId, stored) => drafts.sending(peerId, value, msgId, stored) : undefined,
    );
    if ('problem' in queued) {
      setProblem(queued.problem);
      return;
    }
    setText('');
    if (reply) onReplyDone?.();
    onSent();
  };

  /** The composer's text changed (typed, or an emoji put in): kept as the chat's draft, typing told. */
  const change = (value: string) => {
    setText(value);
    setProblem(null);
    if (editing) return;
    drafts?.set(peerId, value);
    if (!client) return;
    if (value) client.noteTyping(peerId);
    else client.stopTyping(peerId);
  };
  // Where an emoji picked goes: at the cursor, and the next one after it.
  const caret = useRef(0);
  const insert = (emoji: string) => {
    const at = Math.min(caret.current, text.length);
    change(text.slice(0, at) + emoji + text.slice(at));
    caret.current = at + emoji.length;
  };

  const describedBy = [shownProblem !== null ? problemId : '', counter ? counterId : ''].join(' ').trim();

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
      {replying && !editing ? (
        <ReplyBar
          message={replying}
          sender={replySender}
          onCancel={() => {
            onReplyDone?.();
            inputRef.current?.focus();
          }}
        />
      ) : null}
      <form
        className="relative flex items-end gap-2 p-3"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {client ? (
          <EmojiButton
            userId={client.userId}
            onPick={insert}
            onClosed={() => {
              const el = inputRef.current;
              el?.focus();
              el?.setSelectionRange(caret.current, caret.current);
            }}
          />
        ) : null}
        <AttachButton onFiles={onFiles} off={editing !== null} />
        <textarea
          ref={inputRef}
          onPaste={pasteFiles(onFiles, editing !== null)}
          rows={1}
          value={text}
          data-autofocus
          aria-label={editing ? 'Edit message' : 'Message'}
          placeholder={editing ? 'Edit message...' : 'Type a message...'}
          autoComplete="off"
          enterKeyHint={coarse ? 'enter' : 'send'}
          aria-invalid={shownProblem !== null}
          aria-describedby={describedBy || undefined}
          className="block h-11 min-w-0 flex-1 resize-none overflow-y-hidden rounded-3xl border border-input bg-muted px-4 py-[9px] text-base leading-6 outline-none transition-colors placeholder:text-slate-400 focus-visible:border-focus-ring focus-visible:ring-1 focus-visible:ring-focus-ring md:py-[11px] md:text-sm md:leading-5"
          onChange={(e) => change(e.target.value)}
          onSelect={(e) => {
            caret.current = e.currentTarget.selectionStart;
          }}
          onKeyDown={(e) => {
            const native = { ...e, isComposing: e.nativeEvent.isComposing };
            if (e.key === 'Escape' && editing) {
              e.preventDefault();
              onEditDone();
            } else if (e.key === 'Escape' && replying) {
              e.preventDefault();
              onReplyDone?.();
            } else if (onEdit && client && editsLastOnKey(native, text, editing !== null)) {
              const last = lastEditable(client.getConversation(peerId).messages, client.userId);
              if (!last) return;
              e.preventDefault();
              onEdit(last);
            } else if (sendsOnKey(native, coarse)) {
              e.preventDefault();
              void submit();
            }
          }}
        />
        <SendOrRecord
          empty={text.trim().length === 0}
          editing={editing !== null}
          disabled={!client || busy || text.trim().length === 0}
          onVoice={onVoice}
        />
      </form>
      <ComposerNotes problem={shownProblem} problemId={problemId} counter={counter} counterId={counterId} />
    </div>
  );
}

/** Pasted files (an image copied) go to `onFiles` instead of the text. */
function pasteFiles(onFiles: ((files: File[]) => void) | undefined, editing: boolean) {
  if (!onFiles || editing) return undefined;
  return (e: React.ClipboardEvent) => {
    const files = [...e.clipboardData.files];
    if (files.length === 0) return;
    e.preventDefault();
    onFiles(files);
  };
}

/** Under the composer: why the text cannot be sent, and the length counter near the limit. */
function ComposerNotes({
  problem,
  problemId,
  counter,
  counterId,
}: {
  problem: string | null;
  problemId: string;
  counter: ReturnType<typeof lengthCounter>;
  counterId: string;
}) {
  if (!counter && problem === null) return null;
  return (
    <div className="-mt-1 flex items-start gap-3 px-5 pb-2 text-sm">
      {problem !== null ? (
        <p id={problemId} role="alert" className="min-w-0 flex-1 text-destructive">
          {problem}
        </p>
      ) : null}
      {counter ? (
        <p
          id={counterId}
          className={cn(
            'ml-auto shrink-0 tabular-nums',
            counter.over ? 'font-medium text-destructive' : 'text-muted-foreground',
          )}
        >
          <span className="sr-only">Characters: </span>
          {counter.text}
        </p>
      ) : null}
    </div>
  );
}
