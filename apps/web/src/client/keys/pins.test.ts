import type { IdentityWire } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { pinIdentities } from './pins';

const listed = (...iks: string[]): IdentityWire[] =>
  iks.map((ik, i) => ({ ik, idVersion: i + 1, since: 100 * (i + 1) }));
const iksOf = (r: { record: { iks: { ik: string }[] } }) => r.record.iks.map((i) => i.ik);

describe('identity pins', () => {
  it('trusts every listed identity at first sight, at the times listed, and saves them', () => {
    const r = pinIdentities(listed('ik1', 'ik2'), 'ik2', undefined, 5000);
    expect(r).toMatchObject({ kind: 'trusted', changed: true });
    expect([...r.trusted]).toEqual(['ik1', 'ik2']);
    expect(r.record.iks).toEqual([
      { ik: 'ik1', seen: 100 },
      { ik: 'ik2', seen: 200 },
    ]);
  });

  it('pins a new current identity at the moment it is seen here, not at the time the server names', () => {
    const stored = { iks: [{ ik: 'ik1', seen: 100 }], verified: 'ik1' };
    const r = pinIdentities(listed('ik1', 'ik2'), 'ik2', stored, 5000);
    expect(r).toMatchObject({ kind: 'trusted', changed: true });
    expect(r.record).toEqual({
      iks: [
        { ik: 'ik1', seen: 100 },
        { ik: 'ik2', seen: 5000 },
      ],
      verified: 'ik1',
    });
    expect(pinIdentities(listed('ik1', 'ik2'), 'ik2', r.record, 6000)).toMatchObject({
      kind: 'trusted',
      changed: false,
    });
  });

  it('never trusts an earlier identity that appears after first sight', () => {
    const r = pinIdentities(
      listed('ik1', 'forged', 'ik2'),
      'ik2',
      {
        iks: [
          { ik: 'ik1', seen: 1 },
          { ik: 'ik2', seen: 2 },
        ],
      },
      9,
    );
    expect(r.trusted.has('forged')).toBe(false);
    expect(r).toMatchObject({ kind: 'trusted', changed: false });
  });

  it('refuses a return to an older pinned identity', () => {
    const stored = {
      iks: [
        { ik: 'ik1', seen: 1 },
        { ik: 'ik2', seen: 2 },
      ],
    };
    const r = pinIdentities(listed('ik1'), 'ik1', stored, 9);
    expect(r.kind).toBe('older');
    expect(iksOf(r)).toEqual(['ik1', 'ik2']);
  });
});
