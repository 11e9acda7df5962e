/**
 * A malicious server (issue 28, docs/threat-model.md): an operator who changes the server's
 * answers or its database, not the JavaScript. Each test is one attack of the issue, made
 * the way such an operator would (answers rewritten on their way to the browser with
 * Playwright's route and routeWebSocket, rows edited in the running server's database), and
 * checks what the victim's screen shows and, where it applies, that the operator's attempt
 * to read gets nothing.
 */
import { createAccount, importAccount, openChatKey } from '@app/e2ee';
import { chatIdOf } from '@app/protocol';
import { putNewKeys } from '@app/server/test';
import type { BrowserContext, Page } from '@playwright/test';
import { E2E_BASE_URL, E2E_DB_FILE } from '../env.ts';
import { apiSignUp } from './api-accounts.ts';
import { expectToast, submitSignIn } from './auth-helpers.ts';
import {
  bubble,
  chatRow,
  expect,
  notSent,
  openChat,
  openMessageMenu,
  type Person,
  send,
  test,
} from './chat-helpers.ts';
import { makeUser, type NewUser, shotSchemes } from './fixtures.ts';
import { withDb } from './private-server.ts';

const UNVERIFIED = "This message couldn't be verified";
const ROLLED_BACK = 'An older version of this message was refused';
const db = <T>(run: (d: import('better-sqlite3').Database) => T): T => withDb(E2E_DB_FILE, run);

/** Rewrites what the server says on this context's sockets: `rewrite` gets each frame, parsed. */
async function rewriteFrames(context: BrowserContext, rewrite: (frame: Record<string, unknown>) => void) {
  await context.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((message) => {
      if (typeof message !== 'string') return ws.send(message);
      const frame = JSON.parse(message) as Record<string, unknown>;
      rewrite(frame);
      ws.send(JSON.stringify(frame));
    });
    ws.onMessage((message) => server.send(message));
  });
}

/** A person whose account the test can act for over HTTP (to give them a new identity, as a reset does). */
async function resettable(people: { signIn(u: NewUser, id: string): Promise<Person> }, prefix: string) {
  const user = makeUser(prefix);
  const { id, client, secrets } = await apiSignUp(E2E_BASE_URL, user);
  const person = await people.signIn(user, id);
  return { person, newIdentity: () => putNewKeys(client, id, secrets, 'identity') };
}

/** The sent bubbles' "Not sent" reason. */
async function notSentReason(page: Page, text: string): Promise<string> {
  const marker = notSent(bubble(page, text));
  await expect(marker).toBeVisible();
  return (await marker.getAttribute('title')) ?? '';
}

