/**
 * "Forward message": a chooser of chats, searchable by username, for up to
 * FORWARD_MAX of them at once (WhatsApp's limit against chain messages). The text, or the
 * photo or file with its caption, is sealed anew for each chat, as any message
 * (MessageSender.forward), marked "Forwarded" inside the seal; a reply's reference stays
 * behind (it names a message of another chat). Locked chats
 * are not offered (they stay behind their PIN), nor deleted accounts.
 */
import type { ChatSummary, PublicUser } from '@app/protocol';
import { Search } from 'lucide-react';
import { useId, useMemo, useState } from 'react';
import type { UiMessage } from '@/client/conversations/conversation';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { notify, notifyError } from '@/components/ui/toaster';
import { UserAvatar } from '@/components/user-avatar';
import { useChatClient, useChatList } from '@/hooks/chat-hooks';
import { useAttachmentMaxBytes } from '@/hooks/use-public-settings';
import { matchesUsername } from '@/lib/chat-match';

export const FORWARD_MAX = 5;

/** One chat to choose: its checkbox, avatar and handle (disabled once FORWARD_MAX are chosen). */
function ChatChoice(props: { peer: PublicUser; on: boolean; full: boolean; onChange(on: boolean): void }) {
  const id = useId();
  const { peer, on } = props;
  return (
    <li className="flex items-center gap-3 rounded-lg px-2 py-2 hover:bg-accent has-[:disabled]:opacity-60">
      <Checkbox id={id} checked={on} disabled={!on && props.full} onCheckedChange={(v) => props.onChange(v === true)} />
      <label htmlFor={id} className="flex min-w-0 flex-1 cursor-pointer items-center gap-3">
        <UserAvatar name={peer.username} src={peer.profilePic} size="sm" />
        <span className="min-w-0 truncate font-medium">@{peer.username}</span>
      </label>
    </li>
  );
}

function ForwardChooser({ message, onClose }: { message: UiMessage; onClose(): void }) {
  const client = useChatClient();
  const list = useChatList();
  const maxBytes = useAttachmentMaxBytes();
  const [query, setQuery] = useState('');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const hintId = useId();
  const offered = useMemo(
    () => list.chats.filter((c): c is ChatSummary & { peer: PublicUser } => !c.locked && c.peer !== null),
    [list.chats],
  );
  const shown = query.trim() ? offered.filter((c) => matchesUsername(c, query)) : offered;
  const full = chosen.size >= FORWARD_MAX;

  const toggle = (peerId: string, on: boolean) =>
    setChosen((was) => {
      const next = new Set(was);
      if (on) next.add(peerId);
      else next.delete(peerId);
      return next;
    });

  const forward = async () => {
    if (!client) return;
    onClose();
    // A file is opened first (downloaded if this tab has not yet), then sent as a new one.
    const problem = await client
      .forwardMessage(message, [...chosen], maxBytes)
      .catch((e: unknown) => (e instanceof Error ? e.message : 'The message could not be forwarded'));
    if (problem !== null) notifyError('Forward Failed', problem);
    else notify('Forwarded', chosen.size === 1 ? 'Sent to 1 chat' : `Sent to ${chosen.size} chats`);
  };

  return (
    <>
      <div className="relative">
        <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
        <Input
          type="search"
          aria-label="Search chats"
          placeholder="Search chats"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="pl-9"
        />
      </div>
      <p id={hintId} className="text-xs text-muted-foreground" aria-live="polite">
        {full ? `You can forward to up to ${FORWARD_MAX} chats at once.` : `Choose up to ${FORWARD_MAX} chats.`}
      </p>
      <ul aria-label="Chats" aria-describedby={hintId} className="-mx-2 max-h-72 overflow-y-auto">
        {shown.length === 0 ? (
          <li className="px-2 py-6 text-center text-sm text-muted-foreground">No chats match “{query.trim()}”</li>
        ) : (
          shown.map((c) => (
            <ChatChoice
              key={c.chatId}
              peer={c.peer}
              on={chosen.has(c.peerId)}
              full={full}
              onChange={(on) => toggle(c.peerId, on)}
            />
          ))
        )}
      </ul>
      <DialogFooter>
        <Button variant="outline" onClick={onClose}>
          Cancel
        </Button>
        <Button onClick={forward} disabled={chosen.size === 0}>
          {chosen.size > 0 ? `Forward (${chosen.size})` : 'Forward'}
        </Button>
      </DialogFooter>
    </>
  );
}

export function ForwardDialog({ message, onClose }: { message: UiMessage | null; onClose(): void }) {
  return (
    <Dialog
      open={message !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Forward message</DialogTitle>
          <DialogDescription>It is sent encrypted to each chat you choose, marked “Forwarded”.</DialogDescription>
        </DialogHeader>
        {message ? <ForwardChooser key={message.id} message={message} onClose={onClose} /> : null}
      </DialogContent>
    </Dialog>
  );
}
