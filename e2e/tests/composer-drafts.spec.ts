/**
 * The composer and the chat list's rows (issue 15): a text area that grows with its lines,
 * Enter sends and Shift+Enter starts a new line (a touch screen: Enter is a new line, the
 * button sends), the unsent text of each chat kept as its draft (sealed at rest) across
 * Back, another chat and a reload, the list showing "Draft: ..." and "You: ..." with
 * ticks, and the counter near the length limit.
 */
import { devices, type Page } from '@playwright/test';
import { E2E_BASE_URL } from '../env.ts';
import {
  bubble,
  bubbles,
  chatRow,
  expect,
  openChat,
  type Person,
  runTag,
  send,
  shotSizes,
  test,
  tick,
} from './chat-helpers.ts';
import { signInViaApi } from './fixtures.ts';

function composer(page: Page) {
  return page.getByRole('textbox', { name: 'Message', exact: true });
}

async function height(page: Page): Promise<number> {
  return (await composer(page).boundingBox())?.height ?? 0;
}

/** The drafts at rest in this page's IndexedDB ('parley-drafts'), as JSON ('' when there is no such database). */
function draftsAtRest(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const names = (await indexedDB.databases()).map((d) => d.name);
    if (!names.includes('parley-drafts')) return '';
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('parley-drafts');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    try {
      if (!db.objectStoreNames.contains('drafts')) return '[]';
      const rows = await new Promise<unknown[]>((resolve, reject) => {
        const req = db.transaction('drafts').objectStore('drafts').getAll();
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      return JSON.stringify(rows);
    } finally {
      db.close();
    }
  });
}

/** Waits until the drafts at rest hold `count` records, none of them with `plain` in the clear. */
async function expectDraftsAtRest(page: Page, count: number, plain: string): Promise<void> {
  await expect
    .poll(async () => {
      const json = await draftsAtRest(page);
      return json === '' ? 0 : (JSON.parse(json) as unknown[]).length;
    })
    .toBe(count);
  expect(await draftsAtRest(page)).not.toContain(plain);
}

async function goHome(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page).toHaveURL('/home');
}

