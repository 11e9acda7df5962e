/**
 * Keys that live only in tabs' memory (a session without "Remember me", lib/at-rest.ts). A tab
 * that has none asks the browser's other open tabs for them over a BroadcastChannel (same
 * origin only), so a chat opened in a new tab does not ask for the password again; once the
 * last tab is closed, nothing of them is left. Sign-out tells every tab to forget them.
 */
import type { BundleContents } from '@app/e2ee';

/** The account's keys here and the bundle version they stand for. */
export interface LocalKeys {
  contents: BundleContents;
  bundleVersion: number;
}

type Message =
  | { type: 'want'; userId: string; nonce: string }
  | { type: 'keys'; userId: string; nonce: string; keys: LocalKeys }
  | { type: 'forget' };

const CHANNEL = 'parley-keys';
/** How long a tab waits for another to answer, and how soon it asks again after none did. */
const ANSWER_MS = 400;
const ASK_AGAIN_MS = 5_000;

let held: { userId: string; keys: LocalKeys } | null = null;
let channel: BroadcastChannel | null = null;
const unanswered = new Map<string, number>();

function open(): BroadcastChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  if (!channel) {
    channel = new BroadcastChannel(CHANNEL);
    // Where the runtime can (Node's tests), the channel does not keep the process alive.
    (channel as BroadcastChannel & { unref?: () => void }).unref?.();
    channel.onmessage = (e: MessageEvent<Message>) => {
      const m = e.data;
      if (m?.type === 'want' && held?.userId === m.userId) {
        channel?.postMessage({ type: 'keys', userId: m.userId, nonce: m.nonce, keys: held.keys } satisfies Message);
      } else if (m?.type === 'forget') {
        held = null;
      }
    };
  }
  return channel;
}

/** This tab holds `keys` (and gives them to the browser's other tabs that ask). */
export function holdInTab(userId: string, keys: LocalKeys): void {
  held = { userId, keys };
  unanswered.delete(userId);
  open();
}

/** The keys this tab holds for `userId`, or those another open tab gives it; null when none does. */
export async function keysFromTabs(userId: string): Promise<LocalKeys | null> {
  if (held?.userId === userId) return held.keys;
  const ch = open();
  const last = unanswered.get(userId);
  if (!ch || (last !== undefined && Date.now() - last < ASK_AGAIN_MS)) return null;
  const nonce = crypto.randomUUID();
  const keys = await new Promise<LocalKeys | null>((resolve) => {
    const timer = setTimeout(() => {
      ch.removeEventListener('message', onAnswer);
      resolve(null);
    }, ANSWER_MS);
    function onAnswer(e: MessageEvent<Message>) {
      const m = e.data;
      if (m?.type !== 'keys' || m.nonce !== nonce || m.userId !== userId) return;
      clearTimeout(timer);
      ch?.removeEventListener('message', onAnswer);
      resolve(m.keys);
    }
    ch.addEventListener('message', onAnswer);
    ch.postMessage({ type: 'want', userId, nonce } satisfies Message);
  });
  if (keys) holdInTab(userId, keys);
  else unanswered.set(userId, Date.now());
  return keys;
}

/** Forgets the keys in this tab, and (`everywhere`, at sign-out) in every tab of the browser. */
export function forgetInTabs(everywhere: boolean): void {
  held = null;
  unanswered.clear();
  if (everywhere) open()?.postMessage({ type: 'forget' } satisfies Message);
}
