/**
 * The sender's side of message requests: a user who takes messages from contacts only
 * is written to through a request, and the chat says so before and after.
 */
import { bubble, expect, openChat, send, setPrivacy, shotSizes, test } from './chat-helpers.ts';

test('a stranger writing to a contacts-only user sends a request, then waits; Accept opens the chat', async ({
  people,
}) => {
  const alice = await people.person('rqa');
  const bob = await people.person('rqb');
  await bob.page.goto('/home');
  await setPrivacy(bob.page, { readReceipts: true, lastSeen: true, requireRequest: true });

  await openChat(alice.page, bob);
  const notice = alice.page.getByText(/accepts messages from contacts only/);
  await expect(notice).toBeVisible();
  await shotSizes(alice.page, 'chat-request-before');

  // The composer gives way to the pending request once the server has it.
  const input = alice.page.getByRole('textbox', { name: 'Message', exact: true });
  await input.fill('Hi Bob, it is Alice from the climbing club');
  await input.press('Enter');
  await expect(alice.page.getByText('Request Sent').first()).toBeVisible();
  const pending = alice.page.getByRole('region', { name: 'Message request' });
  await expect(pending).toContainText('Request pending');
  await expect(pending).toContainText('Hi Bob, it is Alice from the climbing club');
  // The text is not a chat message, and there is nowhere to type another.
  await expect(bubble(alice.page, 'Hi Bob, it is Alice from the climbing club')).toHaveCount(0);
  await expect(alice.page.getByRole('textbox', { name: 'Message', exact: true })).toHaveCount(0);
  await shotSizes(alice.page, 'chat-request-pending');

  // Still pending after a reload (the server says so, not the tab).
  await alice.page.reload();
  await expect(alice.page.getByRole('region', { name: 'Message request' })).toContainText('Request pending');

  // Bob accepts from /notifications; Alice's chat opens live with the request as its first message.
  await bob.page.goto('/notifications');
  await bob.page.getByRole('button', { name: 'Accept' }).click();
  await expect(alice.page.getByRole('textbox', { name: 'Message', exact: true })).toBeVisible();
  await expect(bubble(alice.page, 'Hi Bob, it is Alice from the climbing club')).toBeVisible();
  await expect(alice.page.getByText(/accepts messages from contacts only/)).toHaveCount(0);
  await send(alice.page, 'Thanks for accepting!');
  await openChat(bob.page, alice);
  await expect(bubble(bob.page, 'Thanks for accepting!')).toBeVisible();
});

test('someone the contacts-only user has written to may answer directly', async ({ people }) => {
  const alice = await people.person('rqc');
  const bob = await people.person('rqd');
  await bob.page.goto('/home');
  await setPrivacy(bob.page, { readReceipts: true, lastSeen: true, requireRequest: true });
  await openChat(bob.page, alice);
  await send(bob.page, 'Alice, are you coming tonight?');
  await openChat(alice.page, bob);
  await expect(bubble(alice.page, 'Alice, are you coming tonight?')).toBeVisible();
  await expect(alice.page.getByText(/accepts messages from contacts only/)).toHaveCount(0);
  await send(alice.page, 'Yes!');
  await expect(bubble(bob.page, 'Yes!')).toBeVisible();
});
