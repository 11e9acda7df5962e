/**
 * The real web ChatClient in Node against a real server (see node-env.ts): one per
 * signed-in user or tab, with what it told the user recorded.
 */
import { type ChatMessage, chatIdOf } from '@app/protocol';
import { signUp, type TestServer } from '@app/server/test';
import { ChatClient } from '@/lib/chat-client';
import { memoryOutbox } from './memory-outbox';
import { NodeEnv } from './node-env';

export interface TestUser {
  id: string;
  username: string;
  cookie: string;
}

export async function newUser(t: TestServer, overrides: Record<string, unknown> = {}): Promise<TestUser> {
  const u = await signUp(t, overrides);
  return { id: u.user.id, username: u.user.username, cookie: u.client.cookie as string };
}

export interface TestTab {
  client: ChatClient;
  env: NodeEnv;
  /** Toasts the client raised: [title, text]. */
  told: [string, string | undefined][];
  stop(): void;
}

/** A signed-in tab of `user`: its ChatClient started (connecting) with an in-memory outbox. */
export function openTab(t: TestServer, user: TestUser): TestTab {
  const env = new NodeEnv(t.url, user.cookie);
  const told: [string, string | undefined][] = [];
  const client = new ChatClient(
    user.id,
    {
      error: (title, text) => told.push([title, text]),
      notice: (title, text) => told.push([title, text]),
      blocked: () => told.push(['blocked', undefined]),
      checkSession: () => {},
      outdated: () => told.push(['outdated', undefined]),
    },
    { socket: env, outboxStore: memoryOutbox().store, settings: { refresh: () => {}, setHelpLink: () => {} } },
  );
  client.start();
  return { client, env, told, stop: () => client.destroy() };
}

/** Resolves once `pred` holds (checked every 10 ms), or fails after `ms` naming `what`. */
export async function until(pred: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function online(tab: TestTab): Promise<void> {
  return until(() => tab.client.status === 'online', 'the client to be online');
}

/** The confirmed messages a tab shows in its conversation with `peerId` (neither pending nor failed). */
export function shown(tab: TestTab, peerId: string): ChatMessage[] {
  return tab.client.getConversation(peerId).messages.filter((m) => !m.pending && !m.failed);
}

export function chatOf(a: TestUser, b: TestUser): string {
  return chatIdOf(a.id, b.id);
}
