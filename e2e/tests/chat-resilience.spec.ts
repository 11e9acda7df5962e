/**
 * Messages survive a lost connection, a reload and a server restart: they wait in the
 * outbox with a clock, go out when the connection is back, and arrive exactly once.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, type SpawnedServer, spawnServer } from '@app/server/spawn';
import type { Page, WebSocketRoute } from '@playwright/test';
import { bubble, bubbles, expect, openChat, openMessageMenu, outboxEntries, send, test, tick } from './chat-helpers.ts';

/** The texts of the bubbles, top to bottom. */
function texts(page: Page) {
  return bubbles(page).locator('p');
}

test.describe('resilience', () => {
  test('offline: messages wait with a clock, then arrive once and in order when back online', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await openChat(alice.page, bob);
    await openChat(bob.page, alice);
    await send(alice.page, 'Before the tunnel');
    await expect(bubble(bob.page, 'Before the tunnel')).toBeVisible();

    await alice.context.setOffline(true);
    await expect(alice.page.getByText('Offline — messages will be sent when you are back online')).toBeVisible();
    await send(alice.page, 'In the tunnel');
    await send(alice.page, 'Still in the tunnel');
    for (const text of ['In the tunnel', 'Still in the tunnel']) {
      await expect(tick(bubble(alice.page, text), 'Pending')).toBeVisible();
    }
    // A waiting message can be replied to, forwarded, copied or inspected, not reacted to, edited or deleted yet.
    const menu = await openMessageMenu(alice.page, bubble(alice.page, 'In the tunnel'));
    await expect(menu.getByRole('menuitem')).toHaveText(['Reply', 'Forward', 'Copy', 'Info']);
    await menu.getByRole('menuitem', { name: 'Info' }).click();
    await expect(alice.page.getByRole('dialog', { name: 'Message info' })).toContainText('Waiting to be sent');
    await alice.page.keyboard.press('Escape');

    // Bob has nothing new, even after a reload.
    await bob.page.reload();
    await expect(bubble(bob.page, 'Before the tunnel')).toBeVisible();
    await expect(bubbles(bob.page)).toHaveCount(1);

    await alice.context.setOffline(false);
    await expect(texts(bob.page)).toHaveText(['Before the tunnel', 'In the tunnel', 'Still in the tunnel']);
    for (const text of ['In the tunnel', 'Still in the tunnel']) {
      await expect(tick(bubble(alice.page, text), 'Read')).toBeVisible();
    }
    await expect(texts(alice.page)).toHaveText(['Before the tunnel', 'In the tunnel', 'Still in the tunnel']);
    await expect.poll(() => outboxEntries(alice.page).then((e) => e.length)).toBe(0);

    // The server stored each once.
    await alice.page.reload();
    await bob.page.reload();
    for (const page of [alice.page, bob.page]) {
      await expect(texts(page)).toHaveText(['Before the tunnel', 'In the tunnel', 'Still in the tunnel']);
    }
  });

  test('a message left unsent by a reload is sent by the reloaded page, exactly once', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    // Alice's chat socket goes through a switch: blocked, it opens but never reaches the server.
    let blocked = false;
    let socket: WebSocketRoute | null = null;
    await alice.page.routeWebSocket(/\/ws$/, (ws) => {
      socket = ws;
      if (!blocked) ws.connectToServer();
    });
    const reconnect = async (block: boolean) => {
      blocked = block;
      await socket?.close();
    };

    await openChat(alice.page, bob);
    await openChat(bob.page, alice);
    await send(alice.page, 'First, delivered');
    await expect(bubble(bob.page, 'First, delivered')).toBeVisible();

    await reconnect(true);
    await send(alice.page, 'Second, stuck');
    await expect(tick(bubble(alice.page, 'Second, stuck'), 'Pending')).toBeVisible();
    await expect.poll(() => outboxEntries(alice.page).then((e) => e.length)).toBe(1);

    // Reloaded while still cut off: the message is shown from the outbox, still waiting.
    await alice.page.reload();
    await expect(tick(bubble(alice.page, 'Second, stuck'), 'Pending')).toBeVisible();
    await expect(bubbles(bob.page)).toHaveCount(1);

    await reconnect(false);
    await expect(bubble(bob.page, 'Second, stuck')).toHaveCount(1);
    await expect(tick(bubble(alice.page, 'Second, stuck'), 'Read')).toBeVisible();
    await expect(texts(alice.page)).toHaveText(['First, delivered', 'Second, stuck']);
    await expect.poll(() => outboxEntries(alice.page).then((e) => e.length)).toBe(0);

    await alice.page.reload();
    await bob.page.reload();
    for (const page of [alice.page, bob.page]) {
      await expect(texts(page)).toHaveText(['First, delivered', 'Second, stuck']);
    }
  });

  test('a server restart mid-conversation loses and duplicates nothing', async ({ people }) => {
    test.setTimeout(240_000);
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-restart-'));
    const baseURL = `http://127.0.0.1:${port}`;
    let server: SpawnedServer | null = await startServer(port, dataDir);
    try {
      const alice = await people.person('alice', { baseURL });
      const bob = await people.person('bob', { baseURL });
      await openChat(alice.page, bob);
      await openChat(bob.page, alice);
      await send(alice.page, 'One');
      await expect(bubble(bob.page, 'One')).toBeVisible();
      await send(bob.page, 'Two');
      await expect(bubble(alice.page, 'Two')).toBeVisible();
      await expect(tick(bubble(alice.page, 'One'), 'Read')).toBeVisible();

      await server.stop();
      server = null;
      const down = /^(Connecting…|Offline — messages will be sent when you are back online)$/;
      await expect(alice.page.getByRole('status').getByText(down)).toBeVisible({ timeout: 15_000 });
      await send(alice.page, 'Three, while the server is down');
      const three = bubble(alice.page, 'Three, while the server is down');
      await expect(tick(three, 'Pending')).toBeVisible();

      server = await startServer(port, dataDir);
      // Clients come back on their own (with backoff), resume, and the outbox is sent.
      await expect(bubble(bob.page, 'Three, while the server is down')).toHaveCount(1, { timeout: 30_000 });
      await expect(tick(three, 'Read')).toBeVisible({ timeout: 30_000 });
      await send(bob.page, 'Four, after the restart');
      await expect(bubble(alice.page, 'Four, after the restart')).toBeVisible();

      const all = ['One', 'Two', 'Three, while the server is down', 'Four, after the restart'];
      for (const page of [alice.page, bob.page]) await expect(texts(page)).toHaveText(all);
      await alice.page.reload();
      await bob.page.reload();
      for (const page of [alice.page, bob.page]) await expect(texts(page)).toHaveText(all);
    } finally {
      if (server) await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// ---- a server of this test's own ------------------------------------------------------

/** Starts apps/server on `port` with `dataDir` (the built web app) and waits for /healthz. */
async function startServer(port: number, dataDir: string): Promise<SpawnedServer> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['DATABASE_URL', 'SMTP_URL', 'REDIS_URL', 'SESSION_SECRET']) delete env[key];
  const url = `http://127.0.0.1:${port}`;
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: url,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SIGNUP_PER_IP: '1000',
    RATE_LIMIT_SIGNIN_PER_IP: '1000',
  });
  return spawnServer({ env, healthz: url });
}
