import { describe, expect, it } from 'vitest';
import { createAccount } from './account-keys.ts';
import { openBundle, sealBundle } from './bundle.ts';
import { fromBase64Url, toBase64Url } from './bytes.ts';
import { EMAIL_WRAP_LENGTH, type KdfParams, newCredentials, openEmailWrap, passwordKeys } from './kdf.ts';

const FAST: KdfParams = { alg: 'scrypt', N: 2 ** 10, r: 8, p: 1 };
const USER = 'u_alice';

describe("the e-mail address's own credential", () => {
  it('has a salt and `auth` of its own, and its wrap gives back the handle’s `auth` and wrap key', async () => {
    const c = await newCredentials('correct horse', FAST);
    expect(c.email.salt).not.toBe(c.salt);
    expect(c.email.auth).not.toBe(c.auth);
    expect(c.email.wrap).toHaveLength(EMAIL_WRAP_LENGTH);
    const { contents } = await createAccount(USER, 1, { at: 1, legacy: false, tombstones: 1 });
    const bundle = await sealBundle(contents, c.wrapKey, USER, 1);

    const byEmail = await passwordKeys('correct horse', c.email.salt, FAST);
    expect(byEmail.auth).toBe(c.email.auth);
    const handle = await openEmailWrap(byEmail, c.email.wrap);
    expect(handle.auth).toBe(c.auth);
    expect(await openBundle(bundle, handle.wrapKey, USER, 1)).toEqual(contents);
  });

  it('does not open under another password, nor once changed by a single bit', async () => {
    const c = await newCredentials('correct horse', FAST);
    const wrong = await passwordKeys('correct horsf', c.email.salt, FAST);
    await expect(openEmailWrap(wrong, c.email.wrap)).rejects.toThrow();
    const right = await passwordKeys('correct horse', c.email.salt, FAST);
    const bytes = fromBase64Url(c.email.wrap);
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    await expect(openEmailWrap(right, toBase64Url(bytes))).rejects.toThrow();
    // The handle's own keys are not the e-mail's: its wrap key does not open the wrap.
    await expect(openEmailWrap({ auth: c.auth, wrapKey: c.wrapKey }, c.email.wrap)).rejects.toThrow();
  });
});
