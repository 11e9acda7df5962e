/**
 * The real web ChatClient in Node against a real server (see node-env.ts): one per
 * signed-in user or tab, with what it told the user recorded. Each user's tabs hold the
 * account's private keys (as a browser holds them after sign-in) and seal and open
 * messages with packages/e2ee, as the browser does.
 */
import type { BundleContents } from '@app/e2ee';
import { API, accountDataResponseSchema, type ChatMessage, chatIdOf } from '@app/protocol';
import { LOOSE_LIMITS, signUp, standIn, startEngineServer, type TestServer } from '@app/server/test';
import { afterAll, beforeAll } from 'vitest';
import { ChatClient } from '@/client/chat-client';
import type { UiMessage } from '@/client/conversations/conversation';
import { type Shown, shownText } from '@/client/crypto/message-crypto';
import type { Revisions } from '@/client/crypto/revisions';
import type { AccountDataHttp, SeenStore } from '@/client/keys/account-data';
import type { LocalSealing } from '@/client/keys/local-keys';
import type { ClientNotice } from '@/client/notices';
import type { OutboxStore } from '@/client/outbox/outbox-store';
import type { SearchStore } from '@/client/search/search-store';
import { testSealing } from './local-sealing';
import { memoryOutbox } from './memory-outbox';
import { NodeEnv } from './node-env';

export interface TestUser {
  id: string;
  username: string;
  cookie: string;
  /** The account's private keys (what the browser unlocks with the password). */
  contents: BundleContents;
}

export async function newUser(t: TestServer, overrides: Record<string, unknown> = {}): Promise<TestUser> {
  const u = await signUp(t, overrides);
  return { id: u.user.id, username: u.user.username, cookie: u.client.cookie as string, contents: u.secrets.contents };
}

/** What a client tells its host, as a tab records it. */
export type Told = ClientNotice | { kind: 'blocked' } | { kind: 'outdated' };

export interface TestTab {
  client: ChatClient;
  env: NodeEnv;
  /** What the client told its host: its notices, and being blocked or outdated. */
  told: Told[];
  stop(): void;
}

export interface TabOptions {
  /** Where its outbox is stored (default: a new one in memory). */
  outboxStore?: OutboxStore;
  /** Where its search index is kept (default: nowhere, as IndexedDB is not in Node). */
  searchStore?: SearchStore;
  /** How its outbox seals waiting messages (default: really sealed, under a key of this tab's). */
  localSealing?: LocalSealing;
  /** The account's keys as this browser has them (default: the user's). */
  accountKeys?: () => Promise<BundleContents | null>;
  /** What this browser remembers of revisions (share one between tabs: as IndexedDB would). */
  revisions?: Revisions;
  /** What this browser remembers of the account data's version (share one between tabs: as localStorage would). */
  accountDataSeen?: SeenStore;
}

/** The account data routes over HTTP with `cookie`, as the browser's fetch would call them. */
export function httpAccountData(url: string, cookie: string): AccountDataHttp {
  const headers = { cookie: `sid=${cookie}`, origin: url, 'content-type': 'application/json' };
  return {
    async get() {
      const res = await fetch(url + API.accountData, { headers });
      if (!res.ok) throw new Error(`GET account data: ${res.status}`);
      return accountDataResponseSchema.parse(await res.json());
    },
    async put(data, version) {
      const res = await fetch(url + API.accountData, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ data, version }),
      });
      if (res.status === 409) return false;
      if (!res.ok) throw new Error(`PUT account data: ${res.status} ${await res.text()}`);
      return true;
    },
  };
}

/** A signed-in tab of `user`: its ChatClient started (connecting) with an in-memory outbox. */
export function openTab(t: TestServer, user: TestUser, options: TabOptions = {}): TestTab {
  const env = new NodeEnv(t.url, user.cookie);
  const told: Told[] = [];
  const client = new ChatClient(
    user.id,
    {
      notice: (n) => told.push(n),
      blocked: () => told.push({ kind: 'blocked' }),
      checkSession: () => {},
      outdated: () => told.push({ kind: 'outdated' }),
    },
    {
      socket: env,
      outboxStore: options.outboxStore ?? memoryOutbox().store,
      ...(options.searchStore ? { searchStore: options.searchStore } : {}),
      accountKeys: options.accountKeys ?? (async () => user.contents),
      localSealing: options.localSealing ?? testSealing(),
      settings: { refresh: () => {}, setHelpLink: () => {} },
      ...(options.revisions ? { revisions: options.revisions } : {}),
      accountData: httpAccountData(t.url, user.cookie),
      attachmentHttp: { base: t.url, headers: { cookie: `sid=${user.cookie}` } },
      ...(options.accountDataSeen ? { accountDataSeen: options.accountDataSeen } : {}),
    },
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

/** What the tab shows of each message (opening it when not yet opened). */
export function shownOf(tab: TestTab, messages: readonly UiMessage[]): Shown[] {
  return messages.map((m) => tab.client.crypto.shown(m));
}

/** Resolves with what the tab shows of each message once none is still being opened. */
export async function opened(tab: TestTab, messages: readonly UiMessage[], ms = 5000): Promise<Shown[]> {
  let now = shownOf(tab, messages);
  await until(
    () => {
      now = shownOf(tab, messages);
      return now.every((s) => s.kind !== 'opening');
    },
    'the messages to be opened',
    ms,
  );
  return now;
}

/**
 * The words the tab shows for each message of its conversation with `peerId` (confirmed
 * ones opened; waiting ones their own text), once none is still being opened: a message's
 * text, "This message deleted", or "This message couldn't be verified".
 */
export async function textsOf(tab: TestTab, peerId: string, ms = 5000): Promise<string[]> {
  return (await opened(tab, tab.client.getConversation(peerId).messages, ms)).map(shownText);
}

/** textsOf, for conditions polled synchronously: null while any is still being opened. */
export function textsNow(tab: TestTab, peerId: string): string[] | null {
  const now = shownOf(tab, tab.client.getConversation(peerId).messages);
  return now.some((s) => s.kind === 'opening') ? null : now.map(shownText);
}

export function chatOf(a: TestUser, b: TestUser): string {
  return chatIdOf(a.id, b.id);
}

/**
 * A real server for a suite (on `engine`: '' for SQLite, or a PostgreSQL URL; `config`
 * over its test defaults), started
 * before its tests and stopped after them with every tab they opened; `t` reads through
 * to it inside a test.
 */
export function useTabServer(engine: string, tag: string, config: Record<string, unknown> = {}) {
  let server: TestServer | null = null;
  const tabs: TestTab[] = [];
  beforeAll(async () => {
    server = await startEngineServer(engine, tag, { config: { rateLimits: LOOSE_LIMITS, ...config } });
  });
  afterAll(async () => {
    for (const x of tabs) x.stop();
    await server?.close();
    server = null;
  });
  const t = standIn(() => server, 'the test server');
  /** A tab of `user` on this server (see openTab), stopped after the suite. */
  const tab = (user: TestUser, options: TabOptions = {}) => {
    const x = openTab(t, user, options);
    tabs.push(x);
    return x;
  };
  /** Two new users, each with a tab online and the conversation with the other open. */
  const pair = async (): Promise<[TestUser, TestUser, TestTab, TestTab]> => {
    const [alice, bob] = [await newUser(t), await newUser(t)];
    const a = tab(alice);
    const b = tab(bob);
    await Promise.all([online(a), online(b)]);
    a.client.openConversation(bob.id);
    b.client.openConversation(alice.id);
    return [alice, bob, a, b];
  };
  return { t, tab, pair };
}
