/**
 * A message the server refuses for good stays in the conversation, marked "Not sent"
 * with the reason, survives a reload, does not hold back later messages, and can be
 * retried or deleted from its menu. The refusal is a real one: the recipient's account
 * is blocked by the administrator, so the server answers 'recipient_unavailable'.
 */
import { expect, expectToast, findUser, test, withDb } from './admin-helpers.ts';
import {
  bubble,
  bubbles,
  closeToasts,
  messageMenu,
  notSent,
  openChat,
  openMessageMenu,
  outboxEntries,
  runTag,
  send,
  shotSizes,
  tick,
} from './chat-helpers.ts';

const REASON = 'This account is not available';

test('a refused message stays as "Not sent": it survives a reload, holds back nothing, and can be retried or deleted', async ({
  world,
  adminPerson,
  server,
}) => {
  test.setTimeout(180_000);
  const [bob, carol] = await Promise.all([world.person('bob'), world.person('carol')]);
  const admin = adminPerson.page;
  const tag = runTag();
  const texts = {
    before: `Before the block ${tag}`,
    refused: `Are you there? ${tag}`,
    second: `Hello? ${tag}`,
    after: `After the unblock ${tag}`,
  };
  // Stored text is sealed: a message is found in the database by its id (the bubble's).
  const ids = new Map<string, string>();
  const idOf = async (text: string) => {
    let id = ids.get(text);
    if (id === undefined) {
      id = (await bubble(bob.page, text).first().getAttribute('data-message-id')) ?? '';
      ids.set(text, id);
    }
    return id;
  };
  const storedCount = async (text: string) => {
    const id = await idOf(text);
    return (
      withDb(server.dbFile, (db) => db.prepare('SELECT count(*) AS n FROM messages WHERE id = ?').get(id)) as {
        n: number;
      }
    ).n;
  };

  await openChat(bob.page, carol);
  await send(bob.page, texts.before);
  await expect(tick(bubble(bob.page, texts.before), 'Sent')).toBeVisible();

  // The administrator blocks Carol: the server refuses messages to her for good.
  const row = await findUser(admin, carol.user.username);
  await row.getByRole('button', { name: `Block ${carol.handle}`, exact: true }).click();
  await expectToast(admin, 'User Blocked', undefined, 'success');

  await send(bob.page, texts.refused);
  await expectToast(bob.page, 'Message Not Sent', REASON, 'error');
  const refused = bubble(bob.page, texts.refused);
  await expect(refused).toBeVisible();
  const marker = notSent(refused);
  await expect(marker).toBeVisible();
  await expect(marker).toHaveAttribute('title', REASON);
  await expect(marker).toHaveAttribute('aria-description', REASON);
  // No ticks, no clock: it is not on its way.
  for (const name of ['Pending', 'Sent', 'Delivered', 'Read'] as const)
    await expect(tick(refused, name)).toHaveCount(0);

  // Each message is refused on its own; neither waits for the other.
  await send(bob.page, texts.second);
  await expect(notSent(bubble(bob.page, texts.second))).toBeVisible();
  await expect(bubbles(bob.page).locator('p')).toHaveText([texts.before, texts.refused, texts.second]);
  expect(await storedCount(texts.refused)).toBe(0);
  expect(await storedCount(texts.second)).toBe(0);
  await expect
    .poll(() => outboxEntries(bob.page))
    .toEqual([
      { sealed: true, failed: 'recipient_unavailable' },
      { sealed: true, failed: 'recipient_unavailable' },
    ]);

  await shotSizes(bob.page, 'outbox-failed', async () => {
    await expect(notSent(bubble(bob.page, texts.second))).toBeVisible();
  });

  // The failed state survives a reload (from the IndexedDB outbox), and nothing is sent again.
  await bob.page.reload();
  await expect(notSent(bubble(bob.page, texts.refused))).toBeVisible();
  await expect(notSent(bubble(bob.page, texts.second))).toBeVisible();
  await expect(bubbles(bob.page).locator('p')).toHaveText([texts.before, texts.refused, texts.second]);

  await shotSizes(bob.page, 'outbox-failed-menu', async () => {
    await openMessageMenu(bob.page, refused);
  });
  await bob.page.keyboard.press('Escape');
  await expect(messageMenu(bob.page)).toHaveCount(0);

  // Its menu: Copy, Info (which says why), Retry, Delete; no Edit.
  let menu = await openMessageMenu(bob.page, refused);
  await expect(menu.getByRole('menuitem')).toHaveText(['Copy', 'Info', 'Retry', 'Delete']);
  await menu.getByRole('menuitem', { name: 'Info' }).click();
  await expect(bob.page.getByRole('dialog', { name: 'Message info' })).toContainText(`Not sent${REASON}`);
  await bob.page.keyboard.press('Escape');
  // The marker opens the same menu.
  await marker.click();
  await expect(messageMenu(bob.page).getByRole('menuitem')).toHaveText(['Copy', 'Info', 'Retry', 'Delete']);
  await bob.page.keyboard.press('Escape');

  // Unblocked: a new message goes out although the failed ones are still there (and stay put).
  await row.getByRole('button', { name: `Unblock ${carol.handle}`, exact: true }).click();
  await expectToast(admin, 'User Unblocked', undefined, 'success');
  await closeToasts(bob.page);
  await send(bob.page, texts.after);
  await expect(tick(bubble(bob.page, texts.after), 'Sent')).toBeVisible();
  await expect(bubbles(bob.page).locator('p')).toHaveText([texts.before, texts.refused, texts.second, texts.after]);
  await expect(notSent(bubble(bob.page, texts.refused))).toBeVisible();
  expect(await storedCount(texts.after)).toBe(1);

  // Retry: sent with its id, stored once, ticks instead of the marker (now after the last one).
  menu = await openMessageMenu(bob.page, refused);
  await menu.getByRole('menuitem', { name: 'Retry' }).click();
  await expect(tick(refused, 'Sent')).toBeVisible();
  await expect(notSent(refused)).toHaveCount(0);
  await expect(bubbles(bob.page).locator('p')).toHaveText([texts.before, texts.second, texts.after, texts.refused]);
  expect(await storedCount(texts.refused)).toBe(1);

  // Delete: gone from the conversation and the outbox, never stored, and still gone after a reload.
  menu = await openMessageMenu(bob.page, bubble(bob.page, texts.second));
  await menu.getByRole('menuitem', { name: 'Delete' }).click();
  await expect(bubble(bob.page, texts.second)).toHaveCount(0);
  await expect.poll(() => outboxEntries(bob.page)).toEqual([]);
  await bob.page.reload();
  await expect(bubbles(bob.page).locator('p')).toHaveText([texts.before, texts.after, texts.refused]);
  expect(await storedCount(texts.second)).toBe(0);
});

test('the composer does not queue a text the protocol refuses, and says why', async ({ people }) => {
  const [alice, bob] = await Promise.all([people.person('alice'), people.person('bob')]);
  await openChat(alice.page, bob);
  const input = alice.page.getByRole('textbox', { name: 'Message', exact: true });
  // Half an emoji (an unpaired surrogate), as a cut paste may leave it: set as the DOM
  // holds it (typing goes through UTF-8, which cannot carry it).
  await input.evaluate((el: HTMLTextAreaElement, value) => {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set;
    setter?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, 'Cut \uD83D');
  await input.press('Enter');
  const alert = alice.page.getByRole('alert').filter({ hasText: 'Text contains characters that cannot be stored' });
  await expect(alert).toBeVisible();
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  await expect(input).toHaveValue('Cut \uD83D');
  await expect(bubbles(alice.page)).toHaveCount(0);
  await expect.poll(() => outboxEntries(alice.page)).toEqual([]);
  await shotSizes(alice.page, 'composer-refused-text');

  // Corrected, it goes.
  await input.fill('Cut');
  await expect(alert).toHaveCount(0);
  await input.press('Enter');
  await expect(tick(bubble(alice.page, 'Cut'), 'Sent')).toBeVisible();
});
