import { describe, expect, it } from 'vitest';
import { bundleAdds, createAccount, importAccount, mergeBundles } from './account-keys.ts';
import { openBundle, sealBundle } from './bundle.ts';
import { randomBytes } from './bytes.ts';
import { createChatKey, openChatKey } from './chat-key.ts';
import { aesKey } from './hkdf.ts';
import { ALICE, BOB, CHAT } from './test/people.ts';

describe('unlocking keys from before a password reset', () => {
  it('a new identity opens the old chat keys only once the old bundle is merged in', async () => {
    const before = await createAccount(ALICE);
    const bob = await createAccount(BOB);
    const bobKeys = await importAccount(bob.contents, BOB);
    const old = await createChatKey(bobKeys, CHAT, 1, [before.publicKeys, bob.publicKeys]);
    // The reset: a new identity, its epochs after the old ones.
    const after = await createAccount(ALICE, before.publicKeys.ukEpoch + 1);
    expect(after.publicKeys.ukEpoch).toBe(2);
    const fresh = await importAccount(after.contents, ALICE);
    await expect(openChatKey(fresh, old.envelope, bob.publicKeys.ik)).rejects.toThrow();

    expect(bundleAdds(after.contents, before.contents)).toBe(true);
    const merged = mergeBundles(after.contents, before.contents);
    expect(merged.ik).toEqual(after.contents.ik);
    expect(merged.uks.map((k) => k.epoch)).toEqual([1, 2]);
    expect(merged.past).toEqual([before.publicKeys.ik]);
    expect(bundleAdds(merged, before.contents)).toBe(false);
    const unlocked = await importAccount(merged, ALICE);
    expect(unlocked.ukEpoch).toBe(2);
    expect(unlocked.pastIks).toEqual([before.publicKeys.ik]);
    await expect(openChatKey(unlocked, old.envelope, bob.publicKeys.ik)).resolves.toBeTruthy();
  });

  it('merging twice, or merging an identity into itself, changes nothing; the merged bundle seals and opens', async () => {
    const a = await createAccount(ALICE);
    const b = await createAccount(ALICE, 2);
    const once = mergeBundles(b.contents, a.contents);
    expect(mergeBundles(once, a.contents)).toEqual(once);
    expect(mergeBundles(a.contents, a.contents)).toEqual(a.contents);
    const key = await aesKey(randomBytes(32));
    const sealed = await sealBundle(once, key, ALICE, 3);
    expect(await openBundle(sealed, key, ALICE, 3)).toEqual(once);
  });
});
