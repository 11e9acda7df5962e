/**
 * A database with rows from before end-to-end encryption, for the purge-plaintext tests
 * (SQLite and PostgreSQL): messages, summaries and requests in the clear, old and new, next
 * to sealed ones, and an update log whose entries carry text.
 */
import { chatIdOf } from '@app/protocol';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { AccountStore } from '../storage/accounts/account-store.ts';
import type { Db } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';

/** The --before day the tests purge with, and a time on either side of it. */
export const CUTOFF = '2024-01-01';
export const OLD = Date.UTC(2023, 5, 1);
export const NEW = Date.UTC(2024, 5, 1);

/** Plaintext that a purge with --before CUTOFF removes (OLD), or only a full one (NEW). */
export const OLD_CANARY = 'OLDCANARY';
export const NEW_CANARY = 'NEWCANARY';
/** Stored in the clear by design (a handle): still in the file after any purge. */
export const CONTROL_HANDLE = 'wombat_keeper_7';
/** A sealed message's ciphertext: a purge leaves it as it is. */
export const SEALED_CT = `SEALEDCT${'Qx9'.repeat(40)}`;

/** Enough text that each row has its own bytes in the file. */
const text = (canary: string, what: string) => `${canary}-${what}: see you at the old harbour at nine`;

export interface LegacyWorld {
  alice: string;
  bob: string;
  carol: string;
  /** chat ids: alice–bob (newest message NEW, in the clear), alice–carol (OLD), bob–carol (newest sealed). */
  ab: string;
  ac: string;
  bc: string;
  /** An alice summary whose peer deleted their account (and the message it shows). */
  orphan: string;
}

/**
 * A messages row as a server stores it: by default as one from before end-to-end
 * encryption stored it (its text in the clear, `sealed` 0), read and delivered.
 */
export function messageRow(
  chat: string,
  id: string,
  from: string,
  to: string,
  timestamp: number,
  body: { text: string; sealed?: 0 | 1; deleted?: 0 | 1; edited?: 0 | 1 },
) {
  return {
    chat_id: chat,
    id,
    sender_id: from,
    recipient_id: to,
    text: body.text,
    sealed: body.sealed ?? 0,
    rev: 0,
    timestamp,
    status: 'read' as const,
    edited: body.edited ?? 0,
    deleted: body.deleted ?? 0,
    delivered_at: timestamp + 1,
    read_at: timestamp + 2,
  };
}

