import { describe, expect, it } from 'vitest';
import { MemoryLimits } from '../security/limits.ts';
import { WritePace } from './write-pace.ts';

describe('WritePace', () => {
  it('lets a burst through, then one message per interval', async () => {
    const pace = new WritePace(new MemoryLimits(), 10, 5, 1);
    const now = 1_000_000;
    const burst = [];
    for (let i = 0; i < 7; i++) burst.push(await pace.take('u', now));
    expect(burst).toEqual([true, true, true, true, true, false, false]);
    expect(await pace.take('u', now + 100)).toBe(true);
    expect(await pace.take('u', now + 100)).toBe(false);
    expect(await pace.take('other', now)).toBe(true);
  });

  it('with leases, spends leased slots without asking the store, and never more than the store granted', async () => {
    const store = new MemoryLimits();
    let asked = 0;
    const counting = Object.assign(Object.create(store) as MemoryLimits, {
      pace: (...args: Parameters<MemoryLimits['pace']>) => {
        asked += 1;
        return store.pace(...args);
      },
    });
    // Two processes sharing one store, leasing 4 slots at a time: 10 in a burst between them.
    const a = new WritePace(counting, 10, 10, 4);
    const b = new WritePace(counting, 10, 10, 4);
    const now = 2_000_000;
    let granted = 0;
    for (let i = 0; i < 20; i++) if (await (i % 2 ? a : b).take('u', now)) granted += 1;
    expect(granted).toBe(10);
    expect(asked).toBeLessThan(20);
    // A lease runs out after a second: its unused slots are not spent later.
    expect(await a.take('u', now + 5000)).toBe(true);
  });

  it('writes arriving together (a user’s sockets at once) share one lease: the whole burst, no more', async () => {
    const store = new MemoryLimits();
    let asked = 0;
    const counting = Object.assign(Object.create(store) as MemoryLimits, {
      pace: (...args: Parameters<MemoryLimits['pace']>) => {
        asked += 1;
        return store.pace(...args);
      },
    });
    const a = new WritePace(counting, 10, 10, 8);
    const now = 3_000_000;
    const taken = await Promise.all(Array.from({ length: 30 }, () => a.take('u', now)));
    expect(taken.filter(Boolean)).toHaveLength(10);
    expect(asked).toBeLessThan(30);
    expect(await a.take('u', now + 100)).toBe(true);
  });
});
