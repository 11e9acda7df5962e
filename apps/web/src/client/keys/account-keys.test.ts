import type { BundleContents } from '@app/e2ee';
import type { ArchivedBundle, IdentityWire } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { coveredBy } from './account-keys';

const pair = (x: string) => ({ d: `${x}-private`, x });
const contents = (ik: string, past: string[] = []): BundleContents => ({
  v: 1,
  ik: pair(ik),
  uks: [{ ...pair(`uk-${ik}`), epoch: 1 }],
  adk: 'adk',
  ...(past.length ? { past } : {}),
});
const archived = (bundleVersion: number, idVersion: number): ArchivedBundle => ({
  bundleVersion,
  idVersion,
  bundle: 'sealed',
  kdf: { alg: 'scrypt', N: 1024, r: 8, p: 1 },
  salt: 'salt',
});
const identities = (...iks: string[]): IdentityWire[] => iks.map((ik, i) => ({ ik, idVersion: i + 1, since: i }));

describe('which archived bundles a copy of the keys covers', () => {
  it('an archive of generation g is covered by a copy holding every identity up to g', () => {
    const list = identities('I1', 'I2', 'I3');
    const archive = [archived(1, 1), archived(4, 2)];
    expect(coveredBy(archive, contents('I2', ['I1']), list)).toEqual([1, 4]);
    expect(coveredBy(archive, contents('I1'), list)).toEqual([1]);
  });

  it("a copy of the archive's own identity that lacks keys merged into it later does not cover it", () => {
    // I2's bundle took in I1's keys (an unlock) before the reset that archived it; this copy of I2 predates that.
    expect(coveredBy([archived(5, 2)], contents('I2'), identities('I1', 'I2', 'I3'))).toEqual([]);
  });

  it('an archive whose generation is not listed (sealed before identities were kept) is never covered', () => {
    expect(coveredBy([archived(1, 1)], contents('I2', ['I1']), [{ ik: 'I2', idVersion: 2, since: 0 }])).toEqual([]);
  });
});