export async function seedLegacy(database: Db): Promise<LegacyWorld> {
  const db = database.kysely;
  const store = new AccountStore(database);
  const user = async (username: string) =>
    (
      await store.createUser({
        username,
        name: username,
        email: `${username}@example.com`,
        phone: '5551234567',
        age: 30,
        passwordHash: 'x',
        now: OLD,
      })
    ).id;
  const alice = await user(CONTROL_HANDLE);
  const bob = await user('bob_legacy');
  const carol = await user('carol_legacy');
  const ab = chatIdOf(alice, bob);
  const ac = chatIdOf(alice, carol);
  const bc = chatIdOf(bob, carol);
  const orphan = chatIdOf(alice, 'gone-user');

  const message = messageRow;
  await db
    .insertInto('messages')
    .values([
      message(ab, 'm1', alice, bob, OLD, { text: text(OLD_CANARY, 'm1'), edited: 1 }),
      message(ab, 'm2', bob, alice, OLD + 10, { text: SEALED_CT, sealed: 1 }),
      message(ab, 'm3', alice, bob, NEW, { text: text(NEW_CANARY, 'm3') }),
      message(ac, 'm4', carol, alice, OLD, { text: text(OLD_CANARY, 'm4') }),
      message(ac, 'm5', alice, carol, OLD - 10, { text: '', deleted: 1 }),
      message(bc, 'm6', bob, carol, OLD, { text: text(OLD_CANARY, 'm6') }),
      message(bc, 'm7', carol, bob, NEW, { text: SEALED_CT, sealed: 1 }),
    ])
    .execute();

  const summary = (
    user: string,
    chat: string,
    peer: string,
    timestamp: number,
    last: { id: string; sender: string; text: string; sealed?: 0 | 1 },
  ) => ({
    user_id: user,
    chat_id: chat,
    peer_id: peer,
    last_message: last.text,
    last_id: last.id,
    last_sender: last.sender,
    last_sealed: last.sealed ?? 0,
    timestamp,
    unread_count: 0,
    archived: 0 as const,
    locked: 0 as const,
  });
  const m3 = { id: 'm3', sender: alice, text: text(NEW_CANARY, 'm3') };
  const m4 = { id: 'm4', sender: carol, text: text(OLD_CANARY, 'm4') };
  const m7 = { id: 'm7', sender: carol, text: SEALED_CT, sealed: 1 as const };
  await db
    .insertInto('user_chats')
    .values([
      summary(alice, ab, bob, NEW, m3),
      summary(bob, ab, alice, NEW, m3),
      summary(alice, ac, carol, OLD, m4),
      summary(carol, ac, alice, OLD, m4),
      summary(bob, bc, carol, NEW, m7),
      summary(carol, bc, bob, NEW, m7),
      summary(alice, orphan, 'gone-user', NEW, { id: 'm9', sender: 'gone-user', text: text(NEW_CANARY, 'orphan') }),
    ])
    .execute();

  const notification = (id: string, timestamp: number, message: string, sealed: 0 | 1, type = 'request') => ({
    id,
    user_id: alice,
    type: type as 'request' | 'info',
    from_id: carol,
    from_username: 'carol_legacy',
    message,
    sealed,
    timestamp,
    read: 0 as const,
    msg_id: type === 'request' ? `${id}-msg` : null,
  });
  await db
    .insertInto('user_notifications')
    .values([
      notification('r1', OLD, text(OLD_CANARY, 'request'), 0),
      notification('r2', NEW, text(NEW_CANARY, 'request'), 0),
      notification('r3', OLD, SEALED_CT, 1),
      notification('i1', OLD, '@carol_legacy accepted your message request.', 0, 'info'),
    ])
    .execute();

  // The update log, as a server wrote it: entries carrying the text in the clear.
  await db
    .insertInto('user_updates')
    .values(
      [1, 2, 3].map((seq) => ({
        user_id: alice,
        seq,
        kind: 'message',
        payload: JSON.stringify({ kind: 'message', legacyText: text(OLD_CANARY, `log ${seq}`) }),
        created_at: OLD,
      })),
    )
    .execute();
  await db.updateTable('users').set({ update_seq: 3 }).where('id', '=', alice).execute();
  return { alice, bob, carol, ab, ac, bc, orphan };
}

/** Every row a purge may touch, keyed for comparison. */
export async function snapshot(db: Kysely<Database>) {
  const [messages, summaries, notifications, updates, users] = await Promise.all([
    db.selectFrom('messages').selectAll().orderBy('id').execute(),
    db.selectFrom('user_chats').selectAll().orderBy('chat_id').orderBy('user_id').execute(),
    db.selectFrom('user_notifications').selectAll().orderBy('id').execute(),
    db.selectFrom('user_updates').selectAll().execute(),
    db.selectFrom('users').select(['id', 'username', 'update_seq']).execute(),
  ]);
  return {
    messages: new Map(messages.map((m) => [m.id, m])),
    summaries: new Map(summaries.map((s) => [`${s.user_id}:${s.chat_id}`, s])),
    notifications: new Map(notifications.map((n) => [n.id, n])),
    updates,
    seqs: new Map(users.map((u) => [u.id, Number(u.update_seq)])),
  };
}

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/**
 * `after` is `before` with exactly these rows purged (keys as in snapshot(); summaries as
 * "user:chat"): a message's text gone as a deletion leaves it, a summary showing a deleted
 * message, a request blanked; every other row unchanged; the log empty; each seq one on.
 */
export function expectPurged(
  before: Snapshot,
  after: Snapshot,
  purged: { messages: string[]; summaries: string[]; requests: string[] },
): void {
  for (const [id, row] of before.messages) {
    const want = purged.messages.includes(id) ? { ...row, text: '', deleted: 1, edited: 0 } : row;
    expect(after.messages.get(id), `message ${id}`).toEqual(want);
  }
  for (const [key, row] of before.summaries) {
    const want = purged.summaries.includes(key) ? { ...row, last_message: '', last_deleted: 1 } : row;
    expect(after.summaries.get(key), `summary ${key}`).toEqual(want);
  }
  for (const [id, row] of before.notifications) {
    const want = purged.requests.includes(id) ? { ...row, message: '' } : row;
    expect(after.notifications.get(id), `notification ${id}`).toEqual(want);
  }
  expect(after.messages.size).toBe(before.messages.size);
  expect(after.summaries.size).toBe(before.summaries.size);
  expect(after.notifications.size).toBe(before.notifications.size);
  expect(after.updates).toEqual([]);
  for (const [id, seq] of before.seqs) expect(after.seqs.get(id)).toBe(seq + 1);
}
