/**
 * The bench's users, seeded straight into the database before the target starts: each
 * with a session, keys, and a chat key with the user it writes to, as in chats under way.
 */
import { randomBytes } from 'node:crypto';
import { type ChatKeyEnvelopeWire, chatIdOf, chatKeyEnvelopeSchema } from '@app/protocol';
import { AccountStore, hashSecret, hashToken, migrate, newToken, openDb } from '@app/server';
import { BENCH_EPOCH } from './sealed-mix.ts';

/** Who user `i` of `n` writes to: 2k and 2k+1 write to each other (an odd last one, to the first). */
export function peerIndex(i: number, n: number): number {
  const p = i % 2 === 0 ? i + 1 : i - 1;
  return p < n ? p : 0;
}

export interface SeedTarget {
  /** SQLite in `dataDir`, or PostgreSQL at `pgUrl` in `schema`. */
  dataDir: string;
  pgUrl: string | null;
  schema: string;
  /** Makes this run's usernames unique. */
  tag: string;
  /** The server's SESSION_SECRET: sessions are stored as its hash of the token. */
  secret: string;
}

/** `n` users with sessions (their tokens returned), keys, and every pair's chat key. */
export async function seed(n: number, t: SeedTarget): Promise<{ id: string; token: string }[]> {
  const { tag } = t;
  const db = await openDb(t.pgUrl ? { databaseUrl: t.pgUrl, pgSchema: t.schema } : { dataDir: t.dataDir });
  await migrate(db);
  const store = new AccountStore(db);
  const passwordHash = await hashSecret('bench-password');
  const now = Date.now();
  const users: { id: string; token: string }[] = [];
  for (let i = 0; i < n; i++) {
    const u = await store.createUser({
      username: `b${i}_${tag}`.slice(0, 20),
      name: `Bench ${i}`,
      email: `b${i}_${tag}@bench.example`,
      phone: '5551234567',
      age: 30,
      passwordHash,
      now,
    });
    const token = newToken();
    await store.createSession({
      tokenHash: hashToken(t.secret, token),
      userId: u.id,
      createdAt: now,
      authAt: now,
      lastUsedAt: now,
      expiresAt: now + 86_400_000,
      persistent: true,
      userAgent: 'bench',
      ip: '127.0.0.1',
    });
    users.push({ id: u.id, token });
  }
  await seedKeys(
    store,
    users.map((u) => u.id),
    now,
  );
  await db.close();
  return users;
}

const b64url = (chars: number) =>
  randomBytes(Math.ceil((chars * 3) / 4))
    .toString('base64url')
    .slice(0, chars);

/** Rows per insert: 10 columns × 500 stays under SQLite's and PostgreSQL's bound-parameter limits. */
const BATCH = 500;

/** Inserts `rows` into `table`, BATCH rows a statement. */
async function insertAll(
  store: AccountStore,
  table: 'user_keys' | 'chat_keys' | 'user_chats',
  rows: readonly object[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await store.db
      .insertInto(table)
      .values(rows.slice(i, i + BATCH) as never)
      .execute();
  }
}

/**
 * Every user's keys (epoch 1, as at sign-up: public keys, their signature and a sealed
 * bundle of realistic lengths that open nothing) and every pair's chat key for epoch 1,
 * sealed to both users' epoch-1 keys (what the first message of a chat brings), and both
 * people's summaries of the chat keeping that key: so each send is under the chat's
 * current key, in a chat already under way. Batched inserts.
 */
async function seedKeys(store: AccountStore, ids: string[], now: number): Promise<void> {
  const keys = ids.map((userId) => ({
    user_id: userId,
    id_version: 1,
    ik_pub: b64url(43),
    uk_epoch: 1,
    uk_pub: b64url(43),
    uk_sig: b64url(86),
    // One key epoch's bundle: about 450 characters (see sealedBundleSchema).
    bundle: b64url(448),
    bundle_version: 1,
    bundle_stale: 0 as const,
    updated_at: now,
  }));
  await insertAll(store, 'user_keys', keys);
  const chats = new Map<string, ChatKeyEnvelopeWire>();
  ids.forEach((id, i) => {
    const peer = ids[peerIndex(i, ids.length)];
    if (peer === undefined || peer === id) return;
    const chatId = chatIdOf(id, peer);
    if (chats.has(chatId)) return;
    const [low, high] = chatId.split('_') as [string, string];
    const seal = (userId: string) => ({ userId, ukEpoch: 1, enc: b64url(43), ct: b64url(64) });
    // Shaped like sampleChatKey (packages/protocol/src/test/samples.ts); checked like a send's.
    chats.set(
      chatId,
      chatKeyEnvelopeSchema.parse({
        chatId,
        epoch: BENCH_EPOCH,
        creatorId: low,
        seals: [seal(low), seal(high)],
        sig: b64url(86),
      }),
    );
  });
  const rows = [...chats.values()].map((e) => ({
    chat_id: e.chatId,
    epoch: e.epoch,
    creator_id: e.creatorId,
    uk_epochs: '1,1',
    envelope: JSON.stringify(e),
    created_at: now,
  }));
  await insertAll(store, 'chat_keys', rows);
  // Both people's summary of each chat, with its key, as the chat's first message leaves
  // them: every send of the run is one in a chat under way.
  const summaries = [...chats.values()].flatMap((e) => {
    const [low, high] = e.chatId.split('_') as [string, string];
    return [
      [low, high],
      [high, low],
    ].map(([user, peer]) => ({
      user_id: user as string,
      chat_id: e.chatId,
      peer_id: peer as string,
      last_message: null,
      last_id: null,
      last_sender: null,
      chat_key: `${e.epoch}:1,1`,
      timestamp: now,
      unread_count: 0,
      archived: 0 as const,
      locked: 0 as const,
    }));
  });
  await insertAll(store, 'user_chats', summaries);
}
