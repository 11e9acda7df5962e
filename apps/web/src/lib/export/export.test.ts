/**
 * "Download my data" from a fixture of the server's NDJSON: the archive read with an opener
 * standing in for the tab's keys, its JSON files, its HTML pages (escaped, self-contained,
 * light and dark, day lines) and the zip they make, unzipped again.
 */
import type { ExportLine, Me } from '@app/protocol';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { SealedRef, Shown } from '@/client/crypto/message-crypto';
import { conversationHtml, escapeHtml } from './export-html';
import { type Archive, ndjsonLines, readArchive, WITHHELD_TEXT } from './export-read';
import { archiveFiles, exportFileName, zipFiles } from './export-zip';

const ME = 'a'.repeat(20);
const BOB = 'b'.repeat(20);
const CAROL = 'c'.repeat(20);
const AB = `${ME}_${BOB}`;
const AC = `${ME}_${CAROL}`;
const DAY = 24 * 3600_000;
const NOW = new Date(2026, 10, 26, 12, 0).getTime();

const me: Me = {
  id: ME,
  username: 'alice',
  name: 'Alice',
  email: 'alice@example.com',
  emailVerified: true,
  phone: '5551234567',
  age: 30,
  profilePic: null,
  createdAt: NOW - 30 * DAY,
  verified: false,
  isAdmin: false,
};
const bob = { id: BOB, username: 'bob', name: 'Bob <b>', profilePic: null, verified: true };

function message(chatId: string, id: string, from: string, to: string, at: number, over: object = {}) {
  return {
    chatId,
    id,
    senderId: from,
    recipientId: to,
    ct: `sealed:${id}`,
    rev: 0,
    legacyText: null,
    timestamp: at,
    status: 'read' as const,
    edited: false,
    deleted: false,
    deliveredAt: at + 1,
    readAt: at + 2,
    ...over,
  };
}

/** What the stand-in keys open each sealed id to. */
const SEALED: Record<string, string> = {
  m2: '<script>alert("x")</script> & more',
  m3: 'fixed',
  m5: 'newest\nsecond line',
  r1: 'may I?',
};

async function open(r: SealedRef): Promise<Shown> {
  if (r.deleted) return { kind: 'deleted' };
  if (r.ct === null) return r.legacyText !== null ? { kind: 'text', text: r.legacyText } : { kind: 'withheld' };
  const text = SEALED[r.ct.slice('sealed:'.length)];
  return text === undefined ? { kind: 'unverified' } : { kind: 'text', text };
}

function fixture(): ExportLine[] {
  return [
    {
      kind: 'account',
      format: 1,
      exportedAt: NOW,
      user: me,
      privacy: { readReceipts: true, lastSeen: false, requireRequest: true },
      hasPin: true,
      chats: 2,
      messages: 6,
    },
    { kind: 'contact', userId: BOB, user: bob, since: NOW - 3 * DAY },
    {
      kind: 'notification',
      item: {
        type: 'request',
        id: 'n1',
        fromId: CAROL,
        fromUsername: 'carol',
        msgId: 'r1',
        ct: 'sealed:r1',
        legacyText: null,
        timestamp: NOW - DAY,
        read: false,
      },
    },
    {
      kind: 'notification',
      item: {
        type: 'admin',
        id: 'n2',
        message: 'Hello all',
        imageUrl: null,
        videoUrl: null,
        timestamp: NOW,
        read: true,
      },
    },
    {
      kind: 'chat',
      chat: {
        chatId: AB,
        peerId: BOB,
        peer: bob,
        last: null,
        timestamp: NOW - 60_000,
        unreadCount: 0,
        archived: true,
        locked: false,
        pinnedAt: null,
        mutedUntil: null,
        markedUnread: false,
      },
      withheld: false,
    },
    {
      kind: 'messages',
      chatId: AB,
      messages: [
        message(AB, 'm1', BOB, ME, NOW - 400 * DAY, { ct: null, legacyText: 'from before encryption' }),
        message(AB, 'm2', ME, BOB, NOW - 2 * DAY),
        message(AB, 'm3', BOB, ME, NOW - DAY, { rev: 1, edited: true }),
      ],
    },
    {
      kind: 'messages',
      chatId: AB,
      messages: [
        message(AB, 'm4', ME, BOB, NOW - 120_000, { ct: null, deleted: true }),
        message(AB, 'm5', ME, BOB, NOW - 60_000, { status: 'delivered', readAt: null }),
      ],
    },
    {
      kind: 'chat',
      chat: {
        chatId: AC,
        peerId: CAROL,
        peer: null,
        last: null,
        timestamp: NOW,
        unreadCount: 1,
        archived: false,
        locked: true,
        pinnedAt: null,
        mutedUntil: null,
        markedUnread: false,
      },
      withheld: true,
    },
    {
      kind: 'messages',
      chatId: AC,
      messages: [message(AC, 'w1', CAROL, ME, NOW - 1000, { ct: null, status: 'delivered', readAt: null })],
    },
    { kind: 'end', chats: 2, messages: 6 },
  ];
}

async function* linesOf(lines: unknown[]): AsyncGenerator<string> {
  for (const l of lines) yield JSON.stringify(l);
}

async function archive(): Promise<Archive> {
  return readArchive(linesOf(fixture()), me, open);
}

