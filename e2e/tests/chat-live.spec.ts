/**
 * A live conversation between two people, each in their own browser (spec section 2
 * "Chat", "Chat list" and "Contacts"; section 4 "Message status", "Sending", "Typing",
 * "Presence"): finding someone, sending, the list updating live, ticks, typing dots,
 * presence, and one user in two tabs.
 */
import {
  bubble,
  bubbles,
  CLOCK,
  chatRow,
  expect,
  openChat,
  runTag,
  send,
  test,
  tick,
  unreadBadge,
} from './chat-helpers.ts';

test.describe('chat, live between two people', () => {
  test('alice finds bob in contacts and writes; bob sees the chat arrive live with 2 unread, then reads it', async ({
    people,
  }) => {
    const tag = runTag();
    const bob = await people.person('bob', { username: `Bob_${tag}` });
    const alice = await people.person('alice', { username: `alice_${tag}` });
    const a = alice.page;
    const b = bob.page;

    await b.goto('/home');
    await expect(b.getByText('No conversations yet')).toBeVisible();

    // A case-insensitive substring of his handle finds him.
    await a.goto('/contacts');
    await a.getByRole('searchbox', { name: 'Search by username' }).fill(`ob_${tag}`.toUpperCase());
    const contact = a.getByRole('list', { name: 'Users' }).getByRole('link', { name: bob.handle });
    await expect(contact).toHaveCount(1);
    await contact.click();
    await expect(a).toHaveURL(`/chat/${bob.id}`);
    await expect(a.getByRole('heading', { level: 1, name: bob.handle })).toBeVisible();
    await expect(a.getByText(`No messages yet. Say hi to ${bob.handle}!`)).toBeVisible();

    // Blank text sends nothing: no Send button (the microphone in its place) and Enter does nothing.
    const input = a.getByRole('textbox', { name: 'Message', exact: true });
    await expect(input).toHaveAttribute('placeholder', 'Type a message...');
    await input.fill('   ');
    await expect(a.getByRole('button', { name: 'Send', exact: true })).toHaveCount(0);
    await expect(a.getByRole('button', { name: 'Record voice message' })).toBeVisible();
    await input.press('Enter');
    await expect(input).toHaveValue('   ');

    await send(a, 'Hello Bob', 'enter');
    await send(a, 'Are you there?', 'button');
    await expect(bubbles(a)).toHaveCount(2);
    await expect(bubble(a, 'Hello Bob')).toHaveCount(1);
    await expect(bubble(a, 'Are you there?')).toHaveCount(1);

    // Bob's list gets the row live: handle, last message, clock time, 2 unread.
    const row = chatRow(b, alice.handle);
    await expect(row).toBeVisible();
    await expect(row).toContainText('Are you there?');
    await expect(row.getByText(CLOCK)).toBeVisible();
    await expect(unreadBadge(row)).toHaveText('2 unread');
    await expect(b.getByText('No conversations yet')).toHaveCount(0);

    // Opening the chat reads both: alice sees blue ticks, bob's badge is gone.
    await row.getByRole('link').click();
    await expect(b).toHaveURL(`/chat/${alice.id}`);
    await expect(bubbles(b)).toHaveCount(2);
    await expect(tick(bubble(a, 'Hello Bob'), 'Read')).toBeVisible();
    await expect(tick(bubble(a, 'Are you there?'), 'Read')).toBeVisible();
    await b.getByRole('button', { name: 'Back' }).click();
    await expect(b).toHaveURL('/home');
    await expect(chatRow(b, alice.handle)).toContainText('Are you there?');
    await expect(unreadBadge(chatRow(b, alice.handle))).toHaveCount(0);

    // Own bubbles on the right, the peer's on the left, each with its time.
    await openChat(b, alice);
    await send(b, 'Hi Alice');
    await expect(bubble(a, 'Hi Alice')).toBeVisible();
    for (const page of [a, b]) {
      const conversation = await page.getByRole('region', { name: /^Conversation with/ }).boundingBox();
      const own = await bubble(page, page === a ? 'Hello Bob' : 'Hi Alice').boundingBox();
      const peer = await bubble(page, page === a ? 'Hi Alice' : 'Hello Bob').boundingBox();
      if (!conversation || !own || !peer) throw new Error('bubbles not laid out');
      expect(peer.x - conversation.x).toBeLessThan(24);
      expect(conversation.x + conversation.width - (own.x + own.width)).toBeLessThan(24);
      expect(own.x).toBeGreaterThan(peer.x);
      expect(own.x + own.width).toBeGreaterThan(peer.x + peer.width);
      for (const m of await bubbles(page).all()) await expect(m.locator('time')).toHaveText(CLOCK);
    }
    // Ticks only on own messages.
    await expect(bubble(b, 'Hello Bob').getByRole('img')).toHaveCount(0);
    await expect(bubble(a, 'Hi Alice').getByRole('img')).toHaveCount(0);
  });

  test('ticks go Sent (bob away) → Delivered (bob on /home) → Read (bob opens the chat)', async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await openChat(alice.page, bob);
    await send(alice.page, 'Are you awake?');
    const mine = bubble(alice.page, 'Are you awake?');
    await expect(tick(mine, 'Sent')).toBeVisible();

    await bob.page.goto('/home');
    await expect(unreadBadge(chatRow(bob.page, alice.handle))).toHaveText('1 unread');
    await expect(tick(mine, 'Delivered')).toBeVisible();

    // A second message while bob is online on /home is delivered at once.
    await send(alice.page, 'Second one');
    await expect(tick(bubble(alice.page, 'Second one'), 'Delivered')).toBeVisible();
    await expect(unreadBadge(chatRow(bob.page, alice.handle))).toHaveText('2 unread');

    await chatRow(bob.page, alice.handle).getByRole('link').click();
    await expect(bubble(bob.page, 'Second one')).toBeVisible();
    await expect(tick(mine, 'Read')).toBeVisible();
    await expect(tick(bubble(alice.page, 'Second one'), 'Read')).toBeVisible();
  });

  test('typing dots show while bob types and go about 1 s after he stops (and at once when he sends)', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await openChat(alice.page, bob);
    await openChat(bob.page, alice);
    const dots = alice.page.getByRole('status', { name: `${bob.handle} is typing` });
    const header = alice.page.getByRole('banner');
    await expect(header.getByText('Online', { exact: true })).toBeVisible();
    await expect(dots).toHaveCount(0);

    const input = bob.page.getByRole('textbox', { name: 'Message', exact: true });
    // The dots are looked for while Bob is still typing (a busy machine may take longer
    // than the second of quiet that clears them to answer).
    const typing = input.pressSequentially('I am typing', { delay: 150 });
    await expect(dots).toBeVisible();
    await expect(header.getByText('typing…', { exact: true })).toBeVisible();
    await typing;
    const stopped = Date.now();
    // The product's own timing: the flag clears after 1 s without input (keys came every
    // 150 ms, so staying past 600 ms is the quiet timer, not a gap between keys).
    await expect(dots).toBeHidden({ timeout: 4000 });
    const after = Date.now() - stopped;
    expect(after).toBeGreaterThanOrEqual(600);
    expect(after).toBeLessThan(3000);
    await expect(header.getByText('Online', { exact: true })).toBeVisible();

    // Typing again, then sending: the dots go with the message, not a second of quiet later.
    await input.pressSequentially(' now', { delay: 30 });
    await expect(dots).toBeVisible();
    await input.press('Enter');
    await expect(bubble(alice.page, 'I am typing now')).toBeVisible();
    const shownAt = Date.now();
    await expect(dots).toBeHidden();
    expect(Date.now() - shownAt).toBeLessThan(500);
  });

  test("the chat header shows Online while bob is connected and 'Last seen …' once he is gone", async ({ people }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    await bob.page.goto('/home');
    await expect(bob.page.getByText('No conversations yet')).toBeVisible();
    await openChat(alice.page, bob);
    const header = alice.page.getByRole('banner');
    await expect(header.getByText('Online', { exact: true })).toBeVisible();

    await bob.context.close();
    await expect(header.getByText(/^Last seen (today|yesterday) at \d{1,2}:\d{2}\s[AP]M$/)).toBeVisible();
    await expect(header.getByText('Online', { exact: true })).toHaveCount(0);
  });
});

