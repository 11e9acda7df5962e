/**
 * History locked by a password reset (docs/e2ee.md), against a real server:
 * a reset answered with a new identity leaves the old bundle archived, listed to its owner
 * only; every identity a user has had is published with the keys (oldest first, with the
 * time it began), so envelopes signed before a reset still verify and peers can say the
 * security code changed; a put that brings the old keys back deletes the archived copies
 * it names, and only its owner's. Runs on SQLite, and on PostgreSQL too when
 * TEST_DATABASE_URL is set.
 */
import { createAccount, mergeBundles, newRecoveryKey, openBundle, recoveryWrapKey, sealBundle } from '@app/e2ee';
import { API, type ArchivedBundle, type OwnKeys } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { authOf, deriveKeys, ownKeysOf, randomAuth, resetPasswordBody, resetToken } from '../test/accounts.ts';
import {
  ENGINES,
  expectError,
  LOOSE_LIMITS,
  signInWith,
  signUp,
  type TestClient,
  useTestServer,
} from '../test/harness.ts';
import { WsTestClient } from '../test/ws-client.ts';

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'locked', config: { rateLimits: LOOSE_LIMITS } });

  /** Resets `email`'s password to `password` by e-mail, then signs in with no keys and makes a new identity. */
  async function resetToNewIdentity(email: string, userId: string, password: string) {
    const reset = await resetPasswordBody(await resetToken(t, email), password);
    expect((await t.client().post(API.resetPassword, reset)).status).toBe(204);
    const client = t.client();
    const stale = (await signInWith(client, email, password)).body.keys as OwnKeys;
    expect(stale.stale).toBe(true);
    const { wrapKey } = await deriveKeys(password, stale.salt, stale.kdf);
    const made = await createAccount(userId, stale.publicKeys.ukEpoch + 1);
    const { userId: _, ...keys } = made.publicKeys;
    const bundle = await sealBundle(made.contents, wrapKey, userId, stale.bundleVersion + 1);
    const put = await client.request('PUT', API.keys, { bundle, bundleVersion: stale.bundleVersion + 1, keys });
    expect(put.status).toBe(200);
    return { client, contents: made.contents, wrapKey, ik: made.publicKeys.ik };
  }

  const archiveOf = async (c: TestClient) =>
    (await c.request<{ archived: ArchivedBundle[] }>('GET', API.keysArchive)).body.archived;

  it('lists the locked bundle to its owner; the old password opens it; keys name every identity', async () => {
    const bob = await signUp(t);
    const { client: bobOld, user, input, secrets } = await signUp(t);
    const before = await ownKeysOf(bobOld);
    expect(before.publicKeys.identities).toEqual([
      { ik: before.publicKeys.ik, idVersion: 1, since: expect.any(Number) },
    ]);
    // Nothing is archived before a reset.
    expect(await archiveOf(bobOld)).toEqual([]);

    const after = await resetToNewIdentity(input.email, user.id, 'new-password-1');
    const archived = await archiveOf(after.client);
    expect(archived).toEqual([
      {
        bundleVersion: 1,
        idVersion: 1,
        bundle: before.bundle,
        kdf: before.kdf,
        salt: before.salt,
      },
    ]);
    const old = await deriveKeys(input.password, before.salt, before.kdf);
    expect(await openBundle(archived[0]?.bundle as string, old.wrapKey, user.id, 1)).toEqual(secrets.contents);

    // Everyone sees both identities, oldest first, each with the time it began.
    const ws = await WsTestClient.connect(t, bob.client.cookie);
    const [pub] = (await ws.request('keys', { userIds: [user.id] })).keys;
    expect(pub?.ik).toBe(after.ik);
    expect(pub?.identities.map((i) => i.ik)).toEqual([before.publicKeys.ik, after.ik]);
    const [first, second] = pub?.identities ?? [];
    expect((second?.since ?? 0) >= (first?.since ?? Infinity)).toBe(true);
    ws.close();

    // Another account sees no archive of its own, and never this one's.
    expect(await archiveOf(bob.client)).toEqual([]);
    expectError(await t.client().request('GET', API.keysArchive), 401, 'unauthenticated');
  });

  it('a put that merges the old keys deletes the archived copy it names, and only that', async () => {
    const other = await signUp(t);
    const otherAfter = await resetToNewIdentity(other.input.email, other.user.id, 'other-new-pw');
    const { user, input, secrets } = await signUp(t);
    const after = await resetToNewIdentity(input.email, user.id, 'new-password-2');
    const [locked] = await archiveOf(after.client);
    expect(locked?.bundleVersion).toBe(1);

    const merged = mergeBundles(after.contents, secrets.contents);
    const own = await ownKeysOf(after.client);
    const bundleVersion = own.bundleVersion + 1;
    const bundle = await sealBundle(merged, after.wrapKey, user.id, bundleVersion);
    const auth = await authOf(after.client, 'new-password-2');
    // Malformed lists are refused before anything is written, and so is a list the password does not confirm.
    for (const bad of [[], [0], ['1'], Array.from({ length: 51 }, (_, i) => i + 1), 1]) {
      expectError(
        await after.client.request('PUT', API.keys, { bundle, bundleVersion, merged: bad, auth }),
        400,
        'invalid_input',
      );
    }
    expectError(
      await after.client.request('PUT', API.keys, { bundle, bundleVersion, merged: [1] }),
      400,
      'invalid_input',
    );
    const wrong = { bundle, bundleVersion, merged: [1], auth: randomAuth() };
    expectError(await after.client.request('PUT', API.keys, wrong), 403, 'wrong_password');
    expect(await archiveOf(after.client)).toHaveLength(1);
    // Naming another account's archived bundle version touches nothing of theirs.
    const put = await after.client.request('PUT', API.keys, { bundle, bundleVersion, merged: [1], auth });
    expect(put.status).toBe(200);
    expect(put.body.keys).toMatchObject({ bundleVersion, idVersion: 2, publicKeys: { ik: after.ik } });
    expect(await archiveOf(after.client)).toEqual([]);
    expect(await archiveOf(otherAfter.client)).toHaveLength(1);

    // Every browser now opens the merged bundle with the current password.
    const again = (await signInWith(t.client(), input.email, 'new-password-2')).body.keys as OwnKeys;
    expect(again.stale).toBe(false);
    expect(await openBundle(again.bundle, after.wrapKey, user.id, bundleVersion)).toEqual(merged);
  });

  it('a new identity put by a browser holding older keys merges them in the same put', async () => {
    const { user, input, secrets } = await signUp(t);
    // First reset: another browser starts identity 2; the first identity is locked.
    const second = await resetToNewIdentity(input.email, user.id, 'new-password-3');
    expect(await archiveOf(second.client)).toHaveLength(1);
    // Second reset: a browser holding only the first identity's keys starts identity 3 and brings them along.
    const reset = await resetPasswordBody(await resetToken(t, input.email), 'new-password-4');
    expect((await t.client().post(API.resetPassword, reset)).status).toBe(204);
    const c = t.client();
    const stale = (await signInWith(c, input.email, 'new-password-4')).body.keys as OwnKeys;
    const { wrapKey } = await deriveKeys('new-password-4', stale.salt, stale.kdf);
    const made = await createAccount(user.id, stale.publicKeys.ukEpoch + 1);
    const { userId: _, ...keys } = made.publicKeys;
    const bundleVersion = stale.bundleVersion + 1;
    const bundle = await sealBundle(mergeBundles(made.contents, secrets.contents), wrapKey, user.id, bundleVersion);
    const auth = await authOf(c, 'new-password-4');
    const put = await c.request('PUT', API.keys, { bundle, bundleVersion, keys, merged: [1], auth });
    expect(put.status).toBe(200);
    // Identity 1 is back; identity 2 (sealed by the second password) is still locked.
    expect((await archiveOf(c)).map((a) => a.idVersion)).toEqual([2]);
    expect(second.ik).not.toBe(made.publicKeys.ik);
    expect((put.body.keys as OwnKeys).publicKeys.identities).toHaveLength(3);
  });

  it('a recovery bundle: set and replaced with the password, read by its owner only, survives a reset, goes with the account', async () => {
    const { client, user, input, secrets } = await signUp(t);
    const other = await signUp(t);
    const rec = await newRecoveryKey();
    const bundle = await sealBundle(secrets.contents, await recoveryWrapKey(rec.key), user.id, 0);
    const get = async (c: TestClient) =>
      (await c.request<{ recovery: { bundle: string; createdAt: number } | null }>('GET', API.keysRecovery)).body
        .recovery;
    expect(await get(client)).toBeNull();
    expectError(await client.request('PUT', API.keysRecovery, { auth: randomAuth(), bundle }), 403, 'wrong_password');
    expectError(await client.request('PUT', API.keysRecovery, { bundle }), 400, 'invalid_input');
    expectError(
      await t.client().request('PUT', API.keysRecovery, { auth: randomAuth(), bundle }),
      401,
      'unauthenticated',
    );
    const auth = await authOf(client, input.password);
    expect((await client.request('PUT', API.keysRecovery, { auth, bundle })).status).toBe(204);
    expect(await get(client)).toEqual({ bundle, createdAt: expect.any(Number) });
    expect(await get(other.client)).toBeNull();

    // After a reset with a new identity, the recovery key opens the old keys and they merge.
    const after = await resetToNewIdentity(input.email, user.id, 'new-password-5');
    const kept = await get(after.client);
    expect(kept?.bundle).toBe(bundle);
    const opened = await openBundle(kept?.bundle as string, await recoveryWrapKey(rec.key), user.id, 0);
    expect(opened).toEqual(secrets.contents);

    // Removing it needs the (current) password too.
    expectError(await after.client.request('DELETE', API.keysRecovery, { auth: randomAuth() }), 403, 'wrong_password');
    const now = await authOf(after.client, 'new-password-5');
    expect((await after.client.request('DELETE', API.keysRecovery, { auth: now })).status).toBe(204);
    expect(await get(after.client)).toBeNull();

    expect(
      (
        await other.client.request('PUT', API.keysRecovery, {
          auth: await authOf(other.client, other.input.password),
          bundle,
        })
      ).status,
    ).toBe(204);
    expect(
      (await other.client.del('/api/account', { auth: await authOf(other.client, other.input.password) })).status,
    ).toBe(204);
    const rows = await t.server.ctx.store.db
      .selectFrom('user_recovery')
      .select('user_id')
      .where('user_id', '=', other.user.id)
      .execute();
    expect(rows).toEqual([]);
  });
});
