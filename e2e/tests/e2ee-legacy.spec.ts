/**
 * An upgraded deployment (issue 14, docs/e2ee.md): messages from before end-to-end
 * encryption show under "Messages above were sent before end-to-end encryption", and each
 * sender's browser re-encrypts its own in the background as soon as it shows them, so
 * the server stops holding their text; both people read the same words throughout.
 */
import type Database from 'better-sqlite3';
import { E2E_DB_FILE } from '../env.ts';
import { expectToast, submitSignIn } from './auth-helpers.ts';
import { bubble, expect, openChat, type Person, send, shotSizes, test } from './chat-helpers.ts';
import { createUserViaApi, makeUser, shotSchemes } from './fixtures.ts';
import { makeLegacy } from './legacy-accounts.ts';
import { withDb } from './private-server.ts';

async function ownKeys(page: import('@playwright/test').Page): Promise<{ publicKeys: { ik: string } } | null> {
  return (await (await page.request.get('/api/me/keys')).json()).keys;
}

const withE2eDb = <T>(run: (db: Database.Database) => T): T => withDb(E2E_DB_FILE, run);

const DIVIDER = 'Messages above were sent before end-to-end encryption';

function insertLegacy(chatId: string, rows: { id: string; from: Person; to: Person; text: string; at: number }[]) {
  withE2eDb((db) => {
    const insert = db.prepare(
      `INSERT INTO messages (chat_id, id, sender_id, recipient_id, text, sealed, rev, timestamp, status, edited, deleted)
       VALUES (?, ?, ?, ?, ?, 0, 0, ?, 'read', 0, 0)`,
    );
    for (const r of rows) insert.run(chatId, r.id, r.from.id, r.to.id, r.text, r.at);
  });
}

function sealedOf(ids: string[]): Record<string, number> {
  return withE2eDb((db) => {
    const out: Record<string, number> = {};
    for (const id of ids) {
      const r = db.prepare('SELECT sealed FROM messages WHERE id = ?').get(id) as { sealed: number } | undefined;
      out[id] = r?.sealed ?? -1;
    }
    return out;
  });
}

test.describe('messages from before end-to-end encryption', () => {
  test('show under a divider, marked as not encrypted, and each sender re-encrypts their own in the background', async ({
    people,
    request,
  }) => {
    test.setTimeout(120_000);
    // Two accounts from before encryption, upgraded as they sign in: their keys say they had
    // messages in the clear until then (an account made with keys has none, and refuses them).
    const users = [makeUser('alice'), makeUser('bob')];
    const made = await Promise.all(users.map((u) => createUserViaApi(request, u)));
    await Promise.all(users.map((u, i) => makeLegacy(u, made[i]?.id as string)));
    const [alice, bob] = await Promise.all(users.map((u, i) => people.signIn(u, made[i]?.id as string)));
    if (!alice || !bob) throw new Error('two people');
    await openChat(alice.page, bob);
    await send(alice.page, 'sealed after the upgrade');
    await expect(bubble(alice.page, 'sealed after the upgrade').getByRole('img', { name: 'Sent' })).toBeVisible();
    const chatId = [alice.id, bob.id].sort().join('_');
    const start = Date.now() - 3_600_000;
    const legacy = [
      { id: `legacy-a1-${alice.id}`, from: alice, to: bob, text: 'from before, by alice', at: start },
      { id: `legacy-b1-${alice.id}`, from: bob, to: alice, text: 'from before, by bob', at: start + 1 },
      { id: `legacy-a2-${alice.id}`, from: alice, to: bob, text: 'also from before 🙂', at: start + 2 },
    ];
    insertLegacy(chatId, legacy);
    const ids = legacy.map((l) => l.id);
    const previous = withE2eDb((db) => db.prepare("SELECT value FROM settings WHERE key = 'e2ee_since'").get()) as
      | { value: string }
      | undefined;
    withE2eDb((db) =>
      db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('e2ee_since', ?)").run(String(start + 2)),
    );
    try {
      // Bob opens the chat: everything reads the same, the divider sits after the old messages.
      await openChat(bob.page, alice);
      for (const l of legacy) await expect(bubble(bob.page, l.text)).toBeVisible();
      // Alice's, still in the clear, are marked so (Bob's own are sealed again by his browser at once).
      for (const l of legacy.filter((x) => x.from === alice)) {
        await expect(bubble(bob.page, l.text).getByText('Not encrypted')).toBeVisible();
      }
      await expect(bubble(bob.page, 'sealed after the upgrade').getByText('Not encrypted')).toHaveCount(0);
      const divider = bob.page.getByText(DIVIDER);
      await expect(divider).toBeVisible();
      const y = async (text: string) => (await bubble(bob.page, text).boundingBox())?.y ?? 0;
      const dividerY = (await divider.boundingBox())?.y ?? 0;
      expect(dividerY).toBeGreaterThan(await y('also from before 🙂'));
      expect(dividerY).toBeLessThan(await y('sealed after the upgrade'));
      await shotSchemes(bob.page, 'e2ee-legacy-divider');
      // Bob's browser sealed his own; Alice's wait for hers.
      await expect
        .poll(() => sealedOf(ids))
        .toEqual({ [ids[0] as string]: 0, [ids[1] as string]: 1, [ids[2] as string]: 0 });

      await alice.page.goto('/home');
      await openChat(alice.page, bob);
      await expect(bubble(alice.page, 'also from before 🙂')).toBeVisible();
      await expect.poll(() => Object.values(sealedOf(ids))).toEqual([1, 1, 1]);
      const stored = withE2eDb((db) =>
        db.prepare(`SELECT text FROM messages WHERE id IN (${ids.map(() => '?').join(',')})`).all(...ids),
      ) as { text: string }[];
      for (const r of stored) expect(r.text).not.toMatch(/before/);

      // A reload reads the re-encrypted messages from their ciphertext; the divider stays where it was.
      await bob.page.reload();
      for (const l of legacy) await expect(bubble(bob.page, l.text)).toBeVisible();
      await expect(bob.page.getByText(DIVIDER)).toBeVisible();
    } finally {
      withE2eDb((db) => {
        if (previous) db.prepare("UPDATE settings SET value = ? WHERE key = 'e2ee_since'").run(previous.value);
        else db.prepare("DELETE FROM settings WHERE key = 'e2ee_since'").run();
      });
    }
  });
});

