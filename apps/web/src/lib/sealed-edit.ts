/**
 * An edit of one's own message: the next revision sealed under the chat's newest key; a
 * key that moved on since this tab fetched it is fetched again and the edit sealed again,
 * once. The text is remembered (this tab wrote it: nothing to open).
 */
import type { ChatMessage } from '@app/protocol';
import { type ChatSocket, RequestError } from './chat-socket';
import type { ChatKeys } from './keys/chat-keys';
import type { MessageCrypto } from './message-crypto';

export async function sealedEdit(
  socket: Pick<ChatSocket, 'request'>,
  keys: ChatKeys,
  crypto: MessageCrypto,
  m: ChatMessage,
  text: string,
): Promise<ChatMessage> {
  const edit = async () =>
    socket.request('edit', { chatId: m.chatId, msgId: m.id, ct: await crypto.sealEdit(m, text) });
  const r = await edit().catch((e: unknown) => {
    if (!(e instanceof RequestError && e.code === 'rekey_required')) throw e;
    keys.invalidate(m.chatId, m.recipientId); // one edits only one's own messages
    return edit();
  });
  crypto.remember(m.chatId, m.id, r.message.rev, text);
  return r.message;
}
