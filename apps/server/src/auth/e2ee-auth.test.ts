/**
 * The password never reaches the server (docs/e2ee.md), against a real
 * server: prelogin hands out the account's salt (and a steady made-up one for a login
 * nobody has), sign-in and every confirmation take `auth`, the server keeps argon2id of
 * it and never the password, a legacy account upgrades once, keys are compare-and-set,
 * a reset leaves the keys sealed by the old password (archived, stale) until a browser
 * re-seals them, and weak KDF parameters are refused. Runs on SQLite, and on PostgreSQL
 * too when TEST_DATABASE_URL is set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createAccount, openBundle, sealBundle } from '@app/e2ee';
import { API, MSG, type OwnKeys, preloginResponseSchema } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../config.ts';
import {
  type AccountSecrets,
  authOf,
  changePasswordBody,
  credentialsFor,
  deriveKeys,
  legacyAccount as makeLegacy,
  ownKeysOf,
  randomAuth,
  resetPasswordBody,
  resetToken as resetTokenOf,
  signInBody,
  TEST_KDF,
} from '../test/accounts.ts';
import {
  ENGINES,
  expectError,
  LOOSE_LIMITS,
  newUserInput,
  signInWith,
  signUp,
  signUpBody,
  startEngineServer,
  type TestClient,
  useTestServer,
} from '../test/harness.ts';
import { hashSecret, verifySecret } from './passwords.ts';

const INVALID = { error: 'invalid_credentials', message: MSG.invalidCredentials };
const TOO_WEAK = 'The password was derived with parameters too weak for this server';
const B64URL = /^[A-Za-z0-9_-]+$/;

/** An account's first keys as a browser makes them, sealed under `wrapKey` (version 1). */
async function newKeys(userId: string, wrapKey: AccountSecrets['wrapKey']) {
  const { contents, publicKeys } = await createAccount(userId);
  const { userId: _, ...pub } = publicKeys;
  return { contents, keys: { ...pub, bundle: await sealBundle(contents, wrapKey, userId, 1) } };
}

