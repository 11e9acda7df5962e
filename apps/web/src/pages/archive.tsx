import type { ChatSummary } from '@app/protocol';
import { Archive } from 'lucide-react';
import { HiddenChatList } from '@/components/hidden-chat-list';
import { PageShell } from '@/components/page-shell';

const isArchived = (c: ChatSummary) => c.archived && !c.locked;

const EMPTY = {
  icon: Archive,
  title: 'No archived conversations',
  text: 'Chats you archive from the chat list appear here',
};

/** /archive: the archived chats, newest first, each with an Unarchive button. */
export default function ArchivePage() {
  return (
    <PageShell title="Archived" back="/home" className="flex flex-col p-0 md:p-0">
      <HiddenChatList label="Archived chats" variant="archived" filter={isArchived} empty={EMPTY} />
    </PageShell>
  );
}
