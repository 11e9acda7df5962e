/** "Indexing older messages… (N of M)", with the button that pauses (or resumes) it. */
import { Pause, Play } from 'lucide-react';
import { useChatClient } from '@/hooks/chat-hooks';
import { useSearchStatus } from '@/hooks/use-message-search';

export function IndexingStatus() {
  const client = useChatClient();
  const status = useSearchStatus();
  if (!status.indexing) return null;
  return (
    <div className="flex items-center gap-2 px-4 py-2 text-xs text-muted-foreground">
      <p role="status" className="min-w-0 flex-1">
        {status.paused ? 'Indexing paused' : 'Indexing older messages…'} ({status.done} of {status.total} chats)
      </p>
      <button
        type="button"
        onClick={() => (status.paused ? client?.search.resume() : client?.search.pause())}
        className="flex cursor-pointer items-center gap-1 rounded-full px-2 py-1 font-medium text-primary hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring pointer-coarse:min-h-11"
      >
        {status.paused ? <Play className="size-3.5" aria-hidden /> : <Pause className="size-3.5" aria-hidden />}
        {status.paused ? 'Resume' : 'Pause'}
      </button>
    </div>
  );
}
