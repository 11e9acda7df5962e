/**
 * LEGACY_PASSWORDS (docs/threat-model.md, "Downgrades"): an account from before end-to-end
 * encryption signs in once with its password itself. `auto` keeps that path open only on a
 * database that holds such accounts when the server starts; `off` closes it. Closed, such an
 * account is answered as no account is, and neither a password sign-in nor an upgrade works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount, sealBundle } from '@app/e2ee';
import { API } from '@app/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { credentialsFor, legacyAccount as makeLegacy } from '../test/accounts.ts';
import { expectError, newUserInput, startTestServer, type TestServer } from '../test/harness.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A data folder of the test's own, which several servers start on one after another. */
function dataFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-legacy-'));
  dirs.push(dir);
  return dir;
}

function start(dataDir: string, mode: string): Promise<TestServer> {
  return startTestServer({ env: { DATA_DIR: dataDir, LEGACY_PASSWORDS: mode } });
}

async function legacyAccount(t: TestServer, password: string) {
  const { password: _, ...input } = newUserInput();
  return makeLegacy(t.server.ctx.store, password, input);
}

describe('LEGACY_PASSWORDS', () => {
  const password = 'legacy-pw-1';

  it('auto, on a database without such accounts at start: one made later is answered as no account, and refused', async () => {
    const t = await start(dataFolder(), 'auto');
    try {
      expect(t.server.ctx.legacyPasswords).toBe(false);
      const { input } = await legacyAccount(t, password);
      const pre = await t.client().post(API.prelogin, { login: input.email });
      expect(pre.status).toBe(200);
      // Shaped like any account's answer (a made-up salt), not `legacy`.
      expect(pre.body).toMatchObject({ kdf: { alg: 'scrypt' }, salt: expect.any(String) });
      expectError(await t.client().post(API.signIn, { login: input.email, password }), 401, 'invalid_credentials');
    } finally {
      await t.close();
    }
  });

  it('auto, with such accounts at start: open; off: closed, also for a session from before', async () => {
    const dir = dataFolder();
    const first = await start(dir, 'auto');
    let login = '';
    let userId = '';
    try {
      expect(first.server.ctx.legacyPasswords).toBe(false);
      const made = await legacyAccount(first, password);
      login = made.input.email;
      userId = made.user.id;
    } finally {
      await first.close();
    }
    let cookie: string | null = null;
    const open = await start(dir, 'auto');
    try {
      expect(open.server.ctx.legacyPasswords).toBe(true);
      expect((await open.client().post(API.prelogin, { login })).body).toEqual({ kdf: { alg: 'legacy' } });
      const c = open.client();
      expect((await c.post(API.signIn, { login, password })).status).toBe(200);
      cookie = c.cookie;
    } finally {
      await open.close();
    }
    const off = await start(dir, 'off');
    try {
      expect(off.server.ctx.legacyPasswords).toBe(false);
      expect((await off.client().post(API.prelogin, { login })).body).toMatchObject({ kdf: { alg: 'scrypt' } });
      expectError(await off.client().post(API.signIn, { login, password }), 401, 'invalid_credentials');
      // Signed in while it was open: the upgrade, which carries the password, is refused too.
      const { credentials, wrapKey } = await credentialsFor(password);
      const { contents, publicKeys } = await createAccount(userId);
      const { userId: _, ...pub } = publicKeys;
      const keys = { ...pub, bundle: await sealBundle(contents, wrapKey, userId, 1) };
      const c = off.client();
      c.cookie = cookie;
      expectError(await c.post(API.upgradeAuth, { password, credentials, keys }), 403, 'forbidden');
    } finally {
      await off.close();
    }
  });
});
