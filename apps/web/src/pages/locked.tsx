import type { ChatSummary } from '@app/protocol';
import { Lock } from 'lucide-react';
import { useCallback, useState } from 'react';
import { HiddenChatList } from '@/components/hidden-chat-list';
import { PageShell } from '@/components/page-shell';
import { PinGate } from '@/components/pin-gate';

const isLocked = (c: ChatSummary) => c.locked;

const EMPTY = { icon: Lock, title: 'No locked chats', text: 'Lock a chat from its menu on the chat list' };

/** The chat screen does not ask for the PIN again right after this screen did. */
const UNLOCKED_STATE = { unlocked: true };

/** /locked: the PIN gate on every visit, then the locked chats, each with an Unlock button. */
export default function LockedPage() {
  const [open, setOpen] = useState(false);
  const lock = useCallback(() => setOpen(false), []);
  return (
    <PageShell title="Locked" back="/home" className={open ? 'flex flex-col p-0 md:p-0' : undefined}>
      {open ? (
        <HiddenChatList
          label="Locked chats"
          variant="locked"
          filter={isLocked}
          empty={EMPTY}
          linkState={UNLOCKED_STATE}
          onPinExpired={lock}
        />
      ) : (
        <PinGate onUnlocked={() => setOpen(true)} />
      )}
    </PageShell>
  );
}
