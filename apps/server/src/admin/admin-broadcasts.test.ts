import { API } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { clockPast, engines, useAdminFixture, waitGlobal } from '../test/admin-support.ts';
import { expectError } from '../test/harness.ts';

const _EMAIL_RE = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

describe.each(engines)('on $name', ({ url }) => {
  const { person, auditOf, admin, watcher } = useAdminFixture(url, 'admbc');

  describe('broadcasts', () => {
    it('reach every socket, are listed, edited in place and removed live', async () => {
      const u1 = await person();
      const u2 = await person();
      const everyone = [admin, watcher, u1, u2];
      const input = {
        message: '  Maintenance tonight at 22:00  ',
        imageUrl: 'https://img.example.com/m.png',
        videoUrl: 'https://youtu.be/dQw4w9WgXcQ',
      };
      const created = await admin.client.post(API.adminBroadcasts, input);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const b = created.body.notification;
      expect(b).toEqual({
        id: expect.any(String),
        message: 'Maintenance tonight at 22:00',
        imageUrl: input.imageUrl,
        videoUrl: input.videoUrl,
        timestamp: expect.any(Number),
      });
      const item = { type: 'admin', ...b, read: false };
      for (const p of everyone) {
        const seen = await waitGlobal(p.ws, 'notification', (e) => e.notification.id === b.id);
        expect(seen).toEqual([{ kind: 'notification', notification: item }]);
      }
      const list1 = await u1.ws.request('notifications');
      expect(list1.items).toContainEqual(item);
      expect(list1.unseen).toBeGreaterThanOrEqual(1);
      await u1.ws.request('notificationsSeen');
      expect((await u1.ws.request('notifications')).items).toContainEqual({ ...item, read: true });

      // Edit: same id, a later timestamp, pushed again and unread again.
      await clockPast(Date.now());
      const edited = await admin.client.request('PUT', `${API.adminBroadcasts}/${b.id}`, {
        message: 'Maintenance moved to 23:00',
      });
      expect(edited.status, JSON.stringify(edited.body)).toBe(200);
      const e = edited.body.notification;
      expect(e).toMatchObject({ id: b.id, message: 'Maintenance moved to 23:00', imageUrl: null, videoUrl: null });
      expect(e.timestamp).toBeGreaterThan(b.timestamp);
      const editedItem = { type: 'admin', ...e, read: false };
      for (const p of everyone) {
        // The frame may reach a socket just after the HTTP answer reached the admin.
        await waitGlobal(p.ws, 'notification', (x) => x.notification.timestamp === e.timestamp);
        const seen = await waitGlobal(p.ws, 'notification', (x) => x.notification.id === b.id);
        expect(seen).toEqual([
          { kind: 'notification', notification: item },
          { kind: 'notification', notification: editedItem },
        ]);
      }
      const list2 = (await u2.ws.request('notifications')).items.filter((x) => x.id === b.id);
      expect(list2).toEqual([editedItem]);
      expect((await u1.ws.request('notifications')).items.filter((x) => x.id === b.id)).toEqual([editedItem]);
      const adminList = await admin.client.get(API.adminBroadcasts);
      expect(adminList.body.notifications[0]).toEqual(e);
      expect(adminList.body.notifications.filter((x: { id: string }) => x.id === b.id)).toHaveLength(1);

      // Delete: gone from every list, live.
      await clockPast(e.timestamp);
      const removed = await admin.client.request('DELETE', `${API.adminBroadcasts}/${b.id}`);
      expect(removed.status).toBe(204);
      for (const p of everyone) {
        const seen = await waitGlobal(p.ws, 'notificationRemoved', (x) => x.id === b.id);
        expect(seen).toEqual([{ kind: 'notificationRemoved', id: b.id }]);
      }
      expect((await u1.ws.request('notifications')).items.filter((x) => x.id === b.id)).toEqual([]);
      expect((await u2.ws.request('notifications')).items.filter((x) => x.id === b.id)).toEqual([]);
      const after = (await admin.client.get(API.adminBroadcasts)).body.notifications;
      expect(after.filter((x: { id: string }) => x.id === b.id)).toEqual([]);
      expectError(await admin.client.request('DELETE', `${API.adminBroadcasts}/${b.id}`), 404, 'not_found');
      expectError(
        await admin.client.request('PUT', `${API.adminBroadcasts}/${b.id}`, { message: 'x' }),
        404,
        'not_found',
      );

      const entry = {
        id: expect.any(String),
        at: expect.any(Number),
        actorId: admin.user.id,
        actorUsername: admin.user.username,
        targetId: b.id,
        detail: null,
      };
      expect(await auditOf(b.id)).toEqual([
        { ...entry, action: 'broadcast.delete', targetLabel: 'Maintenance moved to 23:00' },
        { ...entry, action: 'broadcast.update', targetLabel: 'Maintenance moved to 23:00' },
        { ...entry, action: 'broadcast.create', targetLabel: 'Maintenance tonight at 22:00' },
      ]);
    });

    it('the admin list is newest first; a long message is named by its first words', async () => {
      const ids: string[] = [];
      let last = 0;
      for (const message of ['first', 'second', `third ${'word '.repeat(40)}`]) {
        await clockPast(last);
        const res = await admin.client.post(API.adminBroadcasts, { message });
        expect(res.status).toBe(201);
        ids.push(res.body.notification.id);
        last = res.body.notification.timestamp;
      }
      const list = (await admin.client.get(API.adminBroadcasts)).body.notifications as {
        id: string;
        timestamp: number;
      }[];
      expect(list.slice(0, 3).map((x) => x.id)).toEqual([...ids].reverse());
      for (let i = 1; i < list.length; i++) {
        expect(list[i - 1]?.timestamp).toBeGreaterThanOrEqual(list[i]?.timestamp ?? 0);
      }
      const [created] = await auditOf(ids[2] ?? '');
      expect(created?.targetLabel).toBe(`third ${'word '.repeat(10)}w...`);
      expect(created?.targetLabel).toHaveLength(60);
    });
  });
});