test.describe('a malicious server', () => {
  test('1. answering with keys of its own for the sender gets no chat key sealed to them', async ({ people }) => {
    const [alice, carol] = await Promise.all([people.person('alice'), people.person('carol')]);
    // The operator's own identity and encryption key, certified by itself, served as Alice's.
    const fake = await createAccount(alice.id);
    await rewriteFrames(alice.context, (f) => {
      const keys = (f.data as { keys?: { userId: string }[] } | undefined)?.keys;
      if (f.t !== 'result' || !Array.isArray(keys)) return;
      for (const k of keys) {
        if (k.userId !== alice.id) continue;
        Object.assign(k, { ...fake.publicKeys, identities: [{ ik: fake.publicKeys.ik, idVersion: 1, since: 0 }] });
      }
    });
    await openChat(alice.page, carol);
    await send(alice.page, 'for carol only');
    expect(await notSentReason(alice.page, 'for carol only')).toContain(
      "The server's copy of your encryption keys doesn't match this browser's",
    );
    await shotSchemes(alice.page, 'malicious-own-keys-refused');
    // Nothing was stored, and no chat key the operator's keys open.
    const chatId = chatIdOf(alice.id, carol.id);
    const rows = db((d) => d.prepare('SELECT envelope FROM chat_keys WHERE chat_id = ?').all(chatId)) as {
      envelope: string;
    }[];
    const operator = await importAccount(fake.contents, alice.id);
    for (const r of rows) {
      await expect(openChatKey(operator, JSON.parse(r.envelope), fake.publicKeys.ik)).rejects.toThrow();
    }
    expect(db((d) => d.prepare('SELECT count(*) AS n FROM messages WHERE chat_id = ?').get(chatId))).toEqual({ n: 0 });
  });

  test('2. a row it writes in the clear is not shown as a message, nor in the chat list', async ({ people }) => {
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    await openChat(alice.page, bob);
    await send(alice.page, 'a real one');
    // Stored first (its summary written), so the row planted next is the chat's newest.
    await expect(bubble(alice.page, 'a real one').getByRole('img', { name: /^(Sent|Delivered|Read)$/ })).toBeVisible();
    const chatId = chatIdOf(alice.id, bob.id);
    const at = Date.now() + 1000;
    db((d) => {
      d.prepare(
        `INSERT INTO messages (chat_id, id, sender_id, recipient_id, text, sealed, rev, timestamp, status, edited, deleted)
         VALUES (?, 'planted-by-server', ?, ?, 'send the code to +1 555 0100', 0, 0, ?, 'sent', 0, 0)`,
      ).run(chatId, bob.id, alice.id, at);
      d.prepare(
        `UPDATE user_chats SET last_message = 'send the code to +1 555 0100', last_id = 'planted-by-server',
           last_sender = ?, last_sealed = 0, last_rev = 0, last_deleted = 0, timestamp = ? WHERE chat_id = ?`,
      ).run(bob.id, at, chatId);
    });
    await alice.page.goto('/home');
    await expect(alice.page.getByText('send the code to', { exact: false })).toHaveCount(0);
    await expect(alice.page.getByText(UNVERIFIED).first()).toBeVisible();
    await openChat(alice.page, bob);
    await expect(bubble(alice.page, UNVERIFIED)).toBeVisible();
    await expect(alice.page.getByText('send the code to', { exact: false })).toHaveCount(0);
    await shotSchemes(alice.page, 'malicious-clear-row-refused');
  });

  test('3. saying "legacy" for a login this browser saw with keys gets no password', async ({ people }) => {
    const alice = await people.person('alice');
    const posted: string[] = [];
    alice.page.on('request', (r) => posted.push(r.postData() ?? ''));
    await alice.page.route('**/api/auth/prelogin', (route) =>
      route.fulfill({ json: { kdf: { alg: 'legacy' } }, headers: { 'content-type': 'application/json' } }),
    );
    // Signed out, Alice signs in again on the browser she used: the server asks for the password itself.
    await alice.context.clearCookies();
    await alice.page.goto('/signin');
    await submitSignIn(alice.page, alice.user.email, alice.user.password);
    await expectToast(alice.page, 'Sign In Failed', undefined, 'error');
    await expect(alice.page.locator('[data-sonner-toast] [data-description]').first()).toContainText(
      'your account uses end-to-end encryption, so this browser did not send it',
    );
    expect(posted.filter((p) => p.includes(alice.user.password))).toEqual([]);

    // Signed in (a browser that holds her keys), the server says she has none and asks again:
    // confirming a change with the password does not send it either.
    await alice.page.unroute('**/api/auth/prelogin');
    const again = await people.signIn(alice.user, alice.id);
    const sent: string[] = [];
    again.page.on('request', (r) => sent.push(r.postData() ?? ''));
    await again.page.route('**/api/auth/prelogin', (route) =>
      route.fulfill({ json: { kdf: { alg: 'legacy' } }, headers: { 'content-type': 'application/json' } }),
    );
    await again.page.route('**/api/me/keys', (route) =>
      route.request().method() === 'GET' ? route.fulfill({ json: { keys: null } }) : route.fallback(),
    );
    await again.page.goto('/account');
    await again.page.getByRole('button', { name: 'Delete Account' }).click();
    const dialog = again.page.getByRole('dialog');
    await dialog.getByLabel('Password', { exact: true }).fill(alice.user.password);
    await dialog.getByRole('button', { name: 'Delete Account' }).click();
    await expectToast(again.page, 'Failed to Delete Account', undefined, 'error');
    // No "set up encryption" banner asks for it on the chat list either.
    await again.page.goto('/home');
    await expect(again.page.getByText('Parley now encrypts your messages end to end.')).toHaveCount(0);
    expect(sent.filter((p) => p.includes(alice.user.password))).toEqual([]);
  });

  test('4. KDF settings under the browser’s floor are refused at sign-in and at sign-up', async ({ page, people }) => {
    const alice = await people.person('alice');
    await alice.context.clearCookies();
    const weak = { alg: 'scrypt', N: 1024, r: 1, p: 1 };
    await alice.page.route('**/api/auth/prelogin', async (route) => {
      const real = await (await route.fetch()).json();
      await route.fulfill({ json: { ...real, kdf: weak } });
    });
    const signIns: string[] = [];
    alice.page.on('request', (r) => {
      if (r.url().endsWith('/api/auth/signin')) signIns.push(r.url());
    });
    await alice.page.goto('/signin');
    await submitSignIn(alice.page, alice.user.email, alice.user.password);
    await expectToast(
      alice.page,
      'Sign In Failed',
      'This server asked for weaker password protection than this browser allows, so your password was not used. Contact the server’s operator.',
    );
    expect(signIns).toEqual([]);

    // A new password (sign-up) under the settings' weak parameters: refused before anything is derived.
    await page.route('**/api/settings', async (route) => {
      const real = await (await route.fetch()).json();
      await route.fulfill({ json: { ...real, kdf: weak } });
    });
    const signUps: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/auth/signup')) signUps.push(r.url());
    });
    const { fillSignUp } = await import('./auth-helpers.ts');
    await page.goto('/signup');
    await fillSignUp(page, makeUser('weak'));
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await expect(page.locator('[data-sonner-toast] [data-description]').first()).toContainText(
      'weaker password protection than this browser allows',
    );
    expect(signUps).toEqual([]);
  });

  test('5. a key swap it back-dates still warns, blocks a verified contact, and survives signing out', async ({
    people,
  }) => {
    test.setTimeout(120_000);
    const alice = await people.person('alice');
    const bob = await resettable(people, 'bob');
    await openChat(alice.page, bob.person);
    await send(alice.page, 'before the swap');
    await alice.page.getByRole('button', { name: 'Compare security code' }).click();
    const verify = alice.page.getByRole('dialog', { name: 'Compare security code' });
    await verify.getByRole('button', { name: 'Mark as confirmed' }).click();
    await expect(verify.getByText(`You confirmed ${bob.person.handle}’s code.`)).toBeVisible();
    await verify.press('Escape');

    // The operator swaps Bob's keys (as a reset would) and dates the new identity a day back.
    await bob.newIdentity();
    db((d) =>
      d
        .prepare('UPDATE user_identities SET created_at = ? WHERE user_id = ? AND id_version = 2')
        .run(Date.now() - 86_400_000, bob.person.id),
    );
    // Alice signs out and in again (a new browser: nothing of the old one's).
    await alice.page.goto('/account');
    await alice.page.getByRole('button', { name: 'Logout' }).click();
    await expect(alice.page).toHaveURL(/\/signin/);
    const again = await people.signIn(alice.user, alice.id);
    await openChat(again.page, bob.person);
    // The line sits after the last message (where this browser saw the change), not a day back.
    const line = again.page.getByRole('button', {
      name: `${bob.person.handle}’s security code changed. Tap to compare.`,
    });
    await expect(line).toBeVisible();
    const y = async (l: import('@playwright/test').Locator) => (await l.boundingBox())?.y ?? 0;
    expect(await y(line)).toBeGreaterThan(await y(bubble(again.page, 'before the swap')));
    await expect(again.page.getByRole('region', { name: 'Security code changed' })).toBeVisible();
    await expect(again.page.getByRole('textbox', { name: 'Message', exact: true })).toHaveCount(0);
    await shotSchemes(again.page, 'malicious-key-swap-blocked');
  });

  test('6. without “Remember me” the keys stay in the tab: the closed profile opens nothing', async ({
    browser,
    people,
  }) => {
    const bob = await people.person('bob');
    const alice = await people.person('alice');
    await openChat(bob.page, alice);
    await send(bob.page, 'for alice, remembered nowhere');
    // Alice signs in on a shared computer, without "Remember me".
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto('/signin');
    await page.locator('#signin-login').fill(alice.user.email);
    await page.locator('#signin-password').fill(alice.user.password);
    await page.getByLabel('Remember me').uncheck();
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page).toHaveURL(/\/home$/);
    // Into the chat without loading the page again (that would ask for the password already).
    await chatRow(page, bob.handle).click();
    await expect(bubble(page, 'for alice, remembered nowhere')).toBeVisible();
    // What stays in the profile: no key database, no account record.
    const stored = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    expect(stored).not.toContain('parley-keys');
    // Another tab opened meanwhile gets the keys from this one (nothing at rest in between).
    const second = await context.newPage();
    await second.goto(`/chat/${bob.id}`);
    await expect(bubble(second, 'for alice, remembered nowhere')).toBeVisible();
    await second.close();
    // A reload (or a thief opening the profile) finds no keys: the password is asked for again.
    await page.reload();
    await expect(bubble(page, '🔒 Sign in again on this browser to read this message')).toBeVisible();
    await expect(page.getByText('for alice, remembered nowhere')).toHaveCount(0);
    await context.close();
  });

  test('7. a rolled-back edit and a forged deletion are refused', async ({ people }) => {
    const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
    await openChat(alice.page, bob);
    for (const text of ['pay 10', 'keep this one']) {
      await send(alice.page, text);
      await expect(bubble(alice.page, text).getByRole('img', { name: /^(Sent|Delivered|Read)$/ })).toBeVisible();
    }
    const id = async (text: string) => (await bubble(alice.page, text).getAttribute('data-message-id')) ?? '';
    const [paid, kept] = [await id('pay 10'), await id('keep this one')];
    const before = db((d) => d.prepare('SELECT text FROM messages WHERE id = ?').get(paid)) as { text: string };
    const menu = await openMessageMenu(alice.page, bubble(alice.page, 'pay 10'));
    await menu.getByRole('menuitem', { name: 'Edit' }).click();
    const edit = alice.page.getByRole('textbox', { name: 'Edit message' });
    await edit.fill('pay 1000');
    await edit.press('Enter');
    await expect(bubble(alice.page, 'pay 1000')).toBeVisible();
    await openChat(bob.page, alice);
    await expect(bubble(bob.page, 'pay 1000')).toBeVisible();
    await expect(bubble(bob.page, 'keep this one')).toBeVisible();

    // The operator restores the text before the edit, and marks the other message deleted.
    db((d) => {
      d.prepare('UPDATE messages SET text = ?, rev = 0, edited = 0 WHERE id = ?').run(before.text, paid);
      d.prepare("UPDATE messages SET deleted = 1, text = '' WHERE id = ?").run(kept);
    });
    await bob.page.reload();
    await expect(bubble(bob.page, ROLLED_BACK)).toBeVisible();
    await expect(bubble(bob.page, UNVERIFIED)).toBeVisible();
    await expect(bob.page.getByText('pay 10', { exact: true })).toHaveCount(0);
    await expect(bob.page.getByText('This message deleted', { exact: true })).toHaveCount(0);
    await shotSchemes(bob.page, 'malicious-rollback-refused');
  });

  test('8. an older key bundle is refused at sign-in', async ({ people }) => {
    const alice = await people.person('alice');
    // Alice's keys move on (another browser unlocked something, say): her bundle is version 2 here.
    const v1 = await alice.page.request.get('/api/me/keys');
    const older = (await v1.json()).keys;
    await alice.page.goto('/account');
    await alice.page.locator('#account-current-password').fill(alice.user.password);
    await alice.page.locator('#account-new-password').fill('a-new-password-2');
    await alice.page.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(alice.page, 'Password Updated');
    // Signing in again, the server hands back the bundle of before.
    await alice.context.clearCookies();
    await alice.page.route('**/api/auth/signin', async (route) => {
      const real = await (await route.fetch()).json();
      await route.fulfill({ json: { ...real, keys: { ...real.keys, bundle: older.bundle, bundleVersion: 1 } } });
    });
    await alice.page.goto('/signin');
    await submitSignIn(alice.page, alice.user.email, 'a-new-password-2');
    await expect(alice.page.locator('[data-sonner-toast] [data-description]').first()).toContainText(
      'The server sent older encryption keys (version 1) than this browser holds (version 2)',
    );
    // Not signed in halfway: the session the refused sign-in made is ended.
    await alice.page.goto('/home');
    await expect(alice.page).toHaveURL(/\/signin/);

    // A browser with no copy of the keys, told her bundle is stale (sealed by a password from
    // before a reset) though it opens with her password: no new identity is made.
    const before = older.publicKeys.ik;
    const context = await alice.page.context().browser()?.newContext();
    if (!context) throw new Error('no browser');
    const page = await context.newPage();
    await page.route('**/api/auth/signin', async (route) => {
      const real = await (await route.fetch()).json();
      await route.fulfill({ json: { ...real, keys: { ...real.keys, stale: true } } });
    });
    await page.goto('/signin');
    await submitSignIn(page, alice.user.email, 'a-new-password-2');
    await expect(page).toHaveURL(/\/home$/);
    const now = (await (await page.request.get('/api/me/keys')).json()).keys;
    expect(now.publicKeys.ik).toBe(before);
    expect(now.idVersion).toBe(1);
    await context.close();
  });

  test('9. an address has a salt of its own; one from before gets it at sign-in; a wrap that does not open signs nobody in', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const emailLogin = () =>
      db(
        (d) =>
          (d.prepare('SELECT email_login FROM users WHERE id = ?').get(alice.id) as { email_login: string | null })
            .email_login,
      );
    const saltOf = async (login: string) =>
      (await (await alice.page.request.post('/api/auth/prelogin', { data: { login } })).json()).salt as string;
    // An account whose password was set before addresses had their own salt.
    db((d) => d.prepare('UPDATE users SET email_login = NULL WHERE id = ?').run(alice.id));
    expect(await saltOf(alice.user.email)).toBe(await saltOf(alice.user.username));
    await alice.context.clearCookies();
    await alice.page.goto('/signin');
    await submitSignIn(alice.page, alice.user.email, alice.user.password);
    await expect(alice.page).toHaveURL(/\/home$/);
    // Her browser gives the address its own, in the background.
    await expect.poll(emailLogin).not.toBeNull();
    expect(await saltOf(alice.user.email)).not.toBe(await saltOf(alice.user.username));

    // Signing in with the address opens the handle's keys from its wrap; one changed by the server does not.
    await alice.context.clearCookies();
    await alice.page.route('**/api/auth/signin', async (route) => {
      const real = await (await route.fetch()).json();
      const wrap = real.wrap as string;
      await route.fulfill({
        json: { ...real, wrap: `${wrap.slice(0, 40)}${wrap[40] === 'A' ? 'B' : 'A'}${wrap.slice(41)}` },
      });
    });
    await alice.page.goto('/signin');
    await submitSignIn(alice.page, alice.user.email, alice.user.password);
    await expect(alice.page.locator('[data-sonner-toast] [data-description]').first()).toContainText(
      "The server's answer for this e-mail address doesn't open with your password",
    );
    await alice.page.goto('/home');
    await expect(alice.page).toHaveURL(/\/signin/);
    await alice.page.unroute('**/api/auth/signin');
    await submitSignIn(alice.page, alice.user.email, alice.user.password);
    await expect(alice.page).toHaveURL(/\/home$/);
  });

  test('10. a file swapped for another blob, or a blob of another length, is not shown', async ({ people }) => {
    const [alice, bob] = [await people.person('alice'), await people.person('bob')];
    await openChat(alice.page, bob);
    await openChat(bob.page, alice);
    const drop = async (name: string, text: string) => {
      const dt = await alice.page.evaluateHandle(
        ([n, t]) => {
          const d = new DataTransfer();
          d.items.add(new File([t as string], n as string, { type: 'text/plain' }));
          return d;
        },
        [name, text],
      );
      await alice.page
        .getByRole('region', { name: `Conversation with ${bob.handle}` })
        .dispatchEvent('drop', { dataTransfer: dt });
      await alice.page
        .getByRole('dialog', { name: 'Send 1 file' })
        .getByRole('button', { name: 'Send', exact: true })
        .click();
    };
    await drop('one.txt', 'the first file');
    await drop('two.txt', 'the second file, longer');
    const one = bob.page.getByRole('button', { name: 'Download one.txt' });
    const two = bob.page.getByRole('button', { name: 'Download two.txt' });
    await expect(two).toBeVisible();
    // The server answers every download with the same sealed blob: the first file's.
    let first: Buffer | null = null;
    await bob.page.route('**/api/attachments/*', async (route) => {
      const res = await route.fetch();
      first ??= await res.body();
      await route.fulfill({ response: res, body: first });
    });
    const saving = bob.page.waitForEvent('download');
    await one.click();
    expect((await saving).suggestedFilename()).toBe('one.txt');
    await two.click();
    await expect(bob.page.getByText("This file couldn't be verified")).toBeVisible();
  });
});
