import { describe, expect, it } from 'vitest';
import { addEncryptionEpoch, createAccount, importAccount, verifyPublicKeys } from './account-keys.ts';
import { openBundle, recoveryWrapKey, sealBundle } from './bundle.ts';
import { fromBase64Url, randomBytes, toBase64Url } from './bytes.ts';
import { E2EEAuthError } from './errors.ts';
import { deriveMaster, splitMaster } from './kdf.ts';
import { ALICE, BOB } from './test/people.ts';

const FAST = { alg: 'scrypt', N: 1024, r: 8, p: 1 } as const;

async function passwordKeys(password: string, salt = new Uint8Array(16)) {
  return splitMaster(await deriveMaster(password, salt, FAST));
}

describe('password keys and the key bundle', () => {
  it('splits one password into an auth value and a wrap key; another password or salt gives others', async () => {
    const a = await passwordKeys('correct horse');
    expect(fromBase64Url(a.auth)).toHaveLength(32);
    expect((await passwordKeys('correct horse')).auth).toBe(a.auth);
    expect((await passwordKeys('correct horsf')).auth).not.toBe(a.auth);
    expect((await passwordKeys('correct horse', new Uint8Array(16).fill(1))).auth).not.toBe(a.auth);
    expect(a.wrapKey.extractable).toBe(false);
  });

  it('treats composed and decomposed accents as the same password', async () => {
    expect((await passwordKeys('caf\u00e9')).auth).toBe((await passwordKeys('cafe\u0301')).auth);
  });

  it('seals a new account under the wrap key, and a second browser opens it to the same keys', async () => {
    const { contents, publicKeys } = await createAccount(ALICE);
    expect(await verifyPublicKeys(publicKeys)).toBe(true);
    const { wrapKey } = await passwordKeys('pw-123456');
    const sealed = await sealBundle(contents, wrapKey, ALICE, 1);
    const opened = await openBundle(sealed, (await passwordKeys('pw-123456')).wrapKey, ALICE, 1);
    expect(opened).toEqual(contents);
    const keys = await importAccount(opened, ALICE);
    expect(keys.ikPublic).toBe(publicKeys.ik);
    expect(keys.ikPrivate.extractable).toBe(false);
  });

  it('does not open with another password, for another user, at another version, or changed', async () => {
    const { contents } = await createAccount(ALICE);
    const { wrapKey } = await passwordKeys('pw-123456');
    const sealed = await sealBundle(contents, wrapKey, ALICE, 2);
    const other = (await passwordKeys('pw-654321')).wrapKey;
    await expect(openBundle(sealed, other, ALICE, 2)).rejects.toBeInstanceOf(E2EEAuthError);
    await expect(openBundle(sealed, wrapKey, BOB, 2)).rejects.toBeInstanceOf(E2EEAuthError);
    await expect(openBundle(sealed, wrapKey, ALICE, 1)).rejects.toBeInstanceOf(E2EEAuthError);
    const data = fromBase64Url(sealed);
    for (const at of [0, 1, 13, data.length - 1]) {
      const bad = data.slice();
      bad[at] = (bad[at] as number) ^ 0x10;
      await expect(openBundle(toBase64Url(bad), wrapKey, ALICE, 2)).rejects.toBeInstanceOf(E2EEAuthError);
    }
  });

  it('re-seals the same keys under a new password (a password change keeps the history)', async () => {
    const { contents } = await createAccount(ALICE);
    const before = await passwordKeys('old-password');
    const opened = await openBundle(await sealBundle(contents, before.wrapKey, ALICE, 1), before.wrapKey, ALICE, 1);
    const after = await passwordKeys('new-password');
    const resealed = await sealBundle(opened, after.wrapKey, ALICE, 2);
    expect(await openBundle(resealed, after.wrapKey, ALICE, 2)).toEqual(contents);
  });

  it('opens under a recovery key too', async () => {
    const { contents } = await createAccount(ALICE);
    const recovery = randomBytes(16);
    const sealed = await sealBundle(contents, await recoveryWrapKey(recovery), ALICE, 1);
    expect(await openBundle(sealed, await recoveryWrapKey(recovery), ALICE, 1)).toEqual(contents);
  });

  it('a new encryption epoch keeps the old private keys and is certified by the same identity', async () => {
    const first = await createAccount(ALICE);
    const second = await addEncryptionEpoch(first.contents, ALICE);
    expect(second.publicKeys.ukEpoch).toBe(2);
    expect(second.publicKeys.ik).toBe(first.publicKeys.ik);
    expect(await verifyPublicKeys(second.publicKeys)).toBe(true);
    expect(await verifyPublicKeys({ ...second.publicKeys, ukEpoch: 1 })).toBe(false);
    const keys = await importAccount(second.contents, ALICE);
    expect([...keys.ukPrivate.keys()]).toEqual([1, 2]);
    expect(keys.ukEpoch).toBe(2);
  });
});
