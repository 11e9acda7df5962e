/**
 * AccountData against a server kept in memory: a tab's updates go one after another (none
 * loses a compare-and-set to its own tab), and the rollback floor is the highest version any
 * tab of the browser has seen.
 */
import type { AccountDataContents } from '@app/e2ee';
import type { AccountDataResponse } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_DATA_ROLLED_BACK, AccountData, type AccountDataHttp, type Seen, type SeenStore } from './account-data';

function server() {
  let stored: AccountDataResponse = { data: null, version: 0 };
  const history: AccountDataResponse[] = [];
  const http: AccountDataHttp = {
    get: async () => stored,
    put: async (data, version) => {
      await new Promise((r) => setTimeout(r, 1));
      if (version !== stored.version + 1) return false;
      history.push(stored);
      stored = { data, version };
      return true;
    },
  };
  const rollBack = () => {
    stored = history.at(-1) ?? stored;
  };
  return { http, rollBack, now: () => stored };
}

function browser(): SeenStore {
  const m = new Map<string, Seen>();
  return { get: (id) => m.get(id) ?? null, set: (id, s) => void m.set(id, s) };
}

const withPeer = (id: string) => (c: AccountDataContents) => ({
  ...c,
  peers: { ...c.peers, [id]: { iks: [{ ik: `ik-${id}`, seen: 1 }] } },
});

describe('AccountData', async () => {
  const adk = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const key = { adk, adkId: 'adk-1' };

  it('runs a tab’s updates one after another: ten at once all land', async () => {
    const s = server();
    const data = new AccountData('u1', async () => key, s.http, browser());
    await Promise.all(Array.from({ length: 10 }, (_, i) => data.update(withPeer(`p${i}`))));
    expect(s.now().version).toBe(10);
    expect(Object.keys((await data.read()).peers).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
  });

  it('refuses an older version than any tab of this browser has seen', async () => {
    const s = server();
    const shared = browser();
    const a = new AccountData('u1', async () => key, s.http, shared);
    const b = new AccountData('u1', async () => key, s.http, shared);
    await a.update(withPeer('x'));
    // Tab b reads version 1; tab a then writes version 2; the server goes back to 1.
    expect(Object.keys((await b.read()).peers)).toEqual(['x']);
    await a.update(withPeer('y'));
    s.rollBack();
    expect(s.now().version).toBe(1);
    // Told of version 2 (the log), tab b reads again: the browser has seen 2, so 1 is refused.
    b.refresh(2);
    await expect
      .poll(() =>
        b.read().then(
          () => 'read',
          (e: Error) => e.message,
        ),
      )
      .toBe(ACCOUNT_DATA_ROLLED_BACK);
    await expect(new AccountData('u1', async () => key, s.http, shared).read()).rejects.toThrow(
      ACCOUNT_DATA_ROLLED_BACK,
    );
    expect(shared.get('u1')).toEqual({ version: 2, adkId: 'adk-1' });
  });
});