describe.each(ENGINES)('on $name', ({ url }) => {
  const t = useTestServer({ engine: url, tag: 'e2ee', config: { rateLimits: LOOSE_LIMITS } });
  const prelogin = (login: string, c: TestClient = t.client()) => c.post(API.prelogin, { login });

  async function userRow(id: string) {
    return t.server.ctx.store.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function archiveOf(userId: string) {
    return t.server.ctx.store.db
      .selectFrom('user_key_archive')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('bundle_version')
      .execute();
  }

  const resetToken = (email: string) => resetTokenOf(t, email);

  /** An account from before end-to-end encryption: argon2id of the password itself, no KDF, no keys. */
  function legacyAccount(password: string) {
    const { password: _, ...input } = newUserInput();
    return makeLegacy(t.server.ctx.store, password, input);
  }

  describe('prelogin', () => {
    it("returns the account's salt and KDF for its username (any case) and @username, and the e-mail's own salt for its e-mail (any case)", async () => {
      const { client, input } = await signUp(t);
      const own = await ownKeysOf(client);
      expect(own.kdf).toEqual(TEST_KDF);
      const email = (await prelogin(input.email)).body as { salt: string };
      // Its own salt: knowing an address and a handle, nobody can tell they are one account.
      expect(email.salt).not.toBe(own.salt);
      for (const [login, salt] of [
        [input.email, email.salt],
        [input.email.toUpperCase(), email.salt],
        [`  ${input.email} `, email.salt],
        [input.username, own.salt],
        [input.username.toUpperCase(), own.salt],
        [`@${input.username}`, own.salt],
      ] as [string, string][]) {
        const res = await prelogin(login);
        expect(res.status, login).toBe(200);
        expect(res.body, login).toEqual({ kdf: TEST_KDF, salt });
        expect(preloginResponseSchema.safeParse(res.body).success).toBe(true);
      }
    });

    it('gives an unknown login a made-up salt: the same on every call, its own per login, shaped like a real one', async () => {
      const { client } = await signUp(t);
      const real = (await prelogin((await client.get(API.session)).body.user.email)).body;
      const ghost = `ghost_${Date.now().toString(36)}`;
      const a1 = await prelogin(`${ghost}@example.com`);
      const a2 = await prelogin(`${ghost}@example.com`);
      const a3 = await prelogin(` ${ghost.toUpperCase()}@EXAMPLE.COM `);
      const b = await prelogin(`${ghost}_b@example.com`);
      const handle = await prelogin(ghost);
      const atHandle = await prelogin(`@${ghost}`);
      for (const res of [a1, a2, a3, b, handle, atHandle]) {
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(Object.keys(real).sort());
        expect(res.body.kdf).toEqual(real.kdf);
        expect(res.body.salt).toMatch(B64URL);
        expect(res.body.salt).toHaveLength(real.salt.length);
        expect(preloginResponseSchema.safeParse(res.body).success).toBe(true);
      }
      expect(a2.body).toEqual(a1.body);
      expect(a3.body).toEqual(a1.body);
      expect(atHandle.body).toEqual(handle.body);
      const salts = new Set([a1.body.salt, b.body.salt, handle.body.salt, real.salt]);
      expect(salts.size).toBe(4);
      // Signing in with it gets the same answer as a wrong password.
      expect((await signInWith(t.client(), `${ghost}@example.com`, 'secret123')).body).toEqual(INVALID);
    });

    it('counts the accounts of each KDF setting, which made-up answers pick from', async () => {
      // Accounts made while the server derived with 2^11 (its KDF_COST since lowered, or raised for new ones).
      for (let i = 0; i < 3; i++) {
        const input = newUserInput();
        const { password, ...fields } = input;
        const { credentials, wrapKey } = await credentialsFor(password, { ...TEST_KDF, N: 2 ** 11 });
        const c = t.client();
        const res = await c.post(API.signUp, { ...fields, credentials });
        expect(res.status).toBe(201);
        const { contents, publicKeys } = await createAccount(res.body.user.id);
        const { userId: _, ...pub } = publicKeys;
        await c.request('PUT', API.keys, {
          bundle: await sealBundle(contents, wrapKey, res.body.user.id, 1),
          bundleVersion: 1,
          keys: pub,
        });
      }
      const mix = await t.server.ctx.keys.kdfMix();
      const count = (n: number) => mix.find((m) => m.kdf.N === n)?.accounts ?? 0;
      expect(count(2 ** 11)).toBe(3);
      expect(count(2 ** 10)).toBeGreaterThan(0);
      // (How a made-up answer picks from the mix: credentials.test.ts.)
    });

    it('refuses malformed bodies and is rate-limited per address', async () => {
      for (const body of [{}, { login: '' }, { login: '   ' }, { login: 42 }, { login: 'x'.repeat(255) }]) {
        expectError(await t.client().post(API.prelogin, body), 400, 'invalid_input');
      }
      expectError(
        await t.client().post(API.prelogin, { login: 'a', extra: 1 }),
        400,
        'invalid_input',
        'Unknown field: extra',
      );
      // Text no database can look up is refused, not looked up (PostgreSQL fails on a NUL: a 500).
      for (const login of ['a\u0000b', 'a\u0000b@example.com', 'x\uD800y@example.com']) {
        expectError(await t.client().post(API.prelogin, { login }), 400, 'invalid_input');
      }
      const s = await startEngineServer(url, 'e2eepre', {
        config: { rateLimits: { ...DEFAULT_RATE_LIMITS, signInPerIp: 2 } },
      });
      try {
        for (let i = 0; i < 4; i++) expect((await s.client().post(API.prelogin, { login: `p${i}` })).status).toBe(200);
        expectError(await s.client().post(API.prelogin, { login: 'p4' }), 429, 'rate_limited');
      } finally {
        await s.close();
      }
    });
  });

  describe('credentials', () => {
    it('the server stores argon2id of `auth`, never the password nor `auth` itself', async () => {
      const password = `never-stored-${Date.now().toString(36)}`;
      const { client, user, input } = await signUp(t, { password });
      const own = await ownKeysOf(client);
      const { auth } = await deriveKeys(password, own.salt, own.kdf);
      const row = await userRow(user.id);
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(row).toMatchObject({ auth_version: 1, kdf_salt: own.salt });
      expect(JSON.parse(row.kdf as string)).toEqual(TEST_KDF);
      expect(await verifySecret(row.password_hash, auth)).toBe(true);
      expect(await verifySecret(row.password_hash, password)).toBe(false);
      const everything = JSON.stringify([
        row,
        await t.server.ctx.store.db.selectFrom('user_keys').selectAll().execute(),
      ]);
      expect(everything).not.toContain(password);
      expect(everything).not.toContain(auth);
      if (!url) {
        // Nor anywhere in the SQLite files (the WAL included).
        const files = readdirSync(t.dataDir).filter((f) => f.startsWith('parley.sqlite'));
        expect(files).toContain('parley.sqlite');
        const raw = Buffer.concat(files.map((f) => readFileSync(path.join(t.dataDir, f))));
        expect(raw.includes(input.email)).toBe(true); // the files are the right ones
        expect(raw.includes(password)).toBe(false);
        expect(raw.includes(auth)).toBe(false);
      }
    });

    it('signs in with `auth`; the password itself, as `auth` or `password`, is refused', async () => {
      const { input, user, secrets } = await signUp(t);
      const c = t.client();
      const ok = await signInWith(c, input.email, input.password);
      expect(ok.status).toBe(200);
      expect(ok.body.user.id).toBe(user.id);
      // The bundle it hands back opens with the wrap key only the password gives.
      const keys = ok.body.keys as OwnKeys;
      const { wrapKey } = await deriveKeys(input.password, keys.salt, keys.kdf);
      expect(await openBundle(keys.bundle, wrapKey, user.id, keys.bundleVersion)).toEqual(secrets.contents);

      const plain = await t.client().post(API.signIn, { login: input.email, password: input.password });
      expect(plain.status).toBe(401);
      expect(plain.body).toEqual(INVALID);
      expect(plain.headers.getSetCookie().some((h) => h.startsWith('sid='))).toBe(false);
      const asAuth = await t.client().post(API.signIn, { login: input.email, auth: input.password });
      expectError(asAuth, 400, 'invalid_input', MSG.invalidCredentials);
      const both = await t
        .client()
        .post(API.signIn, { login: input.email, password: input.password, auth: randomAuth() });
      expect(both.body).toEqual(INVALID);
    });

    it('refuses KDF parameters below the schema’s floor, and below the server’s (KDF_COST=12)', async () => {
      const { body } = await signUpBody(newUserInput());
      const c = body.credentials;
      for (const kdf of [
        { ...c.kdf, N: 2 ** 9 },
        { ...c.kdf, N: 1 },
        { ...c.kdf, r: 0 },
        { ...c.kdf, p: 0 },
      ]) {
        expectError(await t.client().post(API.signUp, { ...body, credentials: { ...c, kdf } }), 400, 'invalid_input');
      }
      const before = await t.server.ctx.store.countUsers();
      const weak = await credentialsFor('secret123', { ...TEST_KDF, r: 1 });
      expectError(
        await t.client().post(API.signUp, { ...body, credentials: weak.credentials }),
        400,
        'invalid_input',
        TOO_WEAK,
      );
      expect(await t.server.ctx.store.countUsers()).toBe(before);

      const strong = await startEngineServer(url, 'e2eekdf', {
        env: { KDF_COST: '12' },
        config: { rateLimits: LOOSE_LIMITS },
      });
      try {
        const kdf = { alg: 'scrypt', N: 2 ** 12, r: 8, p: 1 };
        expect((await strong.client().get(API.publicSettings)).body.kdf).toEqual(kdf);
        expect((await strong.client().post(API.prelogin, { login: 'nobody@example.com' })).body.kdf).toEqual(kdf);
        // N = 2^10 is valid on the wire but too cheap here: sign-up, change and reset refuse it.
        const input = newUserInput();
        const cheap = await signUpBody(input);
        expectError(await strong.client().post(API.signUp, cheap.body), 400, 'invalid_input', TOO_WEAK);
        expect(await strong.server.ctx.store.countUsers()).toBe(0);
        const { password, ...fields } = input;
        const good = await credentialsFor(password, kdf as typeof TEST_KDF);
        const client = strong.client();
        const created = await client.post(API.signUp, { ...fields, credentials: good.credentials });
        expect(created.status).toBe(201);
        const userId = created.body.user.id as string;
        const { contents, keys } = await newKeys(userId, good.wrapKey);
        const { bundle, ...pub } = keys;
        expect((await client.request('PUT', API.keys, { bundle, bundleVersion: 1, keys: pub })).status).toBe(200);
        const change = await changePasswordBody(client, userId, contents, password, 'another-pw');
        expectError(await client.post(API.changePassword, change.body), 400, 'invalid_input', TOO_WEAK);
        const token = (await strong.client().post(API.forgotPassword, { email: input.email })).status;
        expect(token).toBe(204);
        const mail = await strong.mailTo(input.email, /Reset/);
        const resetToken = new URL(
          mail.links.find((l) => l.includes('/reset-password?token=')) as string,
        ).searchParams.get('token');
        expectError(
          await strong.client().post(API.resetPassword, await resetPasswordBody(resetToken, 'another-pw')),
          400,
          'invalid_input',
          TOO_WEAK,
        );
        // Nothing changed, and the link still works with strong enough credentials.
        expect((await signInWith(strong.client(), input.email, password)).status).toBe(200);
        const reset = {
          token: resetToken,
          credentials: (await credentialsFor('another-pw', kdf as typeof TEST_KDF)).credentials,
        };
        expect((await strong.client().post(API.resetPassword, reset)).status).toBe(204);
        expect((await signInWith(strong.client(), input.email, 'another-pw')).status).toBe(200);

        // An account whose password was derived before the cost went up still signs in with it.
        const older = newUserInput();
        const olderCreds = await credentialsFor(older.password);
        await strong.server.ctx.store.createUser({
          username: older.username,
          name: older.name,
          email: older.email,
          phone: older.phone,
          age: older.age,
          passwordHash: await hashSecret(olderCreds.credentials.auth),
          e2ee: { kdf: TEST_KDF, salt: olderCreds.credentials.salt },
          now: Date.now(),
        });
        expect((await strong.client().post(API.prelogin, { login: older.email })).body).toEqual({
          kdf: TEST_KDF,
          salt: olderCreds.credentials.salt,
        });
        expect((await signInWith(strong.client(), older.email, older.password)).status).toBe(200);
      } finally {
        await strong.close();
      }
    });
  });

  describe('a legacy account (from before end-to-end encryption)', () => {
    it('prelogin says legacy; it signs in once with its password, upgrades, and from then on only `auth` works', async () => {
      const password = 'legacy-pw-1';
      const { user, input } = await legacyAccount(password);
      for (const login of [input.email, input.username, `@${input.username}`]) {
        expect((await prelogin(login)).body, login).toEqual({ kdf: { alg: 'legacy' } });
      }
      // `auth` means nothing to it; the password, only the right one.
      expect((await t.client().post(API.signIn, { login: input.email, auth: randomAuth() })).body).toEqual(INVALID);
      expect((await t.client().post(API.signIn, { login: input.email, password: 'wrong-pw' })).body).toEqual(INVALID);
      const c = t.client();
      const body = await signInBody(c, input.email, password);
      expect(body).toEqual({ login: input.email, password });
      const signedIn = await c.post(API.signIn, body);
      expect(signedIn.status).toBe(200);
      expect(signedIn.body).toMatchObject({ user: { id: user.id }, keys: null });
      expect((await c.get(API.keys)).body).toEqual({ keys: null });
      // Keys come with the upgrade, not with PUT.
      const first = await credentialsFor(password);
      const made = await newKeys(user.id, first.wrapKey);
      const { bundle, ...pub } = made.keys;
      expectError(await c.request('PUT', API.keys, { bundle, bundleVersion: 1, keys: pub }), 409, 'conflict');

      const upgrade = { password, credentials: first.credentials, keys: made.keys };
      expectError(await c.post(API.upgradeAuth, { ...upgrade, password: 'wrong-pw' }), 403, 'wrong_password');
      const weak = await credentialsFor(password, { ...TEST_KDF, r: 2 });
      expectError(
        await c.post(API.upgradeAuth, { ...upgrade, credentials: weak.credentials }),
        400,
        'invalid_input',
        TOO_WEAK,
      );
      expectError(await t.client().post(API.upgradeAuth, upgrade), 401, 'unauthenticated');
      expect((await prelogin(input.email)).body).toEqual({ kdf: { alg: 'legacy' } });

      const up = await c.post(API.upgradeAuth, upgrade);
      expect(up.status, JSON.stringify(up.body)).toBe(200);
      expect(up.body.keys).toMatchObject({
        publicKeys: { userId: user.id, ...pub },
        bundle,
        bundleVersion: 1,
        idVersion: 1,
        stale: false,
        kdf: TEST_KDF,
        salt: first.credentials.salt,
      });
      // Once only.
      expectError(await c.post(API.upgradeAuth, upgrade), 409, 'conflict');
      expect((await c.get(API.session)).body.user.id).toBe(user.id);

      expect((await prelogin(input.username)).body).toEqual({ kdf: TEST_KDF, salt: first.credentials.salt });
      expect((await prelogin(input.email)).body).toEqual({ kdf: TEST_KDF, salt: first.credentials.email.salt });
      const row = await userRow(user.id);
      expect(row.auth_version).toBe(1);
      expect(await verifySecret(row.password_hash, password)).toBe(false);
      expect(await verifySecret(row.password_hash, first.credentials.auth)).toBe(true);
      expect((await t.client().post(API.signIn, { login: input.email, password })).body).toEqual(INVALID);
      const again = await signInWith(t.client(), input.email, password);
      expect(again.status).toBe(200);
      const { wrapKey } = await deriveKeys(password, again.body.keys.salt, again.body.keys.kdf);
      expect(await openBundle(again.body.keys.bundle, wrapKey, user.id, 1)).toEqual(made.contents);
    });

    it('an account with `auth` cannot upgrade', async () => {
      const { client, user, input } = await signUp(t);
      const c = await credentialsFor(input.password);
      const { keys } = await newKeys(user.id, c.wrapKey);
      const res = await client.post(API.upgradeAuth, { password: input.password, credentials: c.credentials, keys });
      expectError(res, 409, 'conflict');
      expect((await signInWith(t.client(), input.email, input.password)).status).toBe(200);
    });
  });

  describe('PUT /api/me/keys', () => {
    it('is compare-and-set on the bundle version', async () => {
      const { client, user, secrets } = await signUp(t);
      const before = await ownKeysOf(client);
      expect(before).toMatchObject({ bundleVersion: 1, idVersion: 1, stale: false });
      // First keys again: the account has them already.
      const other = await newKeys(user.id, secrets.wrapKey);
      const { bundle: otherBundle, ...otherPub } = other.keys;
      expectError(
        await client.request('PUT', API.keys, { bundle: otherBundle, bundleVersion: 1, keys: otherPub }),
        409,
        'conflict',
      );
      // A version that skips one; one beyond what a version can be (the column's range) is malformed.
      const skipping = await sealBundle(secrets.contents, secrets.wrapKey, user.id, 3);
      expectError(await client.request('PUT', API.keys, { bundle: skipping, bundleVersion: 3 }), 409, 'conflict');
      for (const bundleVersion of [2 ** 31, Number.MAX_SAFE_INTEGER, 2.5]) {
        expectError(await client.request('PUT', API.keys, { bundle: skipping, bundleVersion }), 400, 'invalid_input');
      }
      expect(await ownKeysOf(client)).toEqual(before);

      const next = await sealBundle(secrets.contents, secrets.wrapKey, user.id, 2);
      const put = await client.request('PUT', API.keys, { bundle: next, bundleVersion: 2 });
      expect(put.status).toBe(200);
      expect(put.body.keys).toEqual({ ...before, bundle: next, bundleVersion: 2 });
      // The same version a second time: it moved on.
      expectError(await client.request('PUT', API.keys, { bundle: next, bundleVersion: 2 }), 409, 'conflict');
      expect(await ownKeysOf(client)).toEqual(put.body.keys);
      // A new identity whose key epoch is not past the current one (epoch numbers name one key each).
      const third = await sealBundle(other.contents, secrets.wrapKey, user.id, 3);
      for (const ukEpoch of [1, 0]) {
        expectError(
          await client.request('PUT', API.keys, { bundle: third, bundleVersion: 3, keys: { ...otherPub, ukEpoch } }),
          400,
          'invalid_input',
        );
      }
      expect(await ownKeysOf(client)).toEqual(put.body.keys);

      for (const bad of [
        {},
        { bundle: next },
        { bundle: next, bundleVersion: 0 },
        { bundle: 'too short', bundleVersion: 3 },
        { bundle: next, bundleVersion: 3, keys: { ...otherPub, ik: 'x' } },
        { bundle: next, bundleVersion: 3, userId: user.id },
      ]) {
        expectError(await client.request('PUT', API.keys, bad), 400, 'invalid_input');
      }
      expectError(
        await t.client().request('PUT', API.keys, { bundle: next, bundleVersion: 3 }),
        401,
        'unauthenticated',
      );
      expectError(await t.client().get(API.keys), 401, 'unauthenticated');
    });

    it('an account without keys gets its first ones only with `keys`, at version 1', async () => {
      const input = newUserInput();
      const { body, wrapKey } = await signUpBody(input);
      const client = t.client();
      const created = await client.post(API.signUp, body);
      expect(created.body.keys).toBeNull();
      const userId = created.body.user.id as string;
      expect((await client.get(API.keys)).body).toEqual({ keys: null });
      expect((await signInWith(t.client(), input.email, input.password)).body.keys).toBeNull();
      const { keys } = await newKeys(userId, wrapKey);
      const { bundle, ...pub } = keys;
      expectError(await client.request('PUT', API.keys, { bundle, bundleVersion: 1 }), 409, 'conflict');
      expectError(await client.request('PUT', API.keys, { bundle, bundleVersion: 2, keys: pub }), 409, 'conflict');
      const put = await client.request('PUT', API.keys, { bundle, bundleVersion: 1, keys: pub });
      expect(put.status).toBe(200);
      expect(put.body.keys).toMatchObject({ publicKeys: { userId, ...pub }, bundle, bundleVersion: 1, stale: false });
    });
  });

  describe('a reset by e-mail', () => {
    it('archives the bundle under the old salt and marks it stale; a re-seal clears that; the old password still opens the archive', async () => {
      const { client, user, input, secrets } = await signUp(t);
      const before = await ownKeysOf(client);
      const token = await resetToken(input.email);
      const reset = await resetPasswordBody(token, 'after-reset-1');
      expect((await t.client().post(API.resetPassword, reset)).status).toBe(204);

      const archived = await archiveOf(user.id);
      expect(archived).toEqual([
        expect.objectContaining({
          user_id: user.id,
          bundle_version: 1,
          id_version: 1,
          bundle: before.bundle,
          kdf_salt: before.salt,
        }),
      ]);
      expect(JSON.parse(archived[0]?.kdf as string)).toEqual(before.kdf);
      // The archived bundle opens with the old password, not the new one.
      const old = await deriveKeys(input.password, before.salt, before.kdf);
      expect(await openBundle(before.bundle, old.wrapKey, user.id, 1)).toEqual(secrets.contents);

      const c = t.client();
      const signedIn = await signInWith(c, input.email, 'after-reset-1');
      expect(signedIn.status).toBe(200);
      const stale = signedIn.body.keys as OwnKeys;
      expect(stale).toEqual({ ...before, stale: true, salt: reset.credentials.salt, kdf: reset.credentials.kdf });
      const fresh = await deriveKeys('after-reset-1', stale.salt, stale.kdf);
      await expect(openBundle(stale.bundle, fresh.wrapKey, user.id, 1)).rejects.toThrow();

      // A browser that still holds the keys re-seals them under the new password.
      const resealed = await sealBundle(secrets.contents, fresh.wrapKey, user.id, 2);
      const put = await c.request('PUT', API.keys, { bundle: resealed, bundleVersion: 2 });
      expect(put.status).toBe(200);
      expect(put.body.keys).toEqual({ ...stale, bundle: resealed, bundleVersion: 2, stale: false });
      const later = await signInWith(t.client(), input.email, 'after-reset-1');
      expect(later.body.keys.stale).toBe(false);
      expect(await openBundle(later.body.keys.bundle, fresh.wrapKey, user.id, 2)).toEqual(secrets.contents);
      // The archive stays until a browser that opened it (or holds every key it had) says so (`merged`).
      expect(await archiveOf(user.id)).toHaveLength(1);

      // A second reset archives the re-sealed bundle too, under the salt it was sealed with.
      const second = await resetPasswordBody(await resetToken(input.email), 'after-reset-2');
      expect((await t.client().post(API.resetPassword, second)).status).toBe(204);
      expect((await archiveOf(user.id)).map((r) => [r.bundle_version, r.bundle, r.kdf_salt])).toEqual([
        [1, before.bundle, before.salt],
        [2, resealed, reset.credentials.salt],
      ]);
    });

    it('a browser with nothing to re-seal starts a new identity; the old bundle stays archived', async () => {
      const { user, input } = await signUp(t);
      const token = await resetToken(input.email);
      const reset = await resetPasswordBody(token, 'after-reset-3');
      expect((await t.client().post(API.resetPassword, reset)).status).toBe(204);
      // A reset does not stack archives: a second one before any re-seal adds nothing.
      const again = await resetPasswordBody(await resetToken(input.email), 'after-reset-4');
      expect((await t.client().post(API.resetPassword, again)).status).toBe(204);
      expect(await archiveOf(user.id)).toHaveLength(1);

      const c = t.client();
      const stale = (await signInWith(c, input.email, 'after-reset-4')).body.keys as OwnKeys;
      expect(stale.stale).toBe(true);
      const { wrapKey } = await deriveKeys('after-reset-4', stale.salt, stale.kdf);
      const { contents, publicKeys } = await createAccount(user.id, stale.publicKeys.ukEpoch + 1);
      const { userId: _, ...pub } = publicKeys;
      const bundle = await sealBundle(contents, wrapKey, user.id, 2);
      const put = await c.request('PUT', API.keys, { bundle, bundleVersion: 2, keys: pub });
      expect(put.status).toBe(200);
      expect(put.body.keys).toMatchObject({
        publicKeys: { userId: user.id, ...pub },
        bundle,
        bundleVersion: 2,
        idVersion: 2,
        stale: false,
      });
      expect(await archiveOf(user.id)).toHaveLength(1);
    });
  });

  describe('change password', () => {
    it('with a bundle version that moved on: 409, and nothing changes', async () => {
      const { client, user, input, secrets } = await signUp(t);
      const before = await ownKeysOf(client);
      const skipping = await changePasswordBody(client, user.id, secrets.contents, input.password, 'changed-pw', {
        bundleVersion: 3,
      });
      expectError(await client.post(API.changePassword, skipping.body), 409, 'conflict');
      for (const bundleVersion of [1, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
        const body = { ...skipping.body, bundleVersion };
        expectError(await client.post(API.changePassword, body), 400, 'invalid_input');
      }
      // A re-seal elsewhere moved it on: a change made against version 1 is refused.
      const stale = await changePasswordBody(client, user.id, secrets.contents, input.password, 'changed-pw');
      const moved = await sealBundle(secrets.contents, secrets.wrapKey, user.id, 2);
      expect((await client.request('PUT', API.keys, { bundle: moved, bundleVersion: 2 })).status).toBe(200);
      expectError(await client.post(API.changePassword, stale.body), 409, 'conflict');

      expect((await client.get(API.session)).body.user.id).toBe(user.id);
      expect(await ownKeysOf(client)).toEqual({ ...before, bundle: moved, bundleVersion: 2 });
      expect((await signInWith(t.client(), input.email, input.password)).status).toBe(200);
      expect((await signInWith(t.client(), input.email, 'changed-pw')).status).toBe(401);
    });
  });

  describe('account deletion', () => {
    it('removes the keys and the archived bundles', async () => {
      const { user, input } = await signUp(t);
      const keep = await signUp(t);
      const reset = await resetPasswordBody(await resetToken(input.email), 'before-delete');
      expect((await t.client().post(API.resetPassword, reset)).status).toBe(204);
      const otherReset = await resetPasswordBody(await resetToken(keep.input.email), 'kept-pw');
      expect((await t.client().post(API.resetPassword, otherReset)).status).toBe(204);
      const db = t.server.ctx.store.db;
      const rows = async (id: string) => [
        (await db.selectFrom('user_keys').select('user_id').where('user_id', '=', id).execute()).length,
        (await archiveOf(id)).length,
      ];
      expect(await rows(user.id)).toEqual([1, 1]);

      const c = t.client();
      expect((await signInWith(c, input.email, 'before-delete')).status).toBe(200);
      expect((await c.del('/api/account', { auth: await authOf(c, 'before-delete') })).status).toBe(204);
      expect(await rows(user.id)).toEqual([0, 0]);
      // Another account's are untouched.
      expect(await rows(keep.user.id)).toEqual([1, 1]);
      expect((await prelogin(input.email)).body.kdf).toEqual(TEST_KDF);
    });
  });
});
