/**
 * How the update log stores an update: without the texts of the messages it carries, which
 * are in their `messages` rows (log-refs.ts reads them back; docs/scaling.md, "Fewer writes
 * per send").
 */
import type { ChatSummary, Update } from '@app/protocol';

export const NO_TEXT = { ct: null, legacyText: null } as const;

function withoutLastText(chat: ChatSummary): ChatSummary {
  return chat.last ? { ...chat, last: { ...chat.last, ...NO_TEXT } } : chat;
}

/** An update as the log stores it: the texts of messages left out (they are in their rows). */
export function logPayloadOf(update: Update): string {
  switch (update.kind) {
    case 'message':
      return JSON.stringify({ ...update, message: { ...update.message, ...NO_TEXT } });
    case 'chat':
      return JSON.stringify({ ...update, chat: withoutLastText(update.chat) });
    case 'reaction':
      return JSON.stringify(update.chat ? { ...update, chat: withoutLastText(update.chat) } : update);
    default:
      return JSON.stringify(update);
  }
}

export type Key = { chatId: string; id: string };

/** The messages an entry refers to: the one it carries, or the one heading the summary it carries. */
export function refOf(update: Update): Key | null {
  if (update.kind === 'message') return { chatId: update.message.chatId, id: update.message.id };
  const chat = update.kind === 'chat' || update.kind === 'reaction' ? update.chat : undefined;
  return chat?.last ? { chatId: chat.chatId, id: chat.last.id } : null;
}
