import { describe, expect, it } from 'vitest';
import { followsOn } from './backlog.ts';

const rows = (...seqs: number[]) => seqs.map((seq) => ({ seq }));

describe('followsOn', () => {
  it('takes the rows after the position, up to the seq read first', () => {
    expect(followsOn(4, 6, rows(5, 6))).toBe(true);
  });

  it('takes rows committed after the seq was read (another process wrote meanwhile)', () => {
    expect(followsOn(4, 6, rows(5, 6, 7, 8))).toBe(true);
  });

  it('refuses a log pruned past the position, a gap inside, or fewer rows than the seq says', () => {
    expect(followsOn(4, 6, rows(6))).toBe(false);
    expect(followsOn(4, 8, rows(5, 6, 8))).toBe(false);
    expect(followsOn(4, 6, rows(5))).toBe(false);
    expect(followsOn(4, 6, [])).toBe(false);
  });
});