test.describe('one user in two tabs', () => {
  test('a message sent in one tab shows in the other; reading in one tab clears the badge in the other', async ({
    people,
  }) => {
    const alice = await people.person('alice');
    const bob = await people.person('bob');
    const tab1 = alice.page;
    const tab2 = await alice.context.newPage();
    await openChat(tab1, bob);
    await openChat(tab2, bob);

    await send(tab1, 'From tab one');
    await expect(bubble(tab2, 'From tab one')).toHaveCount(1);
    await expect(tick(bubble(tab2, 'From tab one'), 'Sent')).toBeVisible();
    await send(tab2, 'And from tab two');
    await expect(bubble(tab1, 'And from tab two')).toHaveCount(1);
    await expect(bubbles(tab1)).toHaveCount(2);
    await expect(bubbles(tab2)).toHaveCount(2);

    await tab1.goto('/home');
    await tab2.goto('/home');
    await expect(chatRow(tab1, bob.handle)).toContainText('And from tab two');
    await openChat(bob.page, alice);
    await expect(bubbles(bob.page)).toHaveCount(2);
    await send(bob.page, 'Reply from bob');

    for (const tab of [tab1, tab2]) {
      await expect(chatRow(tab, bob.handle)).toContainText('Reply from bob');
      await expect(unreadBadge(chatRow(tab, bob.handle))).toHaveText('1 unread');
    }
    await tab1.bringToFront();
    await chatRow(tab1, bob.handle).getByRole('link').click();
    await expect(bubble(tab1, 'Reply from bob')).toBeVisible();
    await expect(unreadBadge(chatRow(tab2, bob.handle))).toHaveCount(0);
    await expect(tick(bubble(bob.page, 'Reply from bob'), 'Read')).toBeVisible();
  });
});
