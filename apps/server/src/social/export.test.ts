/**
 * GET /api/me/export ("Download my data") against a real server, with a raw HTTP client:
 * the caller's own account, contacts, notifications and chats with every message in order
 * (sealed as stored, across pages), nobody else's; 401 without a session; a locked chat's
 * text withheld without a PIN grant; the per-account limit. SQLite, and PostgreSQL too
 * when TEST_DATABASE_URL is set (the count and the keyset pages are engine SQL).
 */
import { API, chatIdOf, EXPORT_PAGE, type ExportLine, exportLineSchema } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../config.ts';
import { ENGINES, expectError, LOOSE_LIMITS, type TestClient, useTestServer } from '../test/harness.ts';
import { messageRow } from '../test/legacy-plaintext.ts';
import { connectedPerson, type Person, setPin } from '../test/people.ts';

/** The export as `client` gets it: status, content type and its parsed lines. */
async function exportOf(client: TestClient) {
  const res = await fetch(client.baseUrl + API.exportData, {
    headers: client.cookie ? { cookie: `sid=${client.cookie}` } : {},
  });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, type: res.headers.get('content-type'), lines: [], text };
  const lines: ExportLine[] = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => exportLineSchema.parse(JSON.parse(l)));
  return { status: res.status, type: res.headers.get('content-type'), lines, text };
}

const ofKind = <K extends ExportLine['kind']>(lines: ExportLine[], kind: K) =>
  lines.filter((l): l is Extract<ExportLine, { kind: K }> => l.kind === kind);

