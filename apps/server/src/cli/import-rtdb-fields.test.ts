/**
 * import-rtdb with a hand-written export holding every field of spec section 3, on SQLite
 * and on PostgreSQL (when TEST_DATABASE_URL is set): each lands where the spec's screens show
 * it, read back as the server serves it (its stores, and GET /api/settings).
 */
import { API, chatIdOf } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySecret } from '../auth/passwords.ts';
import { ENGINES } from '../test/harness.ts';
import { type ImportEnv, importEnv } from '../test/import-env.ts';

const T = Date.UTC(2024, 2, 1, 9, 30);
const ADA = 'AdaUid0000000000000000000001';
const BEN = 'BenUid0000000000000000000002';
const CY = 'CyUid00000000000000000000003';
const AB = [ADA, BEN].sort().join('_');
const AC = [ADA, CY].sort().join('_');

const EXPORT = {
  users: {
    [ADA]: {
      username: 'ada_l',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '5550001111',
      age: 36,
      profilePic: 'https://images.example.com/ada.png',
      createdAt: T - 86_400_000,
      status: 'online',
      lastSeen: T + 60_000,
      verified: true,
      blocked: false,
      pin: '135790',
      updatedAt: T - 3_600_000,
    },
    [BEN]: {
      username: 'ben_b',
      name: 'Ben Babbage',
      email: 'ben@example.com',
      phone: '5550002222',
      age: '41',
      createdAt: T - 2 * 86_400_000,
      status: 'offline',
      lastSeen: T,
      blocked: true,
    },
    [CY]: { username: 'cy_c', name: 'Cy', email: 'cy@example.com', phone: '5550003333', age: 19, createdAt: T },
  },
  usernames: { ada_l: ADA, ben_b: BEN, cy_c: CY, old_name: BEN },
  messages: {
    [AB]: {
      '-NaaaaaaaaaaaaaaaaA1': {
        senderId: ADA,
        text: 'Hello Ben',
        timestamp: T,
        status: 'read',
        deleted: false,
        deliveredAt: T + 1000,
        readAt: T + 2000,
      },
      '-NaaaaaaaaaaaaaaaaA2': {
        senderId: BEN,
        text: 'Hi Ada (fixed)',
        timestamp: T + 10_000,
        status: 'delivered',
        edited: true,
        deleted: false,
        deliveredAt: T + 11_000,
      },
      '-NaaaaaaaaaaaaaaaaA3': {
        senderId: BEN,
        text: 'This message deleted',
        timestamp: T + 20_000,
        status: 'sent',
        deleted: true,
      },
      '-NaaaaaaaaaaaaaaaaA4': {
        senderId: ADA,
        text: 'See you at nine',
        timestamp: T + 30_000,
        status: 'sent',
        deleted: false,
      },
    },
    [AC]: {
      '-NbbbbbbbbbbbbbbbbB1': {
        senderId: CY,
        text: 'secret plans',
        timestamp: T + 5000,
        status: 'read',
        deleted: false,
      },
    },
  },
  userChats: {
    [ADA]: {
      [AB]: { lastMessage: 'See you at nine', timestamp: T + 30_000, unreadCount: 0, archived: false, locked: false },
      [AC]: { lastMessage: 'secret plans', timestamp: T + 5000, unreadCount: 1, locked: true },
    },
    [BEN]: { [AB]: { lastMessage: 'See you at nine', timestamp: T + 30_000, unreadCount: 1, archived: true } },
    [CY]: { [AC]: { lastMessage: 'secret plans', timestamp: T + 5000, unreadCount: 0 } },
  },
  archives: { [CY]: { [ADA]: { lastMessage: 'secret plans', timestamp: T + 5000 } } },
  notifications: {
    '-NcccccccccccccccccC1': {
      message: 'Welcome aboard',
      videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      imageUrl: 'https://images.example.com/hello.png',
      timestamp: T - 1000,
      from: 'admin',
    },
  },
  userNotifications: {
    [CY]: {
      '-NdddddddddddddddddD1': {
        type: 'request',
        from: BEN,
        fromUsername: 'ben_b',
        message: 'Can we talk?',
        timestamp: T + 40_000,
        read: false,
      },
    },
  },
  contacts: { [ADA]: { [BEN]: true }, [BEN]: { [ADA]: true } },
  userSettings: { [CY]: { privacy: { readReceipts: false, lastSeen: false, requireRequest: true } } },
  settings: { helpLink: 'https://help.example.com/faq' },
  typing: { [AB]: { [ADA]: true, [BEN]: false } },
};

