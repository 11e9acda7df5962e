import { describe, expect, it } from 'vitest';
import { createAccount } from './account-keys.ts';
import { openBundle, recoveryWrapKey, sealBundle } from './bundle.ts';
import { newRecoveryKey, parseRecoveryKey } from './recovery-key.ts';
import { ALICE } from './test/people.ts';

describe('recovery keys', () => {
  it('are 7 groups of 4 base32 characters that parse back, however they are typed', async () => {
    for (let n = 0; n < 50; n++) {
      const { key, text } = await newRecoveryKey();
      expect(text).toMatch(/^([A-Z2-7]{4}-){6}[A-Z2-7]{4}$/);
      expect(await parseRecoveryKey(text)).toEqual(key);
      expect(await parseRecoveryKey(` ${text.toLowerCase().replace(/-/g, ' ')} `)).toEqual(key);
    }
  });

  it('a mistyped key is not a key: any character changed, one missing, one too many', async () => {
    const { text } = await newRecoveryKey();
    const plain = text.replace(/-/g, '');
    let refused = 0;
    for (let i = 0; i < plain.length; i++) {
      const c = plain[i] === 'A' ? 'B' : 'A';
      if ((await parseRecoveryKey(plain.slice(0, i) + c + plain.slice(i + 1))) === null) refused++;
    }
    // A one-byte check misses one change in 256 on average; the last character carries padding bits only in part.
    expect(refused).toBeGreaterThanOrEqual(plain.length - 2);
    expect(await parseRecoveryKey(plain.slice(1))).toBeNull();
    expect(await parseRecoveryKey(`${plain}A`)).toBeNull();
    expect(await parseRecoveryKey('')).toBeNull();
  });

  it('seals and opens a bundle under the key it names', async () => {
    const { contents } = await createAccount(ALICE);
    const { key, text } = await newRecoveryKey();
    const sealed = await sealBundle(contents, await recoveryWrapKey(key), ALICE, 1);
    const typed = await parseRecoveryKey(text);
    expect(typed && (await openBundle(sealed, await recoveryWrapKey(typed), ALICE, 1))).toEqual(contents);
    const other = await newRecoveryKey();
    await expect(openBundle(sealed, await recoveryWrapKey(other.key), ALICE, 1)).rejects.toThrow();
  });
});
