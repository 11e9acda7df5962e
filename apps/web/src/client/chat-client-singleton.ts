/**
 * The one ChatClient of this tab: created when a user is signed in, destroyed when
 * they sign out (or another account signs in). Loaded lazily by the signed-in
 * screens, so the splash and sign-in screens never carry the chat code. What it tells
 * the user goes to notices.ts, where the UI shows it.
 */
import { getSession, refreshSession, subscribeSession } from '@/lib/session';
import { ChatClient } from './chat-client';
import { tellClientNotice } from './notices';

let client: ChatClient | null = null;
const listeners = new Set<() => void>();

const OUTDATED_KEY = 'parley:reloaded-for-protocol';

function create(userId: string): ChatClient {
  return new ChatClient(userId, {
    notice: tellClientNotice,
    blocked: () => {
      if (location.pathname !== '/blocked') location.assign('/blocked');
    },
    checkSession: () => void refreshSession(),
    outdated: () => {
      // The server speaks a newer protocol: load the new build, once.
      if (sessionStorage.getItem(OUTDATED_KEY)) return;
      sessionStorage.setItem(OUTDATED_KEY, '1');
      location.reload();
    },
  });
}

function sync(): void {
  const user = getSession().user;
  if (client && client.userId === user?.id) return;
  client?.destroy();
  client = null;
  if (user) {
    client = create(user.id);
    client.start();
  }
  for (const l of [...listeners]) l();
}

export function getChatClient(): ChatClient | null {
  return client;
}

export function subscribeChatClient(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

subscribeSession(sync);
sync();