describe('the archive', () => {
  it('reads every line, opening each message as the screens show it, and reports progress', async () => {
    const seen: number[] = [];
    const a = await readArchive(linesOf(fixture()), me, open, (p) => seen.push(p.messages));
    expect(seen).toEqual([0, 3, 5, 6]);
    expect(a.contacts).toEqual([{ userId: BOB, user: bob, since: new Date(NOW - 3 * DAY).toISOString() }]);
    expect(a.notifications.map((n) => [n.type, n.from, n.text])).toEqual([
      ['request', '@carol', 'may I?'],
      ['admin', null, 'Hello all'],
    ]);
    const [ab, ac] = a.chats;
    expect(ab?.messages.map((m) => [m.from, m.text, m.notice, m.edited, m.beforeEncryption])).toEqual([
      ['@bob', 'from before encryption', false, false, true],
      ['@alice', SEALED.m2, false, false, false],
      ['@bob', 'fixed', false, true, false],
      ['@alice', 'This message deleted', true, false, false],
      ['@alice', 'newest\nsecond line', false, false, false],
    ]);
    expect(ab?.messages[4]).toMatchObject({ status: 'delivered', readAt: null, fromMe: true });
    expect(ac).toMatchObject({ withheld: true, locked: true, peer: null });
    expect(ac?.messages.map((m) => [m.from, m.text, m.notice])).toEqual([['Deleted account', WITHHELD_TEXT, true]]);
  });

  it('refuses a stream cut short, one of another account, or a line it cannot read', async () => {
    const lines = fixture();
    await expect(readArchive(linesOf(lines.slice(0, -1)), me, open)).rejects.toThrow('cut short');
    await expect(readArchive(linesOf(lines), { ...me, id: BOB }, open)).rejects.toThrow('another account');
    await expect(readArchive(linesOf([...lines.slice(0, 2), { kind: 'nope' }]), me, open)).rejects.toThrow(
      'cannot read',
    );
    await expect(readArchive(linesOf(lines.slice(4)), me, open)).rejects.toThrow('start with the account');
  });

  it('splits an NDJSON byte stream into lines across chunk and character boundaries', async () => {
    const bytes = new TextEncoder().encode('{"a":"é"}\n\n{"b":2}\n{"c":3}');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.slice(i, i + 3));
        c.close();
      },
    });
    const out: string[] = [];
    for await (const l of ndjsonLines(body)) out.push(l);
    expect(out).toEqual(['{"a":"é"}', '{"b":2}', '{"c":3}']);
  });
});

describe('the files', () => {
  it('one JSON file per area, a page per conversation and an index', async () => {
    const files = archiveFiles(await archive());
    expect([...files.keys()].sort()).toEqual([
      'chats.json',
      'contacts.json',
      'conversations/bob.html',
      `conversations/deleted-account-${CAROL.slice(0, 6)}.html`,
      'index.html',
      'notifications.json',
      'profile.json',
      'settings.json',
    ]);
    expect(JSON.parse(files.get('profile.json') as string).account).toEqual(me);
    expect(JSON.parse(files.get('settings.json') as string)).toEqual({
      privacy: { readReceipts: true, lastSeen: false, requireRequest: true },
      chatPinSet: true,
    });
    const chats = JSON.parse(files.get('chats.json') as string);
    expect(chats[0]).toMatchObject({ chatId: AB, archived: true, page: 'conversations/bob.html' });
    expect(chats[0].messages[1]).toMatchObject({
      id: 'm2',
      text: SEALED.m2,
      sentAt: new Date(NOW - 2 * DAY).toISOString(),
    });
  });

  it('a conversation page: escaped, no script, light and dark, the day lines and where encryption began', async () => {
    const a = await archive();
    const html = conversationHtml(a, a.chats[0] as Archive['chats'][number]);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more');
    expect(html).toContain('<h1>Bob &lt;b&gt;</h1>');
    expect(html).toContain('@media (prefers-color-scheme:dark)');
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/src=|href="http/);
    const days = [...html.matchAll(/<li class="day"><span>([^<]*)<\/span>/g)].map((m) => m[1]);
    const longAgo = new Date(NOW - 400 * DAY).toLocaleDateString('en-US', {
      month: 'long',
      day: 'numeric',
      year: 'numeric',
    });
    const twoDays = new Date(NOW - 2 * DAY).toLocaleDateString('en-US', { weekday: 'long' });
    expect(days).toEqual([longAgo, twoDays, 'Yesterday', 'Today']);
    expect(html.indexOf('sent before end-to-end encryption')).toBeGreaterThan(html.indexOf('from before encryption'));
    expect(html.indexOf('sent before end-to-end encryption')).toBeLessThan(html.indexOf('&lt;script'));
    expect(html).toContain('· edited');
    expect(html).toContain('archived');
    expect(escapeHtml(`<a href="x" onclick='y'>&`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;');
  });

  it('zips them (fflate, streamed) into what unzips to the same files, named after the handle and day', async () => {
    const files = archiveFiles(await archive());
    const parts = await zipFiles(files, NOW);
    const zip = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      zip.set(p, at);
      at += p.length;
    }
    const back = unzipSync(zip);
    expect(Object.keys(back).sort()).toEqual([...files.keys()].sort());
    for (const [path, text] of files) expect(strFromU8(back[path] as Uint8Array)).toBe(text);
    expect(exportFileName('alice', NOW)).toBe('parley-export-alice-2026-11-26.zip');
  });
});
