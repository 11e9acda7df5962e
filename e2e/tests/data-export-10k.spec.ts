/**
 * A measurement, not a check (run with EXPORT_10K=1): how long "Download my data" takes in
 * the browser for an account with a 10,000-message chat, every message sealed end to end.
 * The peer's first message goes over the socket (it brings the chat's key); the other
 * 9,999 are sealed in Node with the same cryptography (the server's test Sealer) and
 * written straight into the server's SQLite file (the API would take minutes). The time
 * from the click to the saved zip is printed; the zip is checked to hold every message.
 */
import { readFileSync } from 'node:fs';
import { Sealer, setUpKeys, signUpBody, TestClient, type TestServer, WsTestClient } from '@app/server/test';
import Database from 'better-sqlite3';
import { strFromU8, unzipSync } from 'fflate';
import { E2E_BASE_URL, E2E_DB_FILE } from '../env.ts';
import { expect, test } from './chat-helpers.ts';
import { makeUser } from './fixtures.ts';

const TOTAL = 10_000;

test('a 10,000-message account exports in the browser (printed figure)', async ({ people }) => {
  test.skip(!process.env.EXPORT_10K, 'a measurement: run with EXPORT_10K=1');
  test.setTimeout(360_000);
  const alice = await people.person('x10a');

  // Bob, with his keys in this process, writes the first message over the socket.
  const bobUser = makeUser('x10b');
  const client = new TestClient(E2E_BASE_URL);
  const { body, wrapKey } = await signUpBody({ ...bobUser, agree: true });
  const res = await client.post('/api/auth/signup', body);
  expect(res.status).toBe(201);
  const bobId: string = res.body.user.id;
  const { contents } = await setUpKeys(client, bobId, wrapKey);
  const sealer = Sealer.register(bobId, contents);
  const ws = await WsTestClient.connect({ url: E2E_BASE_URL } as TestServer, client.cookie);
  ws.sealer = sealer;
  sealer.ws = ws;
  const first = await ws.sendMessage(alice.id, 'message 0');
  const chatId = first.chatId;

  // The rest sealed here and written into the database, older than the first.
  const start = first.timestamp - TOTAL * 60_000;
  const rows: unknown[][] = [];
  for (let i = 1; i < TOTAL; i += 500) {
    const ids = Array.from({ length: Math.min(500, TOTAL - i) }, (_, k) => i + k);
    const sealed = await Promise.all(
      ids.map((n) => sealer.seal(alice.id, `x10k-${String(n).padStart(6, '0')}`, `message ${n}`, 0, ws)),
    );
    ids.forEach((n, k) => {
      const t = start + n * 60_000;
      rows.push([chatId, `x10k-${String(n).padStart(6, '0')}`, bobId, alice.id, sealed[k]?.ct, t, t, t]);
    });
  }
  await ws.close();
  const db = new Database(E2E_DB_FILE);
  try {
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      `INSERT INTO messages (chat_id, id, sender_id, recipient_id, text, sealed, rev, timestamp, status, edited, deleted, delivered_at, read_at)
       VALUES (?, ?, ?, ?, ?, 1, 0, ?, 'read', 0, 0, ?, ?)`,
    );
    const batch = db.transaction((part: unknown[][]) => {
      for (const r of part) insert.run(...r);
    });
    for (let i = 0; i < rows.length; i += 2000) batch(rows.slice(i, i + 2000));
  } finally {
    db.close();
  }

  const a = alice.page;
  await a.goto('/settings');
  const row = a.getByRole('button', { name: 'Download my data' });
  await expect(row).toBeVisible();
  const download = a.waitForEvent('download', { timeout: 120_000 });
  const t0 = Date.now();
  await row.click();
  // The progress bar's value every second, to see where the time goes.
  const bar = a.getByRole('progressbar', { name: 'Preparing your data' });
  let settled = false;
  void download.finally(() => {
    settled = true;
  });
  const trace: string[] = [];
  while (!settled) {
    const v = await bar.getAttribute('aria-valuenow', { timeout: 1000 }).catch(() => null);
    trace.push(`${Date.now() - t0}ms:${v ?? '-'}`);
    await a.waitForTimeout(1000);
  }
  console.log(`EXPORT_10K progress: ${trace.join(' ')}`);
  const file = await download;
  const path = await file.path();
  const ms = Date.now() - t0;
  const zip = unzipSync(readFileSync(path));
  const [chat] = JSON.parse(strFromU8(zip['chats.json'] as Uint8Array)) as { messages: { text: string }[] }[];
  expect(chat?.messages).toHaveLength(TOTAL);
  expect(chat?.messages.at(0)?.text).toBe('message 1');
  expect(chat?.messages.at(-1)?.text).toBe('message 0');
  expect(chat?.messages.filter((m) => /^message \d+$/.test(m.text))).toHaveLength(TOTAL);
  const size = readFileSync(path).length;
  console.log(`EXPORT_10K: ${TOTAL} messages exported in ${ms} ms (zip ${(size / 1e6).toFixed(2)} MB)`);
  test.info().annotations.push({ type: 'export-10k-ms', description: String(ms) });
});
