/**
 * `npm run admin -- users …`, `broadcast` and `help-link` against a running server, on SQLite
 * and on PostgreSQL (TEST_DATABASE_URL). With TEST_REDIS_URL the server runs with REDIS_URL
 * and the command, given it too, reaches the open sockets at once; without REDIS_URL (always
 * tested) the server is not told: an ended session's writes are refused at once and its
 * sockets close at the heartbeat's session check.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API, CLOSE } from '@app/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { globals, snapshot, waitGlobal } from '../test/admin-support.ts';
import { captureOutput } from '../test/cli-output.ts';
import {
  dropPgSchema,
  ENGINES,
  expectError,
  LOOSE_LIMITS,
  signInWith,
  startTestServer,
  type TestServer,
} from '../test/harness.ts';
import { connectedPerson, signInAgain } from '../test/people.ts';
import { uploadBlob } from '../test/uploads.ts';
import { WsTestClient } from '../test/ws-client.ts';
import { ADMIN_USAGE, runAdmin } from './admin.ts';
import { GLOBAL_WITHOUT_REDIS } from './broadcast-command.ts';
import { describeDatabase } from './config-db.ts';
import { SESSIONS_WITHOUT_REDIS } from './users-actions.ts';
import { USERS_USAGE } from './users-command.ts';

const redisUrl = process.env.TEST_REDIS_URL ?? '';
const NOT_CONFIRMED = 'ERR Nothing changed: run it in a terminal to confirm, or add --yes.';
const viaRedis = () => `(told every server process through Redis at ${new URL(redisUrl).host}).`;

describe.each(ENGINES)('npm run admin -- users, broadcast, help-link on $name', ({ url }) => {
  const id = `cli_${process.pid}_${Date.now().toString(36)}`;
  const pg: Record<string, string> = url ? { DATABASE_URL: url, DATABASE_SCHEMA: `t_${id}` } : {};
  const redis: Record<string, string> = redisUrl ? { REDIS_URL: redisUrl, REDIS_PREFIX: `test_${id}` } : {};
  let t: TestServer;
  let env: Record<string, string>;
  let using: string;
  let n = 0;
  /** A handle and an address nobody has yet. */
  const fresh = (prefix: string) => {
    const handle = `${prefix}_${Date.now().toString(36).slice(-5)}${++n}`;
    return { handle, email: `${handle}@example.com` };
  };

  beforeAll(async () => {
    t = await startTestServer({ env: { ...pg, ...redis }, config: { rateLimits: LOOSE_LIMITS } });
    // The command's settings: the server's database and data, the server's KDF (cheap here).
    env = { DATA_DIR: t.dataDir, ADMIN_EMAIL: 'admin@example.com', KDF_COST: '10', ...pg };
    using = `Using the ${describeDatabase(loadConfig(env, {}, { create: false }))}.`;
  });
  afterAll(async () => {
    await t.close();
    if (url) await dropPgSchema(url, pg.DATABASE_SCHEMA as string);
  });

  /** Runs the command (with REDIS_URL when `live`, answering `answer` when given); its exit code and lines. */
  async function admin(args: string[], opts: { live?: boolean; answer?: string; env?: Record<string, string> } = {}) {
    const c = captureOutput(opts.answer);
    const code = await runAdmin(args, { ...env, ...(opts.live ? redis : {}), ...opts.env }, c.out);
    return { code, lines: c.lines };
  }

  /** Asserts that a write from this socket is refused: the socket closed with `code`, nothing answered. */
  async function writeRefused(ws: WsTestClient, code: number) {
    ws.sendRaw({ t: 'notificationsSeen', id: 'late' });
    await ws.waitClosed();
    expect(ws.closed?.code).toBe(code);
    expect(ws.frames.some((f) => f.t === 'result' && f.id === 'late')).toBe(false);
  }

  const auditOf = async (targetId: string) =>
    (await t.server.ctx.admin.auditLog()).entries.filter((e) => e.targetId === targetId);

  it('creates an account that signs in with the given or the printed password; list and find show it, newest first', async () => {
    const ann = fresh('ann');
    const made = await admin([
      'users',
      'create',
      ann.email,
      ann.handle,
      '--name',
      'Ann Smith',
      '--password',
      'ann-secret-1',
      '--verified-email',
    ]);
    expect(made).toEqual({
      code: 0,
      lines: [
        using,
        `Created @${ann.handle} (Ann Smith), e-mail ${ann.email} (verified).`,
        'It has no keys yet: the browser makes them at the first sign-in with this password.',
      ],
    });
    const signedIn = await signInWith(t.client(), ann.email, 'ann-secret-1');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ user: { username: ann.handle, emailVerified: true }, keys: null });
    expect((await signInWith(t.client(), ann.handle, 'ann-secret-1')).status).toBe(200);
    expectError(await signInWith(t.client(), ann.handle, 'not-the-one'), 401, 'invalid_credentials');
    const user = await t.server.ctx.store.userByEmail(ann.email);
    expect(user).toMatchObject({ authVersion: 1, phone: '', age: 0 });
    expect(user?.passwordHash).not.toContain('ann-secret-1');
    expect(await auditOf(user?.id as string)).toEqual([
      expect.objectContaining({ action: 'shell.verifyEmail', actorId: null }),
    ]);
    // reset-password derives its credentials the same way (shell-credentials.ts).
    expect((await admin(['reset-password', ann.email, '--password', 'ann-secret-2', '--yes'])).code).toBe(0);
    expect((await signInWith(t.client(), ann.email, 'ann-secret-2')).status).toBe(200);

    const bob = fresh('bob');
    const printed = await admin(['users', 'create', bob.email, `@${bob.handle}`, '--phone', '555 123 4567']);
    expect(printed.code).toBe(0);
    expect(printed.lines[1]).toBe(
      `Created @${bob.handle} (${bob.handle}), e-mail ${bob.email} (not verified: the user can have the link sent after signing in).`,
    );
    const password = printed.lines.at(-1)?.replace(/^Password: /, '') ?? '';
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect((await signInWith(t.client(), bob.email, password)).status).toBe(200);

    const list = await admin(['users', 'list', '--limit', '2']);
    expect(list.code).toBe(0);
    expect(list.lines.slice(1, 4)).toEqual([
      expect.stringMatching(/^HANDLE +NAME +E-MAIL +E-MAIL VERIFIED +BADGE +BLOCKED +CREATED +LAST SEEN$/),
      expect.stringMatching(
        new RegExp(
          `^@${bob.handle} +${bob.handle} +${bob.email} +no +no +no +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +\\d{4}-`,
        ),
      ),
      expect.stringMatching(new RegExp(`^@${ann.handle} +Ann Smith +${ann.email} +yes +no +no +\\d{4}-`)),
    ]);
    expect(list.lines.at(-1)).toMatch(/^2 of \d+ accounts, newest first; times in UTC( \(--limit N shows more\))?\.$/);
    const found = await admin(['users', 'find', 'ANN SMITH']);
    expect(found.lines.slice(2)).toEqual([
      expect.stringMatching(new RegExp(`^@${ann.handle} `)),
      '1 of 1 account matching "ANN SMITH", newest first; times in UTC.',
    ]);
    expect((await admin(['users', 'find', 'nobody-has-this'])).lines.at(-1)).toBe(
      'No account matching "nobody-has-this".',
    );
  });

  it('block: sign-in refused, the open sockets closed (at once through Redis, else at the session check, their writes refused meanwhile); unblock', async () => {
    const p = await connectedPerson(t);
    const second = await WsTestClient.connect(t, p.client.cookie);
    const blocked = await admin(['users', 'block', p.input.email, '--yes']);
    expect(blocked.code).toBe(0);
    expect(blocked.lines.slice(0, 2)).toEqual([
      using,
      expect.stringMatching(
        new RegExp(
          `^Account @${p.input.username} \\(Test User\\), e-mail ${p.input.email} \\(not verified\\), created .* UTC; 1 session\\.$`,
        ),
      ),
    ]);
    expect(blocked.lines.slice(-2)).toEqual([
      `Blocked @${p.input.username}; its sessions ended.`,
      `No REDIS_URL: ${SESSIONS_WITHOUT_REDIS}`,
    ]);
    expect((await p.client.get(API.session)).body).toEqual({ user: null });
    // Nobody told the server: the sockets stay open, but can change nothing...
    expect([p.ws.closed, second.closed]).toEqual([null, null]);
    await writeRefused(p.ws, CLOSE.blocked);
    // ...and the heartbeat's session check (every 30 s, as the command says) closes the rest.
    const source = readFileSync(path.join(import.meta.dirname, '../realtime/realtime.ts'), 'utf8');
    expect(source).toContain('const HEARTBEAT_MS = 30_000;');
    await t.server.ctx.realtime.checkSessions();
    await second.waitClosed();
    expect(second.closed?.code).toBe(CLOSE.sessionEnded);
    // (A refused sign-in closes the account's sockets too, as a blocked one tried it.)
    expectError(await signInWith(t.client(), p.input.email, p.input.password), 403, 'blocked');
    expect(await auditOf(p.user.id)).toEqual([
      expect.objectContaining({ action: 'user.block', actorId: null, actorUsername: null, detail: '1 session ended' }),
    ]);
    expect((await admin(['users', 'block', `@${p.input.username}`, '--yes'])).lines.at(-1)).toBe(
      `@${p.input.username} is blocked already.`,
    );

    const unblocked = await admin(['users', 'unblock', p.input.username]);
    expect(unblocked.lines.at(-1)).toBe(`Unblocked @${p.input.username}: it can sign in again.`);
    expect((await signInWith(t.client(), p.input.email, p.input.password)).status).toBe(200);
    expect((await auditOf(p.user.id)).map((e) => e.action)).toEqual(['user.unblock', 'user.block']);
  });

  it.skipIf(!redisUrl)('with REDIS_URL, block closes every open socket at once with CLOSE.blocked', async () => {
    const p = await connectedPerson(t);
    const second = await WsTestClient.connect(t, p.client.cookie);
    const r = await admin(['users', 'block', p.input.username, '--yes'], { live: true });
    expect(r.lines.at(-1)).toBe(`Its open sockets were closed (its tabs show the blocked page) ${viaRedis()}`);
    // Well before any heartbeat: the server acted on the message.
    await Promise.all([p.ws.waitClosed(2000), second.waitClosed(2000)]);
    expect([p.ws.closed?.code, second.closed?.code]).toEqual([CLOSE.blocked, CLOSE.blocked]);
  });

  it('revoke-sessions signs the account out everywhere and closes its sockets', async () => {
    const p = await connectedPerson(t);
    const other = await signInAgain(t, p);
    const live = redisUrl !== '';
    const r = await admin(['users', 'revoke-sessions', `@${p.input.username}`, '--yes'], { live });
    expect(r.code).toBe(0);
    expect(r.lines).toContain(`Ended 2 sessions of @${p.input.username}: it signs in again with its password.`);
    for (const c of [p.client, other]) expect((await c.get(API.session)).body).toEqual({ user: null });
    if (live) await p.ws.waitClosed(2000);
    else await writeRefused(p.ws, CLOSE.sessionEnded);
    expect(p.ws.closed?.code).toBe(CLOSE.sessionEnded);
    expect((await signInWith(t.client(), p.input.email, p.input.password)).status).toBe(200);
    // Redis down: the sessions end all the same, and the command says what the server does then.
    const down = await admin(['users', 'revoke-sessions', p.input.email, '--yes'], {
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(down.code).toBe(0);
    expect(down.lines.slice(-2)).toEqual([
      `Ended 1 session of @${p.input.username}: it signs in again with its password.`,
      `ERR Could not reach Redis at 127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1): ${SESSIONS_WITHOUT_REDIS}`,
    ]);
  });

  it('delete removes the account and the attachments it uploaded, and ends its sockets', async () => {
    const p = await connectedPerson(t);
    const blob = path.join(
      t.config.attachmentDir,
      await uploadBlob(t.url, p.client.cookie as string, new Uint8Array(64)),
    );
    expect(existsSync(blob)).toBe(true);
    const live = redisUrl !== '';
    const r = await admin(['users', 'delete', p.input.email, '--yes'], { live });
    expect(r.code).toBe(0);
    expect(r.lines).toContain(`Deleted @${p.input.username} (${p.input.email}).`);
    expect(await t.server.ctx.store.userById(p.user.id)).toBeNull();
    expect(existsSync(blob)).toBe(false);
    expectError(await signInWith(t.client(), p.input.email, p.input.password), 401, 'invalid_credentials');
    if (live) {
      await p.ws.waitClosed(2000);
      expect(p.ws.closed?.code).toBe(CLOSE.sessionEnded);
    } else await writeRefused(p.ws, CLOSE.sessionEnded);
    expect((await admin(['users', 'find', p.input.username])).lines.at(-1)).toBe(
      `No account matching "${p.input.username}".`,
    );
  });

  it('the administrator: made and verified from the shell, blocked from the shell with a warning', async () => {
    const made = await admin(['users', 'create', 'Admin@Example.com', fresh('boss').handle, '--verified-email']);
    expect(made.lines).toContain('This account is the administrator (ADMIN_EMAIL).');
    const r = await admin(['users', 'block', 'admin@example.com', '--yes']);
    expect(r.code).toBe(0);
    expect(r.lines[2]).toMatch(
      /holds ADMIN_EMAIL, the administrator's address: \/admin refuses to block it, the shell does not\./,
    );
    expect((await admin(['users', 'list', '--blocked', '--limit', '1'])).lines[2]).toMatch(
      /^@boss_\S+ +boss_\S+ +Admin@Example\.com +yes +no +yes /,
    );
    expect((await admin(['users', 'unblock', 'admin@example.com'])).code).toBe(0);
  });

  it('broadcast reaches the open sockets (through Redis) or their next connection, and /notifications; help-link set and cleared', async () => {
    const p = await connectedPerson(t);
    const live = redisUrl !== '';
    const message = `Maintenance at 10:00 UTC ${Date.now()}`;
    const sent = await admin(['broadcast', message, '--image', 'https://example.com/a.png'], { live });
    expect(sent.code).toBe(0);
    expect(sent.lines[1]).toBe(`Sent to every user's notifications (${message.length} characters, an image).`);
    const told = live ? `Every open tab shows it now ${viaRedis()}` : `No REDIS_URL: ${GLOBAL_WITHOUT_REDIS}`;
    expect(sent.lines[2]).toBe(told);
    const isIt = (e: { notification: object }) => 'message' in e.notification && e.notification.message === message;
    if (live) await waitGlobal(p.ws, 'notification', isIt);
    else expect(globals(p.ws, 'notification').filter(isIt)).toEqual([]);
    const ws = live ? p.ws : await WsTestClient.connect(t, p.client.cookie);
    expect((await ws.request('notifications')).items).toContainEqual(
      expect.objectContaining({ type: 'admin', message, imageUrl: 'https://example.com/a.png', videoUrl: null }),
    );
    const [entry] = (await t.server.ctx.admin.auditLog()).entries;
    expect(entry).toMatchObject({
      action: 'broadcast.create',
      actorId: null,
      targetLabel: expect.stringContaining('Maintenance'),
    });

    const link = 'https://help.example.com/faq';
    const set = await admin(['help-link', link], { live });
    expect(set.lines[1]).toBe(`Help link set to ${link}.`);
    expect((await t.client().get(API.publicSettings)).body).toMatchObject({ helpLink: link });
    if (live) await waitGlobal(p.ws, 'settings', (e) => e.helpLink === link);
    expect((await admin(['help-link', link])).lines.at(-1)).toBe(`The help link is ${link} already.`);
    const cleared = await admin(['help-link', '--clear'], { live });
    expect(cleared.lines[1]).toBe("Help link cleared: Settings' Help shows 'Coming Soon'.");
    expect((await t.client().get(API.publicSettings)).body).toMatchObject({ helpLink: null });
    if (live) await waitGlobal(p.ws, 'settings', (e) => e.helpLink === null);
    expect((await t.server.ctx.admin.auditLog()).entries.slice(0, 2)).toEqual([
      expect.objectContaining({ action: 'settings.helpLink', actorId: null, detail: 'cleared' }),
      expect.objectContaining({ action: 'settings.helpLink', actorId: null, detail: link }),
    ]);
    await ws.close();
  });

  it('refuses unknown accounts, bad input, taken handles and addresses, and unconfirmed changes; nothing changes', async () => {
    const p = await connectedPerson(t);
    const before = await snapshot(t, [p.user.id]);
    const cases: [string[], number, string][] = [
      [['users', 'block', '@nobody_here', '--yes'], 1, 'ERR No account has the handle @nobody_here.'],
      [
        ['users', 'delete', 'nobody@example.com', '--yes'],
        1,
        'ERR No account has the e-mail address nobody@example.com.',
      ],
      [['users', 'block', 'bob@', '--yes'], 2, 'ERR "bob@" is not an e-mail address.'],
      [['users', 'create', 'not-an-email', 'someone_new'], 2, 'ERR Invalid email address'],
      [
        ['users', 'create', 'x@example.com', 'a b'],
        2,
        'ERR Username can only contain letters, numbers, and underscores',
      ],
      [
        ['users', 'create', 'x@example.com', 'someone_new', '--password', '123'],
        2,
        'ERR Password must be at least 6 characters',
      ],
      [
        ['users', 'create', 'fresh@example.com', p.input.username.toUpperCase()],
        1,
        `ERR The handle @${p.input.username.toUpperCase()} is taken. Nothing changed.`,
      ],
      [
        ['users', 'create', p.input.email.toUpperCase(), 'someone_new'],
        1,
        `ERR An account already has the e-mail address ${p.input.email.toUpperCase()}. Nothing changed.`,
      ],
      [['broadcast', 'hi', '--image', 'javascript:alert(1)'], 2, 'ERR Image URL must start with http:// or https://'],
      [['broadcast', 'hi', '--video', 'https://example.com/v.mp4'], 2, 'ERR Video URL must be a YouTube or Vimeo link'],
      [['broadcast', '   '], 2, 'ERR Message is required'],
      [['help-link', 'javascript:alert(1)'], 2, 'ERR Help link must start with http:// or https://'],
      [['help-link'], 2, 'ERR Give the link (http or https), or --clear.'],
      [['users', 'block', p.input.email], 1, NOT_CONFIRMED],
      [['users', 'revoke-sessions', p.input.email], 1, NOT_CONFIRMED],
      [['users', 'delete', p.input.email], 1, NOT_CONFIRMED],
      [['users', 'list', '--bogus'], 2, 'ERR Unknown option "--bogus" for users list.'],
      [['users', 'delete', p.input.email, '--force'], 2, 'ERR Unknown option "--force" for users delete.'],
      [['users', 'list', '--limit', '0'], 2, 'ERR --limit takes a number from 1 to 100000 (got "0").'],
      [['broadcast', 'two', 'words'], 2, 'ERR Give the message as one argument, in quotes.'],
      [['users', 'frobnicate'], 2, 'ERR Unknown users command "frobnicate".'],
    ];
    for (const [args, code, line] of cases) {
      const r = await admin(args);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.lines.find((l) => l.startsWith('ERR'))?.split('\n')[0], args.join(' ')).toBe(line);
      // Usage errors come before the database is named (or opened).
      expect(r.lines[0] === using, args.join(' ')).toBe(code === 1);
    }
    const no = await admin(['users', 'delete', p.input.username], { answer: 'n' });
    expect(no.code).toBe(1);
    expect(no.lines.slice(-2)).toEqual([`ASK Delete @${p.input.username} for good? [y/N] `, 'Nothing changed.']);
    expect(await snapshot(t, [p.user.id])).toEqual(before);
    expect(p.ws.closed).toBeNull();
    expect(ADMIN_USAGE).toContain(USERS_USAGE);

    // Where there is no deployment, nothing is made.
    const empty = mkdtempSync(path.join(tmpdir(), 'parley-users-'));
    const c = captureOutput();
    expect(await runAdmin(['users', 'list'], { DATA_DIR: path.join(empty, 'data') }, c.out)).toBe(1);
    expect(c.lines).toEqual([expect.stringMatching(/^ERR No database at .*parley\.sqlite\./)]);
    expect(existsSync(path.join(empty, 'data'))).toBe(false);
    rmSync(empty, { recursive: true, force: true });
  });
});
