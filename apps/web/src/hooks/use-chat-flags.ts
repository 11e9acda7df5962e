/**
 * Archive, Unarchive, Lock and Unlock of a chat, as the chat list's rows and the chat's
 * contact panel offer them: the same toasts, and the same answers to the server's refusals
 * (no PIN yet: to /privacy-settings; the PIN grant ran out: `onPinExpired`).
 */
import { Archive, ArchiveRestore, Lock, LockOpen, type LucideIcon } from 'lucide-react';
import { useCallback, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { RequestError } from '@/client/socket/chat-socket';
import { notify, notifyError } from '@/components/ui/toaster';
import { useChatClient } from '@/hooks/chat-hooks';

export type FlagAction = 'archive' | 'unarchive' | 'lock' | 'unlock';

export const FLAG_ACTIONS: Record<
  FlagAction,
  { flags: { archived?: boolean; locked?: boolean }; done: string; label: string; icon: LucideIcon }
> = {
  archive: { flags: { archived: true }, done: 'Chat Archived', label: 'Archive', icon: Archive },
  unarchive: { flags: { archived: false }, done: 'Chat Unarchived', label: 'Unarchive', icon: ArchiveRestore },
  // A chat is archived or locked, not both: unlocking it later brings it back to the main list.
  lock: { flags: { locked: true, archived: false }, done: 'Chat Locked', label: 'Lock', icon: Lock },
  unlock: { flags: { locked: false }, done: 'Chat Unlocked', label: 'Unlock', icon: LockOpen },
};

/** What a chat in this state offers: a locked one only Unlock (it is not archived as well). */
export function flagActionsFor(chat: { archived: boolean; locked: boolean }): FlagAction[] {
  if (chat.locked) return ['unlock'];
  return chat.archived ? ['unarchive', 'lock'] : ['archive', 'lock'];
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
        await client.setChatFlags(peerId, FLAG_ACTIONS[action].flags);
        notify(FLAG_ACTIONS[action].done);
        return true;
      } catch (e) {
        if (e instanceof RequestError && e.code === 'pin_required') {
          notifyError('PIN Required', 'Set a PIN in Privacy settings first');
          navigate('/privacy-settings');
        } else if (e instanceof RequestError && e.code === 'locked') {
          notifyError('PIN Required', e.message);
          onPinExpired?.();
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
