import type { UiMessage } from '@/client/conversations/conversation';
import { notifyError } from '@/components/ui/toaster';
import { useChatClient } from './chat-hooks';

/** Reacts to a message with an emoji (the same one again takes it back), telling the user when it fails. */
export function useReact(): (m: UiMessage, emoji: string) => void {
  const client = useChatClient();
  return (m, emoji) => {
    client
      ?.react(m, emoji)
      .catch((e: unknown) => notifyError('Reaction Failed', e instanceof Error ? e.message : undefined));
  };
}
