/**
 * The per-message menu (spec section 2 "Chat"; section 4 "Editing a message", "Deleting
 * a message"): Copy and Info on every message, Edit and Delete on own ones, by its button
 * or a right-click; none on deleted messages. Both people watch in their own browsers.
 */
import { expectToast } from './auth-helpers.ts';
import {
  bubble,
  expect,
  messageMenu,
  openChat,
  openMessageMenu,
  optionsButton,
  type People,
  type PersonOptions,
  send,
  test,
  tick,
} from './chat-helpers.ts';
import { expectReadable } from './contrast.ts';

/** alice and bob, each in the chat with the other, after alice wrote `text` and bob read it. */
async function talking(people: People, text: string, opts: PersonOptions = {}) {
  const alice = await people.person('alice', opts);
  const bob = await people.person('bob', opts);
  await openChat(alice.page, bob);
  await openChat(bob.page, alice);
  await send(alice.page, text);
  await expect(bubble(bob.page, text)).toBeVisible();
  await expect(tick(bubble(alice.page, text), 'Read')).toBeVisible();
  return { alice, bob };
}

const DATE_TIME = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/;

test.describe('message menu', () => {
  test('own messages offer Reply, React, Forward, Copy, Info, Edit, Delete; the peer’s no Edit or Delete; right-click opens it too', async ({
    people,
  }) => {
    const { alice, bob } = await talking(people, 'Mine to change');
    await send(bob.page, 'Yours to read');
    const a = alice.page;
    await expect(bubble(a, 'Yours to read')).toBeVisible();

    let menu = await openMessageMenu(a, bubble(a, 'Mine to change'));
    await expect(menu.getByRole('menuitem')).toHaveText([
      'Reply',
      'React',
      'Forward',
      'Copy',
      'Info',
      'Edit',
      'Delete',
    ]);
    // The keyboard works in it: focus on the first item, arrows move, Escape returns focus.
    await expect(menu.getByRole('menuitem', { name: 'Reply' })).toBeFocused();
    await a.keyboard.press('ArrowDown');
    await expect(menu.getByRole('menuitem', { name: 'React' })).toBeFocused();
    await a.keyboard.press('ArrowUp');
    await a.keyboard.press('ArrowUp');
    await expect(menu.getByRole('menuitem', { name: 'Delete' })).toBeFocused();
    await a.keyboard.press('Escape');
    await expect(messageMenu(a)).toHaveCount(0);
    await expect(optionsButton(bubble(a, 'Mine to change'))).toBeFocused();

    menu = await openMessageMenu(a, bubble(a, 'Yours to read'));
    await expect(menu.getByRole('menuitem')).toHaveText(['Reply', 'React', 'Forward', 'Copy', 'Info']);
    await a.keyboard.press('Escape');
    await expect(messageMenu(a)).toHaveCount(0);

    // A right-click on the bubble opens the same menu (and a click elsewhere closes it).
    menu = await openMessageMenu(a, bubble(a, 'Mine to change'), 'right-click');
    await expect(menu.getByRole('menuitem')).toHaveText([
      'Reply',
      'React',
      'Forward',
      'Copy',
      'Info',
      'Edit',
      'Delete',
    ]);
    // (Not on the header's name: that opens the contact panel.)
    await a.getByRole('region', { name: /^Conversation with / }).click({ position: { x: 2, y: 2 } });
    await expect(messageMenu(a)).toHaveCount(0);
    menu = await openMessageMenu(a, bubble(a, 'Yours to read'), 'right-click');
    await expect(menu.getByRole('menuitem')).toHaveText(['Reply', 'React', 'Forward', 'Copy', 'Info']);

    // Bob sees the mirror image.
    menu = await openMessageMenu(bob.page, bubble(bob.page, 'Mine to change'), 'right-click');
    await expect(menu.getByRole('menuitem')).toHaveText(['Reply', 'React', 'Forward', 'Copy', 'Info']);
  });

  test('Info shows the text and Sent; Delivered and Read appear once bob has read it', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await openChat(alice.page, bob);
    await send(alice.page, 'How was the trip?');
    const mine = bubble(alice.page, 'How was the trip?');
    await expect(tick(mine, 'Sent')).toBeVisible();

    const dialog = alice.page.getByRole('dialog', { name: 'Message info' });
    await (await openMessageMenu(alice.page, mine)).getByRole('menuitem', { name: 'Info' }).click();
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText('How was the trip?', { exact: true })).toBeVisible();
    await expect(dialog.locator('dt')).toHaveText(['Sent']);
    await expect(dialog.locator('dd')).toHaveText([DATE_TIME]);
    await alice.page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);

    await openChat(bob.page, alice);
    await expect(tick(mine, 'Read')).toBeVisible();
    await (await openMessageMenu(alice.page, mine)).getByRole('menuitem', { name: 'Info' }).click();
    await expect(dialog.locator('dt')).toHaveText(['Sent', 'Delivered', 'Read']);
    await expect(dialog.locator('dd')).toHaveText([DATE_TIME, DATE_TIME, DATE_TIME]);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toHaveCount(0);

    // The recipient's Info on the same message.
    await (await openMessageMenu(bob.page, bubble(bob.page, 'How was the trip?')))
      .getByRole('menuitem', {
        name: 'Info',
      })
      .click();
    const bobDialog = bob.page.getByRole('dialog', { name: 'Message info' });
    await expect(bobDialog.getByText('How was the trip?', { exact: true })).toBeVisible();
    await expect(bobDialog.locator('dt')).toHaveText(['Sent', 'Delivered', 'Read']);
  });

  test('Copy puts the text on the clipboard, for own and peer messages', async ({ people }) => {
    const { alice, bob } = await talking(people, 'Copy this line', {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    await send(bob.page, 'And this one');
    const a = alice.page;
    await (await openMessageMenu(a, bubble(a, 'Copy this line'))).getByRole('menuitem', { name: 'Copy' }).click();
    await expectToast(a, 'Copied');
    await expect.poll(() => a.evaluate(() => navigator.clipboard.readText())).toBe('Copy this line');

    await (await openMessageMenu(a, bubble(a, 'And this one'), 'right-click'))
      .getByRole('menuitem', {
        name: 'Copy',
      })
      .click();
    await expect.poll(() => a.evaluate(() => navigator.clipboard.readText())).toBe('And this one');
  });

  test('Edit: the text goes into the input, sending replaces it; both see "edited", the ticks start again', async ({
    people,
  }) => {
    const { alice, bob } = await talking(people, 'Meet at 5');
    const a = alice.page;
    const input = a.getByRole('textbox', { name: 'Message', exact: true });
    await input.fill('a draft');

    // Escape leaves edit mode and gives the draft back.
    await (await openMessageMenu(a, bubble(a, 'Meet at 5'))).getByRole('menuitem', { name: 'Edit' }).click();
    const editBox = a.getByRole('textbox', { name: 'Edit message' });
    await expect(editBox).toHaveValue('Meet at 5');
    await expect(editBox).toHaveAttribute('placeholder', 'Edit message...');
    await expect(editBox).toBeFocused();
    await expect(a.getByText('Editing message')).toBeVisible();
    await editBox.press('Escape');
    await expect(input).toHaveValue('a draft');
    await expect(input).toHaveAttribute('placeholder', 'Type a message...');
    await input.fill('');

    // Bob is away while alice edits: the message is back to one tick, without receipts.
    await bob.page.goto('about:blank');
    await (await openMessageMenu(a, bubble(a, 'Meet at 5'))).getByRole('menuitem', { name: 'Edit' }).click();
    await editBox.fill('Meet at 6');
    await editBox.press('Enter');
    await expect(input).toHaveValue('');
    await expect(a.getByText('Editing message')).toHaveCount(0);
    const mine = bubble(a, 'Meet at 6');
    await expect(mine).toContainText('edited');
    await expect(bubble(a, 'Meet at 5')).toHaveCount(0);
    await expect(tick(mine, 'Sent')).toBeVisible();
    await (await openMessageMenu(a, mine)).getByRole('menuitem', { name: 'Info' }).click();
    await expect(a.getByRole('dialog', { name: 'Message info' }).locator('dt')).toHaveText(['Sent']);
    await a.keyboard.press('Escape');

    await openChat(bob.page, alice);
    await expect(bubble(bob.page, 'Meet at 6')).toContainText('edited');
    await expect(bubble(bob.page, 'Meet at 5')).toHaveCount(0);
    await expect(tick(mine, 'Read')).toBeVisible();

    // Edited again while bob watches: he sees it change live; the send button sends the edit.
    await (await openMessageMenu(a, mine)).getByRole('menuitem', { name: 'Edit' }).click();
    await editBox.fill('Meet at 7');
    await a.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(bubble(bob.page, 'Meet at 7')).toContainText('edited');
    await expect(bubble(a, 'Meet at 7')).toContainText('edited');
    await expect(bubble(bob.page, 'Meet at 6')).toHaveCount(0);
  });

  test('Delete: a toast, "This message deleted" in italic for both, no ticks and no menu any more', async ({
    people,
  }) => {
    const { alice, bob } = await talking(people, 'Keep me');
    const a = alice.page;
    await send(a, 'Delete me');
    await expect(bubble(bob.page, 'Delete me')).toBeVisible();

    await (await openMessageMenu(a, bubble(a, 'Delete me'))).getByRole('menuitem', { name: 'Delete' }).click();
    await expectToast(a, 'Message Deleted', 'The message has been removed', 'success');
    for (const page of [a, bob.page]) {
      const gone = bubble(page, 'This message deleted');
      await expect(gone).toBeVisible();
      await expect(bubble(page, 'Delete me')).toHaveCount(0);
      await expect(gone.locator('p')).toHaveCSS('font-style', 'italic');
      await expect(gone).not.toContainText('edited');
      await expect(gone.getByRole('img')).toHaveCount(0);
      await expect(optionsButton(gone)).toHaveCount(0);
      await gone.click({ button: 'right' });
      await expect(messageMenu(page)).toHaveCount(0);
      // The other message still has its menu.
      await expect(optionsButton(bubble(page, 'Keep me'))).toHaveCount(1);
      // Quieter, and still readable in the sender's bubble and the recipient's, in both themes.
      await expectReadable(page, ['light', 'dark']);
    }
    await bob.page.goto('/home');
    const row = bob.page.getByRole('list', { name: 'Chats' }).getByRole('listitem').filter({ hasText: alice.handle });
    await expect(row.getByText('This message deleted', { exact: true })).toHaveCSS('font-style', 'italic');
  });
});