test.describe('composer and drafts', () => {
  test('Shift+Enter starts a new line and the sent message keeps it; Enter sends; the composer grows to six lines, then scrolls', async ({
    people,
  }) => {
    const tag = runTag();
    const bob = await people.person('bob', { username: `bob_${tag}` });
    const alice = await people.person('alice', { username: `alice_${tag}` });
    const a = alice.page;
    await openChat(a, bob);
    const input = composer(a);
    const oneLine = await height(a);
    expect(oneLine).toBeGreaterThanOrEqual(40);

    await input.click();
    await a.keyboard.type('first line');
    await a.keyboard.press('Shift+Enter');
    await a.keyboard.type('second line');
    await expect(input).toHaveValue('first line\nsecond line');
    expect(await height(a)).toBeGreaterThan(oneLine + 10);
    await expect(bubbles(a)).toHaveCount(0);

    // Past six lines the area stops growing and scrolls.
    for (let i = 3; i <= 6; i++) {
      await a.keyboard.press('Shift+Enter');
      await a.keyboard.type(`line ${i}`);
    }
    const sixLines = await height(a);
    for (let i = 7; i <= 10; i++) {
      await a.keyboard.press('Shift+Enter');
      await a.keyboard.type(`line ${i}`);
    }
    expect(await height(a)).toBe(sixLines);
    expect(await input.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);

    await input.fill('');
    expect(await height(a)).toBe(oneLine);
    await a.keyboard.type('first line');
    await a.keyboard.press('Shift+Enter');
    await a.keyboard.type('second line');
    await a.keyboard.press('Enter');
    await expect(input).toHaveValue('');
    await expect(bubble(a, 'first line\nsecond line')).toHaveCount(1);
    expect(await height(a)).toBe(oneLine);

    // fill + Enter (how the other specs type) still sends.
    await send(a, 'plain Enter');
    await expect(bubble(a, 'plain Enter')).toHaveCount(1);

    // Bob reads both lines.
    await openChat(bob.page, alice);
    await expect(bubble(bob.page, 'first line\nsecond line')).toHaveCount(1);
  });

  test('on a touch screen Enter starts a new line and the send button sends', async ({ browser, people }) => {
    const tag = runTag();
    const bob = await people.person('bob', { username: `bob_${tag}` });
    const alice = await people.person('alice', { username: `alice_${tag}` });
    const phone = await browser.newContext({ ...devices['Pixel 7'], baseURL: E2E_BASE_URL });
    try {
      const p = await phone.newPage();
      await signInViaApi(p, alice.user.email, alice.user.password);
      await openChat(p, bob);
      expect(await p.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
      const input = composer(p);
      await expect(input).toHaveAttribute('enterkeyhint', 'enter');
      await input.tap();
      await p.keyboard.type('from my phone');
      await p.keyboard.press('Enter');
      await p.keyboard.type('second line');
      await expect(input).toHaveValue('from my phone\nsecond line');
      await expect(bubbles(p)).toHaveCount(0);
      await p.getByRole('button', { name: 'Send', exact: true }).tap();
      await expect(input).toHaveValue('');
      await expect(bubble(p, 'from my phone\nsecond line')).toHaveCount(1);
    } finally {
      await phone.close();
    }
  });

  test('a draft is kept per chat across Back, another chat and a reload, shown in the list, removed when sent or emptied, wiped at sign-out', async ({
    people,
  }) => {
    // Three people and some thirty steps: 33 s on a quiet machine, past the default 90 s
    // under a loaded CI run (it timed out at three different steps with both cores busy).
    test.setTimeout(240_000);
    const tag = runTag();
    const bob = await people.person('bob', { username: `bob_${tag}` });
    const carol = await people.person('carol', { username: `carol_${tag}` });
    const alice = await people.person('alice', { username: `alice_${tag}` });
    const a = alice.page;
    const chatWith = async (p: Person, text: string) => {
      await openChat(a, p);
      await send(a, text);
      // At the server before the page goes (openChat loads another): a text sent as the
      // page goes is the draft's until the outbox holds it (client/drafts/drafts.ts).
      await expect(bubble(a, text).getByRole('img', { name: /^(Sent|Delivered|Read)$/ })).toBeVisible();
    };
    await chatWith(carol, 'hi carol');
    await chatWith(bob, 'hi bob');

    // A two-line draft for bob, then Back: the list shows it instead of the last message.
    await composer(a).fill('see you\nat noon');
    await goHome(a);
    const bobRow = chatRow(a, bob.handle);
    await expect(bobRow).toContainText('Draft: see you');
    await expect(bobRow).not.toContainText('hi bob');
    // Carol's row: own last message, "You: " and its tick.
    const carolRow = chatRow(a, carol.handle);
    await expect(carolRow).toContainText('You: hi carol');
    await expect(carolRow.getByRole('img', { name: /^(Sent|Delivered|Read)$/ })).toBeVisible();

    // Carol reads it: alice's row turns to Read, live.
    await openChat(carol.page, alice);
    await expect(carolRow.getByRole('img', { name: 'Read', exact: true })).toBeVisible();

    // Back in bob's chat the draft is there; carol's chat has none of it.
    await bobRow.getByRole('link').click();
    await expect(composer(a)).toHaveValue('see you\nat noon');
    await openChat(a, carol);
    await expect(composer(a)).toHaveValue('');
    await composer(a).fill('carol draft');
    // Written sealed (no plaintext at rest), then a reload restores it.
    await expectDraftsAtRest(a, 2, 'carol draft');
    await a.reload();
    await expect(composer(a)).toHaveValue('carol draft');
    // The browser's Back keeps it too.
    await a.goBack();
    await a.goForward();
    await expect(composer(a)).toHaveValue('carol draft');

    await shotSizes(a, 'composer-draft', async () => {
      await openChat(a, bob);
      await expect(composer(a)).toHaveValue('see you\nat noon');
    });

    // Emptied: carol's draft is gone from the list.
    await openChat(a, carol);
    await composer(a).fill('');
    await goHome(a);
    await expect(carolRow).toContainText('You: hi carol');
    await expect(carolRow).not.toContainText('Draft:');
    await shotSizes(a, 'chat-list-draft-you', async () => {
      await expect(bobRow).toContainText('Draft: see you');
      await expect(carolRow.getByRole('img', { name: 'Read', exact: true })).toBeVisible();
    });

    // Sent: bob's draft is gone, and the list shows it as alice's last message.
    await bobRow.getByRole('link').click();
    await expect(composer(a)).toHaveValue('see you\nat noon');
    await composer(a).press('Enter');
    await expect(bubble(a, 'see you\nat noon')).toHaveCount(1);
    await expect(
      tick(bubble(a, 'see you\nat noon'), 'Sent').or(tick(bubble(a, 'see you\nat noon'), 'Delivered')),
    ).toBeVisible();
    await goHome(a);
    await expect(bobRow).toContainText('You: see you');
    await expect(bobRow).not.toContainText('Draft:');
    await expectDraftsAtRest(a, 0, 'see you');

    // A draft left at sign-out is wiped with the rest of this browser's data.
    await openChat(a, bob);
    await composer(a).fill('left behind');
    await expectDraftsAtRest(a, 1, 'left behind');
    await a.goto('/account');
    await a.getByRole('button', { name: 'Logout', exact: true }).click();
    await expect(a).toHaveURL(/\/signin/);
    await expect.poll(() => draftsAtRest(a)).toBe('');
  });

  test('near the limit a counter shows; over it the composer says why and does not send', async ({ people }) => {
    const tag = runTag();
    const bob = await people.person('bob', { username: `bob_${tag}` });
    const alice = await people.person('alice', { username: `alice_${tag}` });
    const a = alice.page;
    await openChat(a, bob);
    const input = composer(a);

    await input.fill('x'.repeat(3499));
    await expect(a.getByText('/ 4,096')).toHaveCount(0);
    await input.fill('x'.repeat(3612));
    await expect(a.getByText('3,612 / 4,096')).toBeVisible();
    await expect(input).toHaveAttribute('aria-invalid', 'false');
    await shotSizes(a, 'composer-counter');

    await input.fill('x'.repeat(4097));
    await expect(a.getByText('4,097 / 4,096')).toBeVisible();
    await expect(a.getByRole('alert').filter({ hasText: 'Messages can be at most 4096 characters' })).toBeVisible();
    await expect(input).toHaveAttribute('aria-invalid', 'true');
    await input.press('Enter');
    await a.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(input).toHaveValue('x'.repeat(4097));
    await expect(bubbles(a)).toHaveCount(0);
    await shotSizes(a, 'composer-over-limit');

    // Back to the limit: it sends.
    await input.press('Backspace');
    await expect(a.getByText('4,096 / 4,096')).toBeVisible();
    await input.press('Enter');
    await expect(input).toHaveValue('');
    await expect(bubbles(a)).toHaveCount(1);
  });
});
