/**
 * Browser notifications: while the tab is hidden, a new message or contact request
 * raises one (with no text for a locked chat). Permission is asked only when the user
 * clicks Enable (see components/notification-prompt.tsx), never on page load.
 */
import type { Alert, ChatClient } from '@/client/chat-client';
import { refOfRequest } from '@/client/crypto/message-crypto';
import { playChime, soundEnabled } from './sound';

const DISMISSED_KEY = 'parley:notifications-prompt-dismissed';

export function notificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

export function notificationPermission(): NotificationPermission | 'unsupported' {
  return notificationsSupported() ? Notification.permission : 'unsupported';
}

/** Whether to offer the Enable prompt: supported, not decided yet, not dismissed. */
export function shouldOfferNotifications(): boolean {
  if (notificationPermission() !== 'default') return false;
  try {
    return localStorage.getItem(DISMISSED_KEY) === null;
  } catch {
    return true;
  }
}

export function dismissNotificationOffer(): void {
  try {
    localStorage.setItem(DISMISSED_KEY, String(Date.now()));
  } catch {
    // Private mode: the prompt comes back next time, which is harmless.
  }
}

export async function requestNotificationPermission(): Promise<NotificationPermission | 'unsupported'> {
  if (!notificationsSupported()) return 'unsupported';
  const result = await Notification.requestPermission();
  if (result !== 'default') dismissNotificationOffer();
  return result;
}

/**
 * Title, body and target of the browser notification for an alert. `text`: the message's
 * (or request's) text as this tab opened it; null when it did not open, or is not to be
 * shown (a locked chat): the body then says only that there is one.
 */
export function describeAlert(
  a: Alert,
  usernameOf: (id: string) => string | undefined,
  text: string | null = null,
): { title: string; body: string; path: string; tag: string } {
  if (a.kind === 'broadcast') {
    return {
      title: 'Admin Notification',
      body: a.notification.message,
      path: '/notifications',
      tag: `broadcast-${a.notification.id}`,
    };
  }
  if (a.kind === 'request') {
    return {
      title: `@${a.notification.fromUsername} sent you a message request`,
      body: text ?? 'New message request',
      path: '/notifications',
      tag: `request-${a.notification.id}`,
    };
  }
  if (a.kind === 'reaction') {
    const { reaction: r } = a;
    const name = usernameOf(r.userId);
    const who = name ? `@${name}` : 'Someone';
    return {
      title: who,
      // `text`: the emoji, opened here; never a locked chat's.
      body: a.locked || text === null ? `${who} reacted to your message` : `Reacted ${text} to your message`,
      path: a.locked ? '/locked' : `/chat/${r.userId}`,
      tag: `chat-${r.chatId}`,
    };
  }
  const m = a.message;
  const name = usernameOf(m.senderId);
  return {
    title: name ? `@${name}` : 'New message',
    // A locked chat's text never leaves the page, not even to the notification centre.
    body: a.locked || text === null ? 'New message' : text,
    path: a.locked ? '/locked' : `/chat/${m.senderId}`,
    tag: `chat-${m.chatId}`,
  };
}

function isVisible(): boolean {
  return document.visibilityState === 'visible';
}

/** The text an alert's notification may show, opened in this tab (never a locked chat's). */
async function alertText(client: ChatClient, a: Alert): Promise<string | null> {
  if (a.kind === 'reaction') {
    if (a.locked) return null;
    await client.reactions.opened(a.reaction);
    return (
      client.reactions.of(a.reaction.chatId, a.reaction.msgId).find((x) => x.userId === a.reaction.userId)?.emoji ??
      null
    );
  }
  const ref =
    a.kind === 'message' && !a.locked
      ? a.message
      : a.kind === 'request'
        ? refOfRequest(a.notification, a.notification.fromId, client.userId)
        : null;
  const shown = ref ? await client.crypto.open(ref).catch(() => null) : null;
  return shown?.kind === 'text' ? shown.text : null;
}

/** Raises browser notifications (and the sound, when chosen) for the client's alerts while the page is hidden. */
export function startDesktopNotifications(client: ChatClient, navigate: (path: string) => void): () => void {
  return client.onAlert(async (a) => {
    if (document.visibilityState === 'visible') return;
    if ((a.kind === 'message' || a.kind === 'reaction') && soundEnabled()) playChime();
    if (!notificationsSupported() || Notification.permission !== 'granted') return;
    const text = await alertText(client, a);
    // A reaction that does not open here is not told (it may not be the peer's at all).
    if (a.kind === 'reaction' && !a.locked && text === null) return;
    // Looked at again: the tab may have come to the front while the text opened.
    if (isVisible()) return;
    const d = describeAlert(a, (id) => client.getUser(id)?.username, text);
    try {
      const n = new Notification(d.title, { body: d.body, tag: d.tag, icon: '/favicon.svg' });
      n.onclick = () => {
        window.focus();
        navigate(d.path);
        n.close();
      };
    } catch {
      // Some browsers only allow notifications from a service worker: nothing to do.
    }
  });
}
