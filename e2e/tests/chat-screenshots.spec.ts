/**
 * The chat screens with real conversations, at 1280x800 and 390x844, saved as
 * e2e/screenshots/chat-<name>-<width>.png for people to look at: the list, a conversation
 * with every tick, an edited and a deleted message, the typing dots, the message menu,
 * the Info dialog and the contacts. On the phone no screen may scroll sideways.
 */
import {
  bubble,
  chatRow,
  expect,
  messageMenu,
  openChat,
  openMessageMenu,
  runTag,
  send,
  shotSizes,
  test,
  tick,
  unreadBadge,
} from './chat-helpers.ts';
import { expectNoSidewaysScroll } from './screen-helpers.ts';

test('chat screens with conversations, at both sizes', async ({ people }) => {
  test.setTimeout(180_000);
  const tag = runTag();
  const alice = await people.person('alice', { username: `alice_${tag}` });
  const bob = await people.person('bob', { username: `bob_${tag}` });
  const carol = await people.person('carol', { username: `carol_${tag}` });
  const a = alice.page;

  // carol leaves alice two unread messages.
  await openChat(carol.page, alice);
  await send(carol.page, 'Are we still on for Saturday?');
  await send(carol.page, 'Let me know!');

  // A conversation with bob: read, edited, deleted, delivered and sent messages.
  await openChat(a, bob);
  await openChat(bob.page, alice);
  await send(bob.page, 'Hey Alice! How is the new flat?');
  await send(a, 'It is lovely, lots of light and a tiny balcony 🌿');
  await send(a, 'Dinner at 7?');
  await (await openMessageMenu(a, bubble(a, 'Dinner at 7?'))).getByRole('menuitem', { name: 'Edit' }).click();
  await a.getByRole('textbox', { name: 'Edit message' }).fill('Dinner at 8?');
  await a.getByRole('textbox', { name: 'Edit message' }).press('Enter');
  await send(a, 'Sent to the wrong chat, sorry');
  await (await openMessageMenu(a, bubble(a, 'Sent to the wrong chat, sorry')))
    .getByRole('menuitem', { name: 'Delete' })
    .click();
  await send(
    bob.page,
    'Sounds great. A long message to see how the bubbles wrap on a narrow phone screen: I will bring dessert and something to drink, and maybe the board game we talked about last time.',
  );
  await expect(tick(bubble(a, 'Dinner at 8?'), 'Read')).toBeVisible();
  await bob.page.goto('/home');
  await send(a, 'Perfect, see you then');
  await expect(tick(bubble(a, 'Perfect, see you then'), 'Delivered')).toBeVisible();
  await bob.page.goto('about:blank');
  await send(a, 'Bring an umbrella');
  await expect(tick(bubble(a, 'Bring an umbrella'), 'Sent')).toBeVisible();
  await expect(bubble(a, 'This message deleted')).toBeVisible();
  await expect(bubble(a, 'Dinner at 8?')).toContainText('edited');

  await shotSizes(a, 'chat-conversation', async () => {
    await expect(bubble(a, 'Bring an umbrella')).toBeInViewport();
    await expectNoSidewaysScroll(a);
  });
  await shotSizes(a, 'chat-menu', async () => {
    await openMessageMenu(a, bubble(a, 'Perfect, see you then'));
  });
  await a.keyboard.press('Escape');
  await expect(messageMenu(a)).toHaveCount(0);
  const info = a.getByRole('dialog', { name: 'Message info' });
  await shotSizes(a, 'chat-info', async () => {
    if (!(await info.isVisible())) {
      await (await openMessageMenu(a, bubble(a, 'Dinner at 8?'))).getByRole('menuitem', { name: 'Info' }).click();
    }
    await expect(info.locator('dt')).toHaveText(['Sent', 'Delivered', 'Read']);
  });
  await a.keyboard.press('Escape');
  await expect(info).toHaveCount(0);

  // Bob types (for a few seconds) while alice looks.
  await openChat(bob.page, alice);
  const dots = a.getByRole('status', { name: `${bob.handle} is typing` });
  const typing = bob.page
    .getByRole('textbox', { name: 'Message', exact: true })
    .pressSequentially('x'.repeat(40), { delay: 100 });
  await shotSizes(a, 'chat-typing', async () => {
    await expect(dots).toBeVisible();
    await expect(dots).toBeInViewport();
  });
  await typing;

  await a.goto('/home');
  await expect(unreadBadge(chatRow(a, carol.handle))).toHaveText('2 unread');
  await expect(chatRow(a, bob.handle)).toContainText('Bring an umbrella');
  for (const p of [bob, carol]) await expect(chatRow(a, p.handle).getByRole('img', { name: 'Online' })).toBeVisible();
  await shotSizes(a, 'chat-home', async () => {
    await expect(chatRow(a, carol.handle)).toBeVisible();
    await expectNoSidewaysScroll(a);
  });
  await shotSizes(a, 'chat-home-menu', async () => {
    await chatRow(a, bob.handle)
      .getByRole('button', { name: /^Chat options/ })
      .click();
    await expect(a.getByRole('menu')).toBeVisible();
  });

  await a.goto('/contacts');
  await a.getByRole('searchbox', { name: 'Search by username' }).fill(tag);
  const users = a.getByRole('list', { name: 'Users' }).getByRole('listitem');
  await expect(users).toHaveCount(2);
  await expect(users.filter({ hasText: carol.handle }).getByRole('img', { name: 'Online' })).toBeVisible();
  await expect(users.filter({ hasText: bob.handle }).getByRole('img', { name: 'Online' })).toBeVisible();
  await bob.context.close();
  await expect(users.filter({ hasText: bob.handle }).getByRole('img', { name: 'Offline' })).toBeVisible();
  await shotSizes(a, 'chat-contacts', async () => {
    await expect(users).toHaveCount(2);
    await expectNoSidewaysScroll(a);
  });
});
