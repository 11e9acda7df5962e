/**
 * The browser tests' world of their own: a server per worker (broadcasts reach every
 * user of a server, so tests that count or list them cannot share the suite's), its
 * people, broadcasts written straight into its database, and contact requests.
 */
import type { Page } from '@playwright/test';
import {
  test as base,
  expect,
  openChat,
  type People,
  type Person,
  type PersonOptions,
  runTag,
  setPrivacy,
} from './chat-helpers.ts';
import { type PrivateServer, startPrivateServer, withDb } from './private-server.ts';

export interface Broadcast {
  message: string;
  imageUrl?: string | null;
  videoUrl?: string | null;
  /** ms; defaults to now. */
  timestamp?: number;
}

export const test = base.extend<
  {
    /** People on this worker's own server. */
    world: People;
    /** Writes admin broadcasts straight into the server's database; removed after the test. */
    broadcast: (b: Broadcast) => string;
  },
  { server: PrivateServer }
>({
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies as a pattern.
    async ({}, use) => {
      const server = await startPrivateServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  world: async ({ people, server }, use) => {
    const at = (opts: PersonOptions = {}): PersonOptions => ({ ...opts, baseURL: server.baseURL });
    await use({
      person: (prefix, opts) => people.person(prefix, at(opts)),
      signIn: (user, id, opts) => people.signIn(user, id, at(opts)),
    });
  },
  broadcast: async ({ server }, use) => {
    const ids: string[] = [];
    await use((b) => {
      const id = `bc${runTag()}${ids.length}`;
      ids.push(id);
      withDb(server.dbFile, (db) =>
        db
          .prepare(
            'INSERT INTO notifications(id, message, video_url, image_url, timestamp, from_id) VALUES (?, ?, ?, ?, ?, ?)',
          )
          .run(id, b.message, b.videoUrl ?? null, b.imageUrl ?? null, b.timestamp ?? Date.now(), 'admin'),
      );
      return id;
    });
    withDb(server.dbFile, (db) => {
      const del = db.prepare('DELETE FROM notifications WHERE id = ?');
      for (const id of ids) del.run(id);
    });
  },
});

export function setRequireRequest(page: Page, requireRequest: boolean): Promise<void> {
  return setPrivacy(page, { requireRequest });
}

/** Alice writes to Bob, who takes messages from contacts only: the message becomes a request. */
export async function sendRequest(alice: Person, bob: Person, text: string): Promise<void> {
  await openChat(alice.page, bob);
  await expect(alice.page.getByText(/accepts messages from contacts only/)).toBeVisible();
  const input = alice.page.getByRole('textbox', { name: 'Message', exact: true });
  await input.fill(text);
  await input.press('Enter');
  await expect(alice.page.getByRole('region', { name: 'Message request' })).toContainText('Request pending');
}