test.describe('an account from before end-to-end encryption', () => {
  test('signs in with its password once and gets keys; a session from before is asked for it once', async ({
    page,
    browser,
    request,
  }) => {
    const user = makeUser('legacy');
    const { id } = await createUserViaApi(request, user);
    await makeLegacy(user, id);
    // A session that began before the upgrade (the password was sent as it used to be).
    const signedIn = await page.request.post('/api/auth/signin', {
      data: { login: user.email, password: user.password },
    });
    expect(signedIn.status()).toBe(200);
    expect(await ownKeys(page)).toBeNull();
    await page.goto('/home');
    const banner = page.getByRole('status').filter({ hasText: 'Parley now encrypts your messages end to end.' });
    await expect(banner).toBeVisible();
    await shotSizes(page, 'e2ee-legacy-setup-banner');
    await banner.getByRole('button', { name: 'Set up' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set up end-to-end encryption' });
    await dialog.getByLabel('Password', { exact: true }).fill('not-my-password');
    await dialog.getByRole('button', { name: 'Set up' }).click();
    await expectToast(page, 'Could Not Unlock', 'The current password is incorrect');
    await dialog.getByLabel('Password', { exact: true }).fill(user.password);
    await dialog.getByRole('button', { name: 'Set up' }).click();
    await expectToast(page, 'Encryption Set Up');
    await expect(banner).toHaveCount(0);
    const keys = await ownKeys(page);
    expect(keys?.publicKeys.ik).toBeTruthy();

    // Another account from before signs in through the form: the password goes once, keys come with it.
    const other = makeUser('legacy');
    const otherId = (await createUserViaApi(request, other)).id;
    await makeLegacy(other, otherId);
    const context = await browser.newContext();
    const fresh = await context.newPage();
    const sent: string[] = [];
    fresh.on('request', (r) => {
      if ((r.postData() ?? '').includes(other.password)) sent.push(new URL(r.url()).pathname);
    });
    await fresh.goto('/signin');
    await submitSignIn(fresh, other.email, other.password);
    await expectToast(fresh, 'Welcome Back!', 'Successfully signed in');
    await expect(fresh).toHaveURL(/\/home$/);
    expect((await ownKeys(fresh))?.publicKeys.ik).toBeTruthy();
    await expect(fresh.getByRole('status').filter({ hasText: 'end to end' })).toHaveCount(0);
    // The password reached the server this one last time: the sign-in and the upgrade, nothing else.
    expect(sent.sort()).toEqual(['/api/auth/signin', '/api/me/upgrade-auth']);
    // From now on only the derived secret works: the password itself is refused.
    const again = await fresh.request.post('/api/auth/signin', {
      data: { login: other.email, password: other.password },
    });
    expect(again.status()).toBe(401);
    await context.close();
  });
});
