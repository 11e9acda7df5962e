/**
 * Made-up prelogin answers (issue 28, attack 8): for a login no account has, the answer is
 * shaped like a real one, and names a KDF setting real accounts have, in their proportions,
 * so it does not stand out when accounts derive with several (KDF_COST was raised).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type KdfMix, preloginAnswer } from './credentials.ts';

const config = loadConfig({ DATA_DIR: '/tmp/parley-credentials-test', KDF_COST: '12' });
const hmac = (text: string) => createHmac('sha256', 'secret').update(text).digest('base64url');
const kdf = (log2: number) => ({ alg: 'scrypt' as const, N: 2 ** log2, r: 8, p: 1 });

describe('a made-up prelogin answer', () => {
  it('picks a setting of the accounts, in proportion, the same one each time for a login', () => {
    const mix: KdfMix = [
      { kdf: kdf(17), accounts: 300 },
      { kdf: kdf(18), accounts: 100 },
    ];
    const picked = new Map<number, number>();
    for (let i = 0; i < 2000; i++) {
      const answer = preloginAnswer(config, hmac, `nobody${i}`, null, null, true, mix);
      if (!('salt' in answer)) throw new Error('no salt');
      picked.set(answer.kdf.N, (picked.get(answer.kdf.N) ?? 0) + 1);
      expect(preloginAnswer(config, hmac, `NOBODY${i}`, null, null, true, mix)).toEqual(answer);
    }
    expect([...picked.keys()].sort()).toEqual([2 ** 17, 2 ** 18]);
    // 3 to 1, within what chance allows for 2,000 draws.
    expect((picked.get(2 ** 17) ?? 0) / 2000).toBeGreaterThan(0.7);
    expect((picked.get(2 ** 17) ?? 0) / 2000).toBeLessThan(0.8);
  });

  it('names the server’s own setting on a server without accounts, and a salt like a real one', () => {
    const answer = preloginAnswer(config, hmac, 'nobody', null, null, true, []);
    expect(answer).toEqual({ kdf: kdf(12), salt: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
  });
});
