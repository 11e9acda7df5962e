/** The composer's check of a message text, with the protocol's rules and messages. */
import { messageTextSchema } from '@app/protocol';

/** Why `text` cannot be sent (the protocol's message), or null when it can. */
export function messageTextError(text: string): string | null {
  const r = messageTextSchema.safeParse(text);
  return r.success ? null : (r.error.issues[0]?.message ?? 'This message cannot be sent');
}
