/**
 * Key changes a server cannot hide (issue 28, attack 5): pins and verified marks are the
 * user's sealed account data, shared by every browser of theirs and kept across sign-outs;
 * a change is placed where a browser first saw it, whatever time the server names; a return
 * to an older identity is refused; a verified peer's change blocks sending until accepted;
 * an older version of the account data is refused where a newer one was seen. The real
 * ChatClient against a real server whose rows the test rewrites.
 */
import { putNewKeys, signUp } from '@app/server/test';
import { describe, expect, it } from 'vitest';
import { newUser, online, type TestUser, until, useTabServer } from '@/test/chat-clients';
import { ACCOUNT_DATA_ROLLED_BACK, type Seen, type SeenStore } from './account-data';
import { savePeerRecords } from './local-keys';
import { CODE_CHANGED, OLDER_IDENTITY_REFUSED } from './peer-keys';
import { refreshTrust, setVerified } from './peer-trust';

/** One browser's localStorage, as far as the account data's version goes. */
function browserMemory(): SeenStore {
  const m = new Map<string, Seen>();
  return { get: (id) => m.get(id) ?? null, set: (id, s) => void m.set(id, s) };
}

describe('pins and verified marks as account data (SQLite)', () => {
  const { t, tab } = useTabServer('', 'trustsync');
  const db = () => t.server.ctx.chat.db;

  /** Bob, with what his password unlocks, so the test can give him a new identity (a reset). */
  async function resettable() {
    const u = await signUp(t);
    const user: TestUser = {
      id: u.user.id,
      username: u.user.username,
      cookie: u.client.cookie as string,
      contents: u.secrets.contents,
    };
    return { user, reset: () => putNewKeys(u.client, u.user.id, u.secrets, 'identity') };
  }

  async function sendFails(x: ReturnType<typeof tab>, peerId: string, text: string): Promise<string> {
    x.client.openConversation(peerId);
    expect(x.client.sendMessage(peerId, text)).toBeNull();
    let reason = '';
    await until(() => {
      const m = x.client.getConversation(peerId).messages.find((y) => y.failed !== undefined);
      reason = m?.failed ?? '';
      return Boolean(m);
    }, 'the send to fail');
    return reason;
  }

  it('a mark made in one browser holds in another; a change after it blocks sending there, placed when seen', async () => {
    const alice = await newUser(t);
    const bob = await resettable();
    const a1 = tab(alice);
    await online(a1);
    const first = await refreshTrust(a1.client.keys, alice.id, bob.user.id, true);
    await setVerified(a1.client.keys, alice.id, bob.user.id, first.ik);

    // Another browser of Alice's (nothing of this one's): the mark is there.
    const a2 = tab(alice);
    await online(a2);
    expect((await refreshTrust(a2.client.keys, alice.id, bob.user.id, true)).verifiedIk).toBe(first.ik);

    // Bob starts over; the server says the new identity began a day ago.
    await bob.reset();
    await db()
      .updateTable('user_identities')
      .set({ created_at: Date.now() - 86_400_000 })
      .where('user_id', '=', bob.user.id)
      .where('id_version', '=', 2)
      .execute();
    const before = Date.now();
    expect(await sendFails(a2, bob.user.id, 'to the new code?')).toBe(CODE_CHANGED);
    const seen = await refreshTrust(a2.client.keys, alice.id, bob.user.id, true);
    expect(seen.ik).not.toBe(first.ik);
    expect(seen.verifiedIk).toBe(first.ik);
    // The "security code changed" line sits where Alice's browser saw it, not a day back.
    expect(seen.changes).toHaveLength(1);
    expect(seen.changes[0]).toBeGreaterThanOrEqual(before);

    // A third browser, signed in later: the same pins (no silent first use), still blocked.
    const a3 = tab(alice);
    await online(a3);
    expect(await sendFails(a3, bob.user.id, 'still?')).toBe(CODE_CHANGED);
    await setVerified(a3.client.keys, alice.id, bob.user.id, null);
    a3.client.openConversation(bob.user.id);
    expect(a3.client.sendMessage(bob.user.id, 'accepted')).toBeNull();
    await until(
      () => a3.client.getConversation(bob.user.id).messages.some((m) => m.ct !== null && !m.pending),
      'the send after accepting',
    );
  });

  it('a return to an older identity is refused', async () => {
    const alice = await newUser(t);
    const bob = await resettable();
    const a = tab(alice);
    await online(a);
    await refreshTrust(a.client.keys, alice.id, bob.user.id, true);
    const old = await db()
      .selectFrom('user_keys')
      .selectAll()
      .where('user_id', '=', bob.user.id)
      .executeTakeFirstOrThrow();
    await bob.reset();
    await refreshTrust(a.client.keys, alice.id, bob.user.id, true);
    // The server puts Bob's first identity back as his current one.
    await db()
      .updateTable('user_keys')
      .set({ ik_pub: old.ik_pub, uk_pub: old.uk_pub, uk_epoch: old.uk_epoch, uk_sig: old.uk_sig })
      .where('user_id', '=', bob.user.id)
      .execute();
    const again = tab(alice);
    await online(again);
    expect(await sendFails(again, bob.user.id, 'to the old code?')).toBe(OLDER_IDENTITY_REFUSED);
  });

  it('an older version of the account data is refused where a newer one was seen', async () => {
    const alice = await newUser(t);
    const bob = await newUser(t);
    const memory = browserMemory();
    const a = tab(alice, { accountDataSeen: memory });
    await online(a);
    await refreshTrust(a.client.keys, alice.id, bob.id, true);
    const v1 = await db()
      .selectFrom('user_account_data')
      .selectAll()
      .where('user_id', '=', alice.id)
      .executeTakeFirstOrThrow();
    const trust = await refreshTrust(a.client.keys, alice.id, bob.id);
    await setVerified(a.client.keys, alice.id, bob.id, trust.ik);
    // The server serves the version from before the mark.
    await db()
      .updateTable('user_account_data')
      .set({ version: v1.version, data: v1.data })
      .where('user_id', '=', alice.id)
      .execute();
    const reloaded = tab(alice, { accountDataSeen: memory });
    await online(reloaded);
    expect(await sendFails(reloaded, bob.id, 'unverified?')).toBe(ACCOUNT_DATA_ROLLED_BACK);
  });

  it('pins and a mark this browser kept before account data are carried over', async () => {
    const alice = await newUser(t);
    const bob = await newUser(t);
    const a = tab(alice);
    await online(a);
    const ik = (await a.client.keys.publicKeys(bob.id, true))?.ik as string;
    // What a browser from before kept: the pins and the mark, in its own storage.
    await db().deleteFrom('user_account_data').where('user_id', '=', alice.id).execute();
    await savePeerRecords(alice.id, bob.id, [ik], ik);
    const fresh = tab(alice);
    await online(fresh);
    expect((await refreshTrust(fresh.client.keys, alice.id, bob.id, true)).verifiedIk).toBe(ik);
  });
});
