/**
 * Changes to one's own message, each its next revision: an edit sealed under the chat's
 * newest key, or a deletion, its tombstone (message-crypto.ts sealDelete). A key that moved
 * on since this tab fetched it is fetched again and the change sealed again, once. What
 * this tab wrote is remembered (nothing to open).
 */
import type { MessageContent } from '@app/e2ee';
import type { ChatMessage } from '@app/protocol';
import type { ChatKeys } from '../keys/chat-keys';
import { type ChatSocket, RequestError } from '../socket/chat-socket';
import type { MessageCrypto } from './message-crypto';

type Socket = Pick<ChatSocket, 'request'>;

/** Runs `change`, and once more after fetching the chat's keys again when they moved on. */
function retriedOnRekey<T>(keys: ChatKeys, m: ChatMessage, change: () => Promise<T>): Promise<T> {
  return change().catch((e: unknown) => {
    if (!(e instanceof RequestError && e.code === 'rekey_required')) throw e;
    keys.invalidate(m.chatId, m.recipientId); // one changes only one's own messages
    return change();
  });
}

export async function sealedEdit(
  socket: Socket,
  keys: ChatKeys,
  crypto: MessageCrypto,
  m: ChatMessage,
  text: string,
): Promise<ChatMessage> {
  let content: MessageContent = { text };
  const r = await retriedOnRekey(keys, m, async () => {
    const sealed = await crypto.sealEdit(m, text);
    content = sealed.content;
    return socket.request('edit', { chatId: m.chatId, msgId: m.id, ct: sealed.ct });
  });
  // The revision this tab sealed (not the one the server names: a higher one would make later edits look rolled back).
  crypto.remember(m.chatId, m.id, m.rev + 1, content);
  return r.message;
}

export async function sealedDelete(
  socket: Socket,
  keys: ChatKeys,
  crypto: MessageCrypto,
  m: ChatMessage,
): Promise<ChatMessage> {
  const r = await retriedOnRekey(keys, m, async () =>
    socket.request('delete', { chatId: m.chatId, msgId: m.id, ...(await crypto.sealDelete(m)) }),
  );
  crypto.deleted(m.chatId, m.id, m.rev + 1);
  return r.message;
}
