/**
 * /admin, part two: the Notifications tab. Broadcasts are checked in the form, sent,
 * edited and deleted, and every change reaches other users' open screens live. Each test
 * starts with no broadcasts on the worker's own server and leaves none behind.
 */
import {
  bell,
  broadcastForm,
  broadcastRows,
  clearBroadcasts,
  closeToasts,
  expect,
  expectToast,
  notificationItems,
  openTab,
  routeMedia,
  runTag,
  sendBroadcast,
  sentItems,
  test,
} from './admin-helpers.ts';

const YOUTUBE = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const YOUTUBE_EMBED = 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ';

test.beforeEach(({ server }) => clearBroadcasts(server));
test.afterEach(({ server }) => clearBroadcasts(server));

test('none sent yet; an empty message, a non-video link and a bad image URL are refused, and nothing is sent', async ({
  adminPerson,
  server,
}) => {
  const page = adminPerson.page;
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'GET' && new URL(r.url()).pathname.startsWith('/api/admin/notifications')) posts.push(r.url());
  });
  await openTab(page, 'Notifications');
  const form = broadcastForm(page);
  await expect(page.getByRole('heading', { name: 'Send Notification' })).toBeVisible();
  await expect(page.getByText('No notifications sent yet', { exact: true })).toBeVisible();
  await expect(sentItems(page)).toHaveCount(0);
  await expect(page.getByTestId('admin-sent-scroll')).toHaveCSS('height', '400px');
  await expect(form.video).toHaveAccessibleDescription('A YouTube or Vimeo link');

  // Empty, then only spaces.
  await form.send.click();
  await expect(page.getByText('Message is required', { exact: true })).toBeVisible();
  await expect(form.message).toHaveAttribute('aria-invalid', 'true');
  await expect(form.message).toBeFocused();
  await form.message.fill('   ');
  await form.send.click();
  await expect(form.message).toHaveAccessibleDescription('Message is required');

  // Typing clears the error; a link that is not YouTube or Vimeo is refused.
  await form.message.fill(`Watch this ${runTag()}`);
  await expect(page.getByText('Message is required', { exact: true })).toHaveCount(0);
  await form.video.fill('https://example.com/video');
  await form.send.click();
  await expect(form.video).toHaveAccessibleDescription('Video URL must be a YouTube or Vimeo link');
  await expect(form.video).toHaveAttribute('aria-invalid', 'true');
  await expect(form.video).toBeFocused();

  await form.video.fill('');
  await expect(form.video).toHaveAccessibleDescription('A YouTube or Vimeo link');
  await form.image.fill('javascript:alert(1)');
  await form.send.click();
  await expect(form.image).toHaveAccessibleDescription('Image URL must start with http:// or https://');
  await expect(form.image).toBeFocused();

  // Nothing left the page, nothing was stored, and the form kept what was typed.
  expect(posts).toEqual([]);
  expect(broadcastRows(server)).toEqual([]);
  await expect(page.getByText('No notifications sent yet', { exact: true })).toBeVisible();
  await expect(form.image).toHaveValue('javascript:alert(1)');
});

