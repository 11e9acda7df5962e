import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySecret } from '../auth/passwords.ts';
import { migrate, openDb } from '../storage/db.ts';
import { Store } from '../storage/store.ts';
import { runAdmin } from './admin.ts';

let dir: string;
const env = () => ({ DATA_DIR: dir, ADMIN_EMAIL: 'boss@example.com' });

function capture(answer?: string) {
  const lines: string[] = [];
  return {
    lines,
    out: {
      log: (l: string) => lines.push(l),
      error: (l: string) => lines.push(`ERR ${l}`),
      ...(answer === undefined
        ? {}
        : {
            ask: async (q: string) => {
              lines.push(`ASK ${q}`);
              return answer;
            },
          }),
    },
  };
}

async function withStore<T>(f: (s: Store) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl: null, dataDir: dir });
  try {
    await migrate(db);
    return await f(new Store(db));
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'parley-admin-'));
  await withStore((s) =>
    s.createUser({
      username: 'boss',
      name: 'The Boss',
      email: 'Boss@Example.com',
      phone: '5551234567',
      age: 40,
      passwordHash: 'x',
      now: 1,
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run admin', () => {
  it('shows whose account it is and asks before it verifies; no answer, no terminal: nothing changes', async () => {
    const account = 'Account @boss (The Boss), created 1970-01-01T00:00:00.001Z, e-mail Boss@Example.com.';
    const admin = 'Verifying this address makes @boss the administrator (ADMIN_EMAIL).';
    const no = capture('n');
    expect(await runAdmin(['verify-email', 'boss@example.com'], env(), no.out)).toBe(1);
    expect(no.lines).toEqual([account, admin, 'ASK Verify Boss@Example.com? [y/N] ', 'Nothing changed.']);
    const script = capture();
    expect(await runAdmin(['verify-email', 'boss@example.com'], env(), script.out)).toBe(1);
    expect(script.lines.at(-1)).toBe('ERR Nothing changed: run it in a terminal to confirm, or add --yes.');
    expect((await withStore((s) => s.userByEmail('boss@example.com')))?.emailVerified).toBe(false);
  });

  it('verifies an e-mail address, whatever its case, once confirmed (or with --yes), and says when it is the administrator', async () => {
    const c = capture('y');
    expect(await runAdmin(['verify-email', 'BOSS@example.com'], env(), c.out)).toBe(0);
    expect(c.lines.slice(-2)).toEqual([
      'Verified Boss@Example.com (@boss).',
      'This account is the administrator (ADMIN_EMAIL).',
    ]);
    expect((await withStore((s) => s.userByEmail('boss@example.com')))?.emailVerified).toBe(true);
    const scripted = capture();
    expect(await runAdmin(['verify-email', 'boss@example.com', '--yes'], env(), scripted.out)).toBe(0);
    expect(scripted.lines.at(-2)).toBe('Verified Boss@Example.com (@boss).');
  });

  it('resets a password (given or generated) and ends every session', async () => {
    const user = await withStore(async (s) => {
      const u = await s.userByEmail('boss@example.com');
      const now = Date.now();
      await s.createSession({
        tokenHash: 'h1',
        userId: u?.id as string,
        createdAt: now,
        authAt: now,
        lastUsedAt: now,
        expiresAt: now + 60_000,
        persistent: true,
        userAgent: null,
        ip: null,
      });
      return u;
    });
    const given = capture();
    expect(await runAdmin(['reset-password', 'boss@example.com', '--password', 'brand-new-pw'], env(), given.out)).toBe(
      0,
    );
    expect(given.lines[0]).toBe('New password set for Boss@Example.com (@boss); 1 session(s) ended.');
    const after = await withStore((s) => s.userById(user?.id as string));
    expect(await verifySecret(after?.passwordHash as string, 'brand-new-pw')).toBe(true);

    const generated = capture();
    expect(await runAdmin(['reset-password', 'boss@example.com'], env(), generated.out)).toBe(0);
    const pw = generated.lines[1]?.replace('Password: ', '') ?? '';
    expect(pw.length).toBeGreaterThanOrEqual(16);
    const again = await withStore((s) => s.userById(user?.id as string));
    expect(await verifySecret(again?.passwordHash as string, pw)).toBe(true);
  });

  it('refuses unknown accounts, bad input and unknown commands with a clear message', async () => {
    const c = capture();
    expect(await runAdmin(['verify-email', 'nobody@example.com'], env(), c.out)).toBe(1);
    expect(await runAdmin(['verify-email', 'not-an-email'], env(), c.out)).toBe(2);
    expect(await runAdmin(['reset-password', 'boss@example.com', '--password', '123'], env(), c.out)).toBe(2);
    expect(await runAdmin(['drop-everything'], env(), c.out)).toBe(2);
    expect(await runAdmin([], env(), c.out)).toBe(2);
    expect(c.lines[0]).toBe('ERR No account has the e-mail address nobody@example.com.');
    expect(c.lines[2]).toBe('ERR Password must be at least 6 characters');
    expect(c.lines.some((l) => l.startsWith('ERR Unknown command "drop-everything"'))).toBe(true);
  });
});