describe.each(ENGINES)('export on $name', ({ url }) => {
  const t = useTestServer({
    engine: url,
    tag: 'export',
    config: { rateLimits: { ...LOOSE_LIMITS, exportsPerAccount: 3 } },
  });
  const person = () => connectedPerson(t);

  async function converse(a: Person, b: Person) {
    const first = await a.ws.sendMessage(b.user.id, 'hello <script>alert(1)</script>');
    const reply = await b.ws.sendMessage(a.user.id, 'hi back');
    const edited = await a.ws.sendMessage(b.user.id, 'typo');
    await a.ws.editMessage(edited.chatId, edited.id, 'fixed');
    const gone = await b.ws.sendMessage(a.user.id, 'oops');
    await b.ws.deleteMessage(gone.chatId, gone.id);
    return [first.id, reply.id, edited.id, gone.id];
  }

  it("streams the caller's own account, chats and messages in order, sealed as stored; another user's cookie gets only theirs", async () => {
    const a = await person();
    const b = await person();
    const c = await person();
    const ids = await converse(a, b);
    await b.ws.sendMessage(c.user.id, 'between b and c');

    const mine = await exportOf(a.client);
    expect(mine.status).toBe(200);
    expect(mine.type).toMatch(/^application\/x-ndjson/);
    const [account, ...rest] = mine.lines;
    expect(account).toMatchObject({ kind: 'account', user: { id: a.user.id }, chats: 1, messages: 4 });
    expect(rest.at(-1)).toEqual({ kind: 'end', chats: 1, messages: 4 });
    const chats = ofKind(mine.lines, 'chat');
    expect(chats.map((l) => l.chat.chatId)).toEqual([chatIdOf(a.user.id, b.user.id)]);
    expect(chats[0]?.withheld).toBe(false);
    const messages = ofKind(mine.lines, 'messages').flatMap((l) => l.messages);
    expect(messages.map((m) => m.id)).toEqual(ids);
    // As stored: sealed, the edit as revision 1, the deleted one as its sender's tombstone (revision 1).
    expect(messages.map((m) => [m.rev, m.edited, m.deleted, m.ct === null])).toEqual([
      [0, false, false, false],
      [0, false, false, false],
      [1, true, false, false],
      [1, false, true, false],
    ]);
    const texts = await Promise.all(messages.map((m) => a.ws.textOf(m)));
    expect(texts).toEqual(['hello <script>alert(1)</script>', 'hi back', 'fixed', null]);
    // No plaintext of a sealed message in what the server sent.
    expect(mine.text).not.toContain('hi back');
    for (const text of ['between b and c', c.user.id]) expect(mine.text).not.toContain(text);

    const theirs = await exportOf(c.client);
    expect(theirs.lines[0]).toMatchObject({ kind: 'account', user: { id: c.user.id }, chats: 1, messages: 1 });
    expect(ofKind(theirs.lines, 'chat').map((l) => l.chat.chatId)).toEqual([chatIdOf(b.user.id, c.user.id)]);
    expect(theirs.text).not.toContain(a.user.id);
  });

  it('refuses without a session (401) or with a signed-out one', async () => {
    expectError(await t.client().get(API.exportData), 401, 'unauthenticated');
    const a = await person();
    const cookie = a.client.cookie;
    await a.client.post(API.signOut);
    const stale = t.client();
    stale.cookie = cookie;
    expect((await exportOf(stale)).status).toBe(401);
  });

  it('pages a long chat oldest first (ties by id), legacy rows as they are, every page in order', async () => {
    const a = await person();
    const b = await person();
    await a.ws.sendMessage(b.user.id, 'sealed first');
    const chatId = chatIdOf(a.user.id, b.user.id);
    const n = EXPORT_PAGE * 2 + 7;
    const base = Date.UTC(2023, 0, 1);
    const rows = Array.from({ length: n }, (_, i) =>
      // Pairs share a timestamp: the id orders them.
      messageRow(chatId, `legacy${String(i).padStart(5, '0')}`, a.user.id, b.user.id, base + Math.floor(i / 2), {
        text: `legacy ${i}`,
      }),
    );
    for (let i = 0; i < rows.length; i += 200) {
      await t.server.ctx.chat.db
        .insertInto('messages')
        .values(rows.slice(i, i + 200))
        .execute();
    }
    const { lines } = await exportOf(a.client);
    const pages = ofKind(lines, 'messages');
    expect(pages.map((p) => p.messages.length)).toEqual([EXPORT_PAGE, EXPORT_PAGE, 8]);
    const all = pages.flatMap((p) => p.messages);
    expect(all.slice(0, n).map((m) => m.legacyText)).toEqual(rows.map((r) => r.text));
    expect(all.at(-1)?.legacyText).toBeNull();
    expect(lines.at(-1)).toEqual({ kind: 'end', chats: 1, messages: n + 1 });
    expect(lines[0]).toMatchObject({ messages: n + 1 });
  });

  it("lists contacts and notifications; a locked chat's text is withheld without a PIN grant", async () => {
    const a = await person();
    const b = await person();
    await a.client.request('PUT', API.privacy, { readReceipts: true, lastSeen: true, requireRequest: true });
    // b's first message is a contact request; a accepts it: both are contacts.
    const r = await b.ws.send(a.user.id, 'may I?');
    expect('request' in r).toBe(true);
    const { items } = await a.ws.request('notifications');
    const request = items.find((i) => i.type === 'request');
    if (!request) throw new Error('no request');
    await a.ws.request('respondRequest', { notificationId: request.id, accept: true });
    await a.ws.sendMessage(b.user.id, 'welcome');

    let { lines } = await exportOf(a.client);
    expect(ofKind(lines, 'contact').map((l) => [l.userId, l.user?.username])).toEqual([[b.user.id, b.user.username]]);
    // The notifications as /notifications lists them (b's, who was told of the accept, too).
    expect(ofKind(lines, 'notification').map((l) => l.item)).toEqual((await a.ws.request('notifications')).items);
    const told = ofKind((await exportOf(b.client)).lines, 'notification').map((l) => l.item);
    expect(told).toEqual((await b.ws.request('notifications')).items);
    expect(told.some((i) => i.type === 'info')).toBe(true);
    expect(lines[0]).toMatchObject({ privacy: { requireRequest: true }, hasPin: false });

    await setPin(a, '123456');
    await a.ws.request('chatFlags', { peerId: b.user.id, locked: true });
    ({ lines } = await exportOf(a.client));
    expect(ofKind(lines, 'chat')[0]).toMatchObject({ withheld: true, chat: { locked: true, last: null } });
    const messages = ofKind(lines, 'messages').flatMap((l) => l.messages);
    expect(messages).toHaveLength(2);
    expect(messages.every((m) => m.ct === null && m.legacyText === null)).toBe(true);

    expect((await a.client.post(API.verifyPin, { pin: '123456' })).status).toBe(200);
    ({ lines } = await exportOf(a.client));
    expect(ofKind(lines, 'chat')[0]?.withheld).toBe(false);
    expect(
      ofKind(lines, 'messages')
        .flatMap((l) => l.messages)
        .every((m) => m.ct !== null),
    ).toBe(true);
  });

  it('is limited per account like the other costly requests', async () => {
    expect(DEFAULT_RATE_LIMITS.exportsPerAccount).toBeGreaterThan(0);
    const a = await person();
    for (let i = 0; i < 3; i++) expect((await exportOf(a.client)).status).toBe(200);
    const refused = await a.client.get(API.exportData);
    expectError(refused, 429, 'rate_limited');
    // Someone else is not held back by it.
    expect((await exportOf((await person()).client)).status).toBe(200);
  });
});
