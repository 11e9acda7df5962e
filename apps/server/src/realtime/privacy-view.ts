/**
 * What one socket may see of the data it is sent: pure functions of the user's own
 * privacy settings, their locked chats and whether this session holds a PIN grant.
 * Each returns its input unchanged (the same object) when nothing is hidden, so an
 * update can go out as the JSON the log already stored.
 */
import type { ChatMessage, ChatSummary, Presence, Privacy, Update } from '@app/protocol';

export interface PrivacyView {
  /** The user the socket belongs to. */
  readonly userId: string;
  /** The user's own privacy settings. */
  readonly privacy: Privacy;
  /** The user's locked chats (null: none known). */
  readonly locked: ReadonlySet<string> | null;
  /** This session holds a PIN grant now: locked chats show. */
  readonly granted: boolean;
}

/** The eight privacy settings, shared by the sockets rather than copied into each. */
const PRIVACIES: readonly Privacy[] = Array.from({ length: 8 }, (_, i) => ({
  readReceipts: (i & 1) !== 0,
  lastSeen: (i & 2) !== 0,
  requireRequest: (i & 4) !== 0,
}));

/** The shared object equal to `p`. */
export function sharedPrivacy(p: Privacy): Privacy {
  return PRIVACIES[(p.readReceipts ? 1 : 0) | (p.lastSeen ? 2 : 0) | (p.requireRequest ? 4 : 0)] as Privacy;
}

/** Someone who hides their own last seen sees no one's. */
export function viewPresence(v: PrivacyView, p: Presence): Presence {
  return v.privacy.lastSeen || p.lastSeen === null ? p : { ...p, lastSeen: null };
}

/**
 * A message as the socket may see it: with read receipts off, the user's own messages
 * never show read; in a locked chat without a PIN grant the text stays on the server.
 */
export function viewMessage(v: PrivacyView, m: ChatMessage): ChatMessage {
  let out = m;
  if (!v.privacy.readReceipts && m.senderId === v.userId && m.status === 'read') {
    out = { ...out, status: 'delivered', readAt: null };
  }
  if (v.locked?.has(m.chatId) && !v.granted) out = { ...out, ct: null, legacyText: null };
  return out;
}

/**
 * A chat-list row as the socket may see it. A summary logged before the chat was locked
 * (replayed on resume) says locked: false; the chat's current lock decides too.
 */
export function viewChat(v: PrivacyView, c: ChatSummary): ChatSummary {
  const locked = c.locked || v.locked?.has(c.chatId) === true;
  return locked && c.last !== null && !v.granted ? { ...c, last: null } : c;
}

/** An update as the socket may see it. */
export function viewUpdate(v: PrivacyView, u: Update): Update {
  if (u.kind === 'message') {
    let message = viewMessage(v, u.message);
    // The summary it carries says whether the chat is locked too.
    if (u.chat?.locked && !v.granted && (message.ct !== null || message.legacyText !== null)) {
      message = { ...message, ct: null, legacyText: null };
    }
    return message === u.message ? u : { ...u, message };
  }
  if (u.kind === 'chat') {
    const chat = viewChat(v, u.chat);
    return chat === u.chat ? u : { kind: 'chat', chat };
  }
  if (u.kind === 'reaction') {
    // In a locked chat: which message, but not the sealed emoji, until the PIN.
    const hide = u.reaction.ct !== null && (v.locked?.has(u.reaction.chatId) || u.chat?.locked) && !v.granted;
    const reaction = hide ? { ...u.reaction, ct: null } : u.reaction;
    const chat = u.chat ? viewChat(v, u.chat) : undefined;
    if (reaction === u.reaction && chat === u.chat) return u;
    return chat ? { kind: 'reaction', reaction, chat } : { kind: 'reaction', reaction };
  }
  return u;
}
