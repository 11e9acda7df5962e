import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount, openBundle, sealBundle } from '@app/e2ee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySecret } from '../auth/passwords.ts';
import { AccountStore } from '../storage/accounts/account-store.ts';
import { insertKeys } from '../storage/accounts/key-store.ts';
import { migrate, openDb } from '../storage/db.ts';
import { deriveKeys, TEST_KDF } from '../test/accounts.ts';
import { captureOutput } from '../test/cli-output.ts';
import { RESET_LOCKS_HISTORY, runAdmin } from './admin.ts';

let dir: string;
/** KDF_COST 10: the CLI derives `auth` with the server's parameters, cheaply here. */
const env = () => ({ DATA_DIR: dir, ADMIN_EMAIL: 'boss@example.com', KDF_COST: '10' });
/** The first line of each command: the database it is about to touch. */
const using = () => `Using the SQLite database ${path.join(dir, 'parley.sqlite')}.`;

const capture = captureOutput;

async function withStore<T>(f: (s: AccountStore) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl: null, dataDir: dir });
  try {
    await migrate(db);
    return await f(new AccountStore(db));
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
    expect(no.lines).toEqual([using(), account, admin, 'ASK Verify Boss@Example.com? [y/N] ', 'Nothing changed.']);
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

  /** The account's stored credentials, and whether `password` is the one they were derived from. */
  async function credentialsOf(userId: string) {
    const row = await withStore((s) =>
      s.db
        .selectFrom('users')
        .select(['password_hash', 'kdf', 'kdf_salt', 'email_login', 'auth_version'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow(),
    );
    return {
      ...row,
      async opens(password: string) {
        if (!row.kdf || !row.kdf_salt) return verifySecret(row.password_hash, password);
        const { auth } = await deriveKeys(password, row.kdf_salt, JSON.parse(row.kdf));
        return verifySecret(row.password_hash, auth);
      },
      /** Whether `password` signs in with the e-mail address's own credential. */
      async opensByEmail(password: string) {
        const email = JSON.parse(row.email_login ?? 'null') as { salt: string; authHash: string } | null;
        if (!email || !row.kdf) return false;
        return verifySecret(email.authHash, (await deriveKeys(password, email.salt, JSON.parse(row.kdf))).auth);
      },
    };
  }

  it('says a reset locks the history and asks first; no answer, no terminal: nothing changes', async () => {
    const user = await withStore((s) => s.userByEmail('boss@example.com'));
    const before = await credentialsOf(user?.id as string);
    const account = 'Account @boss (The Boss), e-mail Boss@Example.com.';
    const no = capture('n');
    expect(await runAdmin(['reset-password', 'boss@example.com', '--password', 'not-this-one'], env(), no.out)).toBe(1);
    expect(no.lines).toEqual([
      using(),
      account,
      RESET_LOCKS_HISTORY,
      'ASK Reset the password of Boss@Example.com? [y/N] ',
      'Nothing changed.',
    ]);
    const script = capture();
    expect(await runAdmin(['reset-password', 'boss@example.com'], env(), script.out)).toBe(1);
    expect(script.lines).toEqual([
      using(),
      account,
      RESET_LOCKS_HISTORY,
      'ERR Nothing changed: run it in a terminal to confirm, or add --yes.',
    ]);
    expect(await credentialsOf(user?.id as string)).toMatchObject({
      password_hash: before.password_hash,
      kdf: before.kdf,
      kdf_salt: before.kdf_salt,
    });
  });

  it('resets a password (given or generated) and ends every session; the keys stay sealed by the old one, archived', async () => {
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
    const userId = user?.id as string;
    // An account from before end-to-end encryption (a hash of the password, no KDF).
    expect(await credentialsOf(userId)).toMatchObject({ kdf: null, kdf_salt: null, auth_version: 0 });
    const given = capture();
    const args = ['reset-password', 'boss@example.com', '--password', 'brand-new-pw', '--yes'];
    expect(await runAdmin(args, env(), given.out)).toBe(0);
    expect(given.lines).toEqual([
      using(),
      'Account @boss (The Boss), e-mail Boss@Example.com.',
      RESET_LOCKS_HISTORY,
      'New password set for Boss@Example.com (@boss); 1 session(s) ended.',
    ]);
    // Derived as a browser would, with this server's parameters; the password is not stored.
    const after = await credentialsOf(userId);
    expect(after).toMatchObject({ auth_version: 1, kdf_salt: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
    expect(JSON.parse(after.kdf as string)).toEqual(TEST_KDF);
    expect(after.password_hash).toMatch(/^\$argon2id\$/);
    expect(await after.opens('brand-new-pw')).toBe(true);
    expect(await verifySecret(after.password_hash, 'brand-new-pw')).toBe(false);
    expect(await after.opens('another-pw')).toBe(false);
    // The e-mail address gets its own salt too.
    expect(await after.opensByEmail('brand-new-pw')).toBe(true);
    expect(await after.opensByEmail('another-pw')).toBe(false);

    // The account gets keys under that password (as its browser would at sign-in).
    const { wrapKey } = await deriveKeys('brand-new-pw', after.kdf_salt as string, TEST_KDF);
    const { contents, publicKeys } = await createAccount(userId);
    const { userId: _, ...pub } = publicKeys;
    const bundle = await sealBundle(contents, wrapKey, userId, 1);
    await withStore((s) => insertKeys(s.db, userId, { ...pub, bundle }, Date.now()));

    const generated = capture('y');
    expect(await runAdmin(['reset-password', 'boss@example.com'], env(), generated.out)).toBe(0);
    expect(generated.lines.slice(0, 4)).toEqual([
      using(),
      'Account @boss (The Boss), e-mail Boss@Example.com.',
      RESET_LOCKS_HISTORY,
      'ASK Reset the password of Boss@Example.com? [y/N] ',
    ]);
    const pw = generated.lines.at(-1)?.replace('Password: ', '') ?? '';
    expect(pw.length).toBeGreaterThanOrEqual(16);
    const again = await credentialsOf(userId);
    expect(await again.opens(pw)).toBe(true);
    expect(await again.opens('brand-new-pw')).toBe(false);
    expect(again.kdf_salt).not.toBe(after.kdf_salt);

    // The bundle stays sealed by the old password: stale, and archived with that password's salt.
    const keys = await withStore(async (s) => ({
      row: await s.db.selectFrom('user_keys').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow(),
      archive: await s.db.selectFrom('user_key_archive').selectAll().where('user_id', '=', userId).execute(),
    }));
    expect(keys.row).toMatchObject({ bundle, bundle_version: 1, bundle_stale: 1 });
    expect(keys.archive).toEqual([
      expect.objectContaining({ bundle, bundle_version: 1, id_version: 1, kdf_salt: after.kdf_salt }),
    ]);
    const old = await deriveKeys(
      'brand-new-pw',
      keys.archive[0]?.kdf_salt as string,
      JSON.parse(keys.archive[0]?.kdf as string),
    );
    expect(await openBundle(keys.archive[0]?.bundle as string, old.wrapKey, userId, 1)).toEqual(contents);
  });

  it('a reset sets the password and leaves the address as it was (it proves nothing of the mailbox)', async () => {
    await withStore((s) =>
      s.createUser({
        username: 'pat',
        name: 'Pat',
        email: 'pat@example.com',
        phone: '5551234567',
        age: 30,
        passwordHash: 'x',
        now: 2,
      }),
    );
    const c = capture();
    const args = ['reset-password', 'pat@example.com', '--password', 'pats-new-pw', '--yes'];
    expect(await runAdmin(args, env(), c.out)).toBe(0);
    expect((await withStore((s) => s.userByEmail('pat@example.com')))?.emailVerified).toBe(false);
  });

  it('reads .env from its working directory as the server does, and names the database first; makes nothing where there is none', () => {
    const main = path.join(import.meta.dirname, 'admin-main.ts');
    const { DATA_DIR: _d, DATABASE_URL: _u, DATABASE_SCHEMA: _s, ...clean } = process.env;
    const withEnvFile = mkdtempSync(path.join(tmpdir(), 'parley-admin-cwd-'));
    writeFileSync(path.join(withEnvFile, '.env'), `DATA_DIR=${dir}\nADMIN_EMAIL=boss@example.com\n`);
    const r = spawnSync(process.execPath, [main, 'verify-email', 'nobody@example.com'], {
      cwd: withEnvFile,
      env: clean,
      encoding: 'utf8',
    });
    expect(r.stdout).toContain(using());
    expect(r.stderr).toContain('No account has the e-mail address nobody@example.com.');
    expect(existsSync(path.join(withEnvFile, 'data'))).toBe(false);
    // No .env and no DATA_DIR: ./data holds nothing, and a backup says so without making it.
    const bare = mkdtempSync(path.join(tmpdir(), 'parley-admin-cwd-'));
    const b = spawnSync(process.execPath, [main, 'backup', 'x.tar.gz'], { cwd: bare, env: clean, encoding: 'utf8' });
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/No database at .*parley\.sqlite/);
    expect(existsSync(path.join(bare, 'data'))).toBe(false);
    for (const d of [withEnvFile, bare]) rmSync(d, { recursive: true, force: true });
  });

  it('refuses unknown accounts, bad input and unknown commands with a clear message', async () => {
    const c = capture();
    expect(await runAdmin(['verify-email', 'nobody@example.com'], env(), c.out)).toBe(1);
    expect(await runAdmin(['verify-email', 'not-an-email'], env(), c.out)).toBe(2);
    expect(await runAdmin(['reset-password', 'boss@example.com', '--password', '123'], env(), c.out)).toBe(2);
    expect(await runAdmin(['drop-everything'], env(), c.out)).toBe(2);
    expect(await runAdmin([], env(), c.out)).toBe(2);
    expect(c.lines[1]).toBe('ERR No account has the e-mail address nobody@example.com.');
    // The usage errors come before any database is touched (or named).
    expect(c.lines[3]).toBe('ERR Password must be at least 6 characters');
    expect(c.lines.some((l) => l.startsWith('ERR Unknown command "drop-everything"'))).toBe(true);
  });
});
