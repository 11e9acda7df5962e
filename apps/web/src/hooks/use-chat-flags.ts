/**
 * A chat's own marks as the chat list's rows and the chat's contact panel offer them:
 * Archive, Lock, Pin, Mute, Mark as unread and their undoing, with the same toasts, and the
 * same answers to the server's refusals (no PIN yet: to /privacy-settings; the PIN grant
 * ran out: `onPinExpired`; a fourth pin: why).
 */
import { type ChatFlagsChange, type ChatSummary, isMuted } from '@app/protocol';
import {
  Archive,
  ArchiveRestore,
  Bell,
  BellOff,
  Lock,
  LockOpen,
  type LucideIcon,
  MailCheck,
  MailWarning,
  Pin,
  PinOff,
} from 'lucide-react';
import { useCallback, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { RequestError } from '@/client/socket/chat-socket';
import { notify, notifyError } from '@/components/ui/toaster';
import { useChatClient } from '@/hooks/chat-hooks';

export type FlagAction =
  | 'archive'
  | 'unarchive'
  | 'lock'
  | 'unlock'
  | 'pin'
  | 'unpin'
  | 'mute8h'
  | 'mute1w'
  | 'muteAlways'
  | 'unmute'
  | 'markUnread'
  | 'markRead';

export const FLAG_ACTIONS: Record<
  FlagAction,
  { flags: ChatFlagsChange | 'read'; done: string; label: string; icon: LucideIcon }
> = {
  archive: { flags: { archived: true }, done: 'Chat Archived', label: 'Archive', icon: Archive },
  unarchive: { flags: { archived: false }, done: 'Chat Unarchived', label: 'Unarchive', icon: ArchiveRestore },
  // A chat is archived or locked, not both: unlocking it later brings it back to the main list.
  lock: { flags: { locked: true, archived: false }, done: 'Chat Locked', label: 'Lock', icon: Lock },
  unlock: { flags: { locked: false }, done: 'Chat Unlocked', label: 'Unlock', icon: LockOpen },
  pin: { flags: { pinned: true }, done: 'Chat Pinned', label: 'Pin', icon: Pin },
  unpin: { flags: { pinned: false }, done: 'Chat Unpinned', label: 'Unpin', icon: PinOff },
  mute8h: { flags: { mute: '8h' }, done: 'Chat Muted for 8 Hours', label: 'Mute for 8 hours', icon: BellOff },
  mute1w: { flags: { mute: '1w' }, done: 'Chat Muted for a Week', label: 'Mute for 1 week', icon: BellOff },
  muteAlways: { flags: { mute: 'always' }, done: 'Chat Muted', label: 'Mute always', icon: BellOff },
  unmute: { flags: { mute: 'off' }, done: 'Chat Unmuted', label: 'Unmute', icon: Bell },
  markUnread: { flags: { markedUnread: true }, done: 'Marked as Unread', label: 'Mark as unread', icon: MailWarning },
  markRead: { flags: 'read', done: 'Marked as Read', label: 'Mark as read', icon: MailCheck },
};

/** What a chat in this state offers: a locked one only Unlock (it is not archived as well). */
export function flagActionsFor(chat: { archived: boolean; locked: boolean }): FlagAction[] {
  if (chat.locked) return ['unlock'];
  return chat.archived ? ['unarchive', 'lock'] : ['archive', 'lock'];
}

/** Whether the chat shows unread: messages not read yet, or marked unread. */
export function showsUnread(chat: Pick<ChatSummary, 'unreadCount' | 'markedUnread'>): boolean {
  return chat.unreadCount > 0 || chat.markedUnread;
}

/**
 * The marks a chat's menu offers before Archive and Lock: Pin or Unpin (not in the
 * archive: an archived chat is not pinned), the three mutes or Unmute, and Mark as unread
 * or as read.
 */
export function markActionsFor(chat: ChatSummary, now: number, pinnable: boolean): FlagAction[] {
  const out: FlagAction[] = [];
  if (pinnable) out.push(chat.pinnedAt === null ? 'pin' : 'unpin');
  out.push(...(isMuted(chat, now) ? (['unmute'] as const) : (['mute8h', 'mute1w', 'muteAlways'] as const)));
  out.push(showsUnread(chat) ? 'markRead' : 'markUnread');
  return out;
}

/** Runs one flag action at a time on the chat with `peerId`; `busy` while it runs. */
export function useChatFlags(peerId: string, onPinExpired?: () => void) {
  const client = useChatClient();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);

  const run = useCallback(
    async (action: FlagAction): Promise<boolean> => {
      if (busyRef.current) return false;
      if (!client) {
        notifyError('You are offline', 'Try again when you are back online');
        return false;
      }
      busyRef.current = true;
      setBusy(true);
      try {
        const { flags, done } = FLAG_ACTIONS[action];
        if (flags === 'read') await client.markChatRead(peerId);
        else await client.setChatFlags(peerId, flags);
        notify(done);
        // Marked unread while open beside the list: closed, or reading it would unmark it.
        // Read when the action is done, not subscribed to: every row of the list has this hook.
        if (action === 'markUnread' && window.location.pathname === `/chat/${peerId}`) navigate('/home');
        return true;
      } catch (e) {
        if (e instanceof RequestError && e.code === 'pin_required') {
          notifyError('PIN Required', 'Set a PIN in Privacy settings first');
          navigate('/privacy-settings');
        } else if (e instanceof RequestError && e.code === 'locked') {
          notifyError('PIN Required', e.message);
          onPinExpired?.();
        } else if (e instanceof RequestError && e.code === 'forbidden') {
          notifyError(e.message);
        } else {
          notifyError('Something went wrong', e instanceof Error ? e.message : undefined);
        }
        return false;
      } finally {
        busyRef.current = false;
        // The row may be gone (archived, unlocked...): React ignores the update then.
        setBusy(false);
      }
    },
    [client, peerId, navigate, onPinExpired],
  );

  return { run, busy };
}