describe.each(ENGINES)('import-rtdb, every field of spec section 3, on $name', ({ url }) => {
  let e: ImportEnv;
  beforeAll(async () => {
    e = await importEnv(url, 'fld');
  });
  afterAll(async () => {
    await e?.close();
  });

  it('puts each field where the screens show it', async () => {
    const r = await e.run(e.file(EXPORT));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/accounts: 3 created/);
    expect(r.out).toMatch(/typing flags: 1 ignored/);
    // The index names ben_b's old handle: reported, the user record wins.
    expect(r.out).toMatch(/usernames\/old_name: points to BenUid/);
    const { store, chat, notices, social, pins } = e.t.server.ctx;
    const ada = await store.userByEmail('ada@example.com');
    const ben = await store.userByEmail('ben@example.com');
    const cy = await store.userByEmail('cy@example.com');
    if (!ada || !ben || !cy) throw new Error('not imported');

    // Profile, contacts and admin screens: the user record.
    expect(ada).toMatchObject({
      username: 'ada_l',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      emailVerified: false,
      phone: '5550001111',
      age: 36,
      profilePic: 'https://images.example.com/ada.png',
      createdAt: T - 86_400_000,
      updatedAt: T - 3_600_000,
      lastSeen: T + 60_000,
      verified: true,
      blocked: false,
      // Presence is live: nobody is online until they connect.
      status: 'offline',
    });
    expect(ben).toMatchObject({ username: 'ben_b', age: 41, profilePic: null, verified: false, blocked: true });
    // The PIN gate: the 6-digit code, hashed (argon2id) as the app stores it.
    const pin = await pins.pinState(ada.id);
    expect(pin.hash).toMatch(/^\$argon2id\$/);
    expect(await verifySecret(pin.hash, '135790')).toBe(true);
    expect((await pins.pinState(ben.id)).hash).toBeNull();
    // Username index: the handle is taken, found case-insensitively.
    expect((await store.userByUsername('ADA_L'))?.id).toBe(ada.id);

    // The chat screen: messages in time order with ticks, edits, deletions and the Info times.
    const ab = chatIdOf(ada.id, ben.id);
    const { messages } = await chat.history(ab, 50);
    expect(messages.map((m) => [m.senderId, m.legacyText, m.timestamp, m.status, m.edited, m.deleted])).toEqual([
      [ada.id, 'Hello Ben', T, 'read', false, false],
      [ben.id, 'Hi Ada (fixed)', T + 10_000, 'delivered', true, false],
      [ben.id, null, T + 20_000, 'sent', false, true],
      [ada.id, 'See you at nine', T + 30_000, 'sent', false, false],
    ]);
    expect(messages[0]).toMatchObject({ deliveredAt: T + 1000, readAt: T + 2000, ct: null });
    expect(messages[1]).toMatchObject({ deliveredAt: T + 11_000, readAt: null });

    // The chat list, archive and locked screens: the summaries.
    const adaChats = await chat.chats(ada.id);
    expect(
      adaChats.map((c) => [c.peerId, c.last?.legacyText, c.timestamp, c.unreadCount, c.archived, c.locked]),
    ).toEqual([
      [ben.id, 'See you at nine', T + 30_000, 0, false, false],
      [cy.id, 'secret plans', T + 5000, 1, false, true],
    ]);
    expect(adaChats[0]?.peer).toMatchObject({ username: 'ben_b', name: 'Ben Babbage', verified: false });
    const benChat = (await chat.chats(ben.id))[0];
    expect([benChat?.unreadCount, benChat?.archived, benChat?.locked]).toEqual([1, true, false]);
    // archives/{cy}/{ada}: the other reading of archiving.
    expect((await chat.chats(cy.id))[0]?.archived).toBe(true);

    // Notifications: the broadcast (with image and video) and the pending request.
    const items = (await notices.notifications(cy.id)).items;
    expect(items).toEqual([
      expect.objectContaining({
        type: 'request',
        fromId: ben.id,
        fromUsername: 'ben_b',
        legacyText: 'Can we talk?',
        timestamp: T + 40_000,
        read: false,
      }),
      expect.objectContaining({
        type: 'admin',
        message: 'Welcome aboard',
        imageUrl: 'https://images.example.com/hello.png',
        videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        timestamp: T - 1000,
      }),
    ]);

    // Contacts, both ways; privacy settings; the help link (Settings > Help).
    const contacts = await store.db.selectFrom('contacts').select(['user_id', 'other_id']).execute();
    expect(contacts.map((c) => `${c.user_id}>${c.other_id}`).sort()).toEqual(
      [`${ada.id}>${ben.id}`, `${ben.id}>${ada.id}`].sort(),
    );
    expect(await social.privacy(cy.id)).toEqual({ readReceipts: false, lastSeen: false, requireRequest: true });
    expect(await social.privacy(ada.id)).toEqual({ readReceipts: true, lastSeen: true, requireRequest: false });
    const settings = await e.t.client().get(API.publicSettings);
    expect(settings.body.helpLink).toBe('https://help.example.com/faq');
    // The chat screen's "sent before end-to-end encryption" divider: after the newest imported message.
    expect(settings.body.e2eeSince).toBe(T + 30_000);
  });
});