test('a broadcast reaches users live; Edit and Cancel; Update replaces it live; Delete removes it live', async ({
  world,
  adminPerson,
  server,
}) => {
  const tag = runTag();
  const [reader, other] = await Promise.all([world.person('reader'), world.person('other')]);
  await routeMedia(reader.context);
  await reader.page.goto('/notifications');
  await expect(reader.page.getByText('No notifications', { exact: true })).toBeVisible();
  await other.page.goto('/home');
  await expect(bell(other.page)).toHaveAccessibleName('Notifications');

  const page = adminPerson.page;
  const form = broadcastForm(page);
  await openTab(page, 'Notifications');
  await expect(page.getByText('No notifications sent yet', { exact: true })).toBeVisible();

  const message = `Scheduled maintenance tonight at 10 PM ${tag}`;
  const imageUrl = `https://i.example.com/maintenance-${tag}.png`;
  await sendBroadcast(page, { message, videoUrl: YOUTUBE, imageUrl });
  const first = sentItems(page).first();
  await expect(sentItems(page)).toHaveCount(1);
  await expect(first).toContainText('Video');
  await expect(first).toContainText('Image');
  await expect(form.video).toHaveValue('');
  await expect(form.image).toHaveValue('');
  const [row] = broadcastRows(server);
  expect(row).toMatchObject({ message, video_url: YOUTUBE, image_url: imageUrl });

  // Live on the reader's /notifications: the item with its video player and picture.
  const item = notificationItems(reader.page).filter({ hasText: message });
  await expect(item.getByRole('heading', { name: /^Admin Notification/ })).toBeVisible();
  await expect(item.locator('iframe')).toHaveAttribute('src', YOUTUBE_EMBED);
  await expect(item.getByRole('img', { name: 'Image attached to the notification' })).toHaveAttribute('src', imageUrl);
  await expect(notificationItems(reader.page)).toHaveCount(1);
  // And on the other user's bell.
  await expect(bell(other.page)).toHaveAccessibleName('Notifications, 1 unread');

  // Edit fills the form; Cancel empties it again.
  await first.getByRole('button', { name: 'Edit notification' }).click();
  await expect(page.getByRole('heading', { name: 'Edit Notification' })).toBeVisible();
  await expect(form.message).toHaveValue(message);
  await expect(form.video).toHaveValue(YOUTUBE);
  await expect(form.image).toHaveValue(imageUrl);
  await expect(form.update).toBeVisible();
  await expect(form.send).toHaveCount(0);
  await expect(first).toContainText('Editing');
  await form.cancel.click();
  await expect(form.message).toHaveValue('');
  await expect(form.video).toHaveValue('');
  await expect(form.image).toHaveValue('');
  await expect(form.send).toBeVisible();
  await expect(form.update).toHaveCount(0);
  await expect(form.cancel).toHaveCount(0);
  await expect(first).not.toContainText('Editing');

  // Edited and saved: the users' screens show the new text, not the old.
  const edited = `Maintenance moved to 11 PM ${tag}`;
  await first.getByRole('button', { name: 'Edit notification' }).click();
  await form.message.fill(edited);
  await form.video.fill('');
  await form.update.click();
  await expectToast(page, 'Notification Updated', undefined, 'success');
  await expect(form.send).toBeVisible();
  await expect(form.message).toHaveValue('');
  await expect(sentItems(page)).toHaveCount(1);
  await expect(first).toContainText(edited);
  await expect(first).not.toContainText('Video');
  const updated = notificationItems(reader.page).filter({ hasText: edited });
  await expect(updated).toBeVisible();
  await expect(updated.locator('iframe')).toHaveCount(0);
  await expect(notificationItems(reader.page).filter({ hasText: message })).toHaveCount(0);
  await expect(notificationItems(reader.page)).toHaveCount(1);
  expect(broadcastRows(server)).toMatchObject([{ message: edited, video_url: null, image_url: imageUrl }]);

  // Deleted: gone from the admin's list and, live, from the reader's.
  await first.getByRole('button', { name: 'Delete notification' }).click();
  await expectToast(page, 'Notification Deleted', undefined, 'success');
  await expect(sentItems(page)).toHaveCount(0);
  await expect(page.getByText('No notifications sent yet', { exact: true })).toBeVisible();
  await expect(notificationItems(reader.page)).toHaveCount(0);
  await expect(reader.page.getByText('No notifications', { exact: true })).toBeVisible();
  await expect(bell(other.page)).toHaveAccessibleName('Notifications');
  expect(broadcastRows(server)).toEqual([]);
});

test('the sent list is newest first, in the admin list and for users', async ({ world, adminPerson }) => {
  const tag = runTag();
  const reader = await world.person('order');
  await reader.page.goto('/notifications');
  await expect(reader.page.getByText('No notifications', { exact: true })).toBeVisible();

  const page = adminPerson.page;
  await openTab(page, 'Notifications');
  const older = `First announcement ${tag}`;
  const newer = `Second announcement ${tag}`;
  await sendBroadcast(page, { message: older });
  await sendBroadcast(page, { message: newer });
  await expect(sentItems(page)).toHaveCount(2);
  await expect(sentItems(page).nth(0)).toContainText(newer);
  await expect(sentItems(page).nth(1)).toContainText(older);
  await expect(notificationItems(reader.page)).toHaveCount(2);
  await expect(notificationItems(reader.page).nth(0)).toContainText(newer);
  await expect(notificationItems(reader.page).nth(1)).toContainText(older);

  // The same order from the server after a reload.
  await page.reload();
  await openTab(page, 'Notifications');
  await expect(sentItems(page)).toHaveCount(2);
  await expect(sentItems(page).nth(0)).toContainText(newer);
  await expect(sentItems(page).nth(1)).toContainText(older);

  // Clean up through the UI.
  for (const text of [newer, older]) {
    await closeToasts(page);
    await sentItems(page).filter({ hasText: text }).getByRole('button', { name: 'Delete notification' }).click();
    await expectToast(page, 'Notification Deleted');
    await expect(sentItems(page).filter({ hasText: text })).toHaveCount(0);
  }
  await expect(page.getByText('No notifications sent yet', { exact: true })).toBeVisible();
  await expect(notificationItems(reader.page)).toHaveCount(0);
});
