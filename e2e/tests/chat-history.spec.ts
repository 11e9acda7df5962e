/**
 * A chat with 100,000 messages: it opens at the newest page with only a window of rows
 * in the DOM, and scrolling up loads older pages from the server while the rows the
 * user is reading stay where they were.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { E2E_DATA_DIR } from '../env.ts';
import { createUserViaApi, expect, makeUser, signInViaApi, test } from './fixtures.ts';
import { makeLegacy } from './legacy-accounts.ts';

const TOTAL = 100_000;

/** Writes the history straight into the server's SQLite file (the API would take minutes). */
function seedHistory(aliceId: string, bobId: string): void {
  const chatId = aliceId < bobId ? `${aliceId}_${bobId}` : `${bobId}_${aliceId}`;
  const db = new Database(path.join(E2E_DATA_DIR, 'parley.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      `INSERT INTO messages (chat_id, id, sender_id, recipient_id, text, timestamp, status, edited, deleted, delivered_at, read_at)
       VALUES (?, ?, ?, ?, ?, ?, 'read', 0, 0, ?, ?)`,
    );
    const start = Date.now() - TOTAL * 1000;
    // Short transactions (2,000 rows): the running server shares this file and must not
    // wait on our write lock while other tests use it.
    const batch = db.transaction((from: number) => {
      for (let i = from; i < Math.min(TOTAL, from + 2000); i++) {
        const fromAlice = i % 2 === 0;
        const t = start + i * 1000;
        insert.run(
          chatId,
          `seed-${String(i).padStart(6, '0')}`,
          fromAlice ? aliceId : bobId,
          fromAlice ? bobId : aliceId,
          `history message ${i}`,
          t,
          t,
          t,
        );
      }
    });
    for (let from = 0; from < TOTAL; from += 2000) batch(from);
    db.transaction(() => {
      const summary = db.prepare(
        `INSERT INTO user_chats (user_id, chat_id, peer_id, last_message, timestamp, unread_count, archived, locked)
         VALUES (?, ?, ?, ?, ?, 0, 0, 0)`,
      );
      const last = `history message ${TOTAL - 1}`;
      summary.run(aliceId, chatId, bobId, last, start + (TOTAL - 1) * 1000);
      summary.run(bobId, chatId, aliceId, last, start + (TOTAL - 1) * 1000);
    })();
  } finally {
    db.close();
  }
}

test('a 100,000-message chat opens at the newest message and pages older history on scroll-up', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const alice = makeUser('hist');
  const bob = makeUser('histb');
  const aliceUser = await createUserViaApi(request, alice);
  const bobUser = await createUserViaApi(request, bob);
  seedHistory(aliceUser.id, bobUser.id);
  // Rows in the clear are believed only as messages from before an account had keys: Alice's
  // account is one from before encryption, whose first sign-in here makes her keys.
  await makeLegacy(alice, aliceUser.id);
  await signInViaApi(page, alice.email, alice.password);

  await page.goto(`/chat/${bobUser.id}`);
  // In the conversation (beside it, the chat list previews the same text).
  const newest = page
    .getByRole('list', { name: 'Messages' })
    .getByText(`history message ${TOTAL - 1}`, { exact: true });
  await expect(newest).toBeVisible();
  // Virtualised: a window of rows, not 100,000.
  const rendered = await page.locator('[data-message-id]').count();
  expect(rendered).toBeGreaterThan(5);
  expect(rendered).toBeLessThan(80);

  const list = page.getByRole('region', { name: /Conversation with/ });
  // Scroll to the top a few times: each time an older page arrives and is rendered above.
  for (let round = 0; round < 3; round++) {
    const oldestBefore = await page.locator('[data-message-id]').first().getAttribute('data-message-id');
    await list.evaluate((el) => {
      el.scrollTop = 0;
    });
    await expect
      .poll(async () => {
        await list.evaluate((el) => {
          el.scrollTop = 0;
        });
        return page.locator('[data-message-id]').first().getAttribute('data-message-id');
      })
      .not.toBe(oldestBefore);
  }
  // Three pages of 50 above the first: message TOTAL-200 has been loaded by now.
  const ids = await page
    .locator('[data-message-id]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-message-id')));
  const lowest = Math.min(...ids.map((id) => Number(id?.slice(5))));
  expect(lowest).toBeLessThanOrEqual(TOTAL - 150);
  expect(await page.locator('[data-message-id]').count()).toBeLessThan(120);
});
