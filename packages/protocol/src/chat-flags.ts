/**
 * A user's own marks on a chat, beside archived and locked: pinned to the top of the list
 * (at most PINNED_CHATS_MAX), muted for a while or for good, and marked unread. Each is
 * kept on the server in the user's summary of the chat (so every browser and tab shares
 * it) and changed with the `chatFlags` request.
 */
import { z } from 'zod';

/** Most chats a user may pin. */
export const PINNED_CHATS_MAX = 3;

/** How long a chat is muted: the choices the chat's menu offers, and `off` to unmute. */
export const muteSchema = z.enum(['8h', '1w', 'always', 'off']);
export type Mute = z.infer<typeof muteSchema>;

/** `mutedUntil` of a chat muted for good (the last millisecond JavaScript dates reach). */
export const MUTED_ALWAYS = 8_640_000_000_000_000;

const HOUR = 60 * 60 * 1000;
const MUTE_FOR: Record<Exclude<Mute, 'always' | 'off'>, number> = { '8h': 8 * HOUR, '1w': 7 * 24 * HOUR };

/** The `mutedUntil` a choice made at `now` gives (null: not muted). */
export function mutedUntilOf(mute: Mute, now: number): number | null {
  if (mute === 'off') return null;
  if (mute === 'always') return MUTED_ALWAYS;
  return now + MUTE_FOR[mute];
}

/** Whether a chat is muted at `now`. */
export function isMuted(chat: { mutedUntil: number | null }, now: number): boolean {
  return chat.mutedUntil !== null && chat.mutedUntil > now;
}

export const CHAT_FLAGS_MSG = {
  pinLimit: `You can pin up to ${PINNED_CHATS_MAX} chats`,
  pinHidden: 'Archived and locked chats cannot be pinned',
} as const;
