/**
 * Backups that run by themselves (issue 32), on SQLite and on PostgreSQL when
 * TEST_DATABASE_URL is set: `backup --dir --verify --upload --keep` with BACKUP_AGE_RECIPIENTS
 * verifies the backup in a scratch database (dropped after), encrypts it so that the `age`
 * command and `verify-backup --identity` open it, puts it in an S3-speaking server's bucket,
 * and only then prunes the older ones, here and in the bucket; a backup that does not restore
 * whole is refused by `verify-backup`; bad arguments change nothing.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ClientOf } from '../attachments/s3-blob-store.ts';
import { captureOutput } from '../test/cli-output.ts';
import { ENGINES } from '../test/harness.ts';
import { type ImportEnv, importEnv } from '../test/import-env.ts';
import { connectedPerson } from '../test/people.ts';
import { startS3, type TestS3 } from '../test/s3.ts';
import { runAdmin } from './admin.ts';

const temps: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'parley-bkv-'));
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

const hasAge = spawnSync('age', ['--version']).status === 0;
const BLOB = 'b'.repeat(22);

async function admin(args: string[], env: Record<string, string>) {
  const c = captureOutput();
  const code = await runAdmin(args, env, c.out);
  return { code, out: c.lines.join('\n') };
}

describe.each(ENGINES)('backups that run by themselves, on $name', ({ url }) => {
  let e: ImportEnv;
  let s3: TestS3;
  let env: Record<string, string>;
  let keyFile: string;
  beforeAll(async () => {
    e = await importEnv(url, 'bkv');
    s3 = await startS3('backups', 'nightly/');
    const key = await generateIdentity();
    keyFile = path.join(tempDir(), 'key.txt');
    writeFileSync(keyFile, `# created: now\n# public key: ${await identityToRecipient(key)}\n${key}\n`);
    const s = s3.settings;
    env = {
      ...e.env,
      BACKUP_AGE_RECIPIENTS: await identityToRecipient(key),
      BACKUP_S3_BUCKET: s.bucket,
      BACKUP_S3_URL: s.url ?? '',
      BACKUP_S3_PREFIX: s.prefix,
      BACKUP_S3_ACCESS_KEY_ID: s.credentials?.accessKeyId ?? '',
      BACKUP_S3_SECRET_ACCESS_KEY: s.credentials?.secretAccessKey ?? '',
    };
    const [a, b] = [await connectedPerson(e.t), await connectedPerson(e.t)];
    await a.ws.sendMessage(b.user.id, 'kept in the backup');
    // A complete attachment and its blob (sealed bytes, as far as the server knows).
    writeFileSync(path.join(e.t.dataDir, 'attachments', BLOB), Buffer.alloc(3000, 7));
    await e.t.server.ctx.store.db
      .insertInto('attachments')
      .values({ id: BLOB, owner_id: a.user.id, size: 3000, created_at: 1, complete: 1, chat_id: null, msg_id: null })
      .execute();
  });
  afterAll(async () => {
    await s3?.close();
    await e?.close();
  });

  it('verifies, encrypts, uploads, then keeps the newest N here and in the bucket', async () => {
    const dir = tempDir();
    const bucket = s3ClientOf(s3.settings);
    for (const name of ['parley-20200101-000000Z.tar.gz', 'parley-20200102-000000Z.tar.gz.age', 'notes.txt']) {
      writeFileSync(path.join(dir, name), 'old');
      await bucket.send(new PutObjectCommand({ Bucket: 'backups', Key: `nightly/${name}`, Body: 'old' }));
    }
    const r = await admin(['backup', '--dir', dir, '--verify', '--upload', '--keep', '2'], env);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/Verifying .*: restored into (a temporary copy|the scratch schema parley_verify_)/);
    expect(r.out).toMatch(/All \d+ checks passed/);
    expect(r.out).toMatch(/Verified: 2 accounts, 1 messages, 1 of 1 attachments/);
    expect(r.out).toMatch(/Encrypted to 1 age recipient\(s\)/);
    const made = readdirSync(dir).find(
      (n) => /^parley-\d{8}-\d{6}Z\.tar\.gz\.age$/.test(n) && !n.startsWith('parley-2020'),
    );
    expect(made).toBeDefined();
    expect(r.out).toContain(`Uploaded to s3://backups/nightly/${made}.`);
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'parley-20200102-000000Z.tar.gz.age', made].sort());
    const listed = await bucket.send(new ListObjectsV2Command({ Bucket: 'backups', Prefix: 'nightly/' }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual(
      ['nightly/notes.txt', 'nightly/parley-20200102-000000Z.tar.gz.age', `nightly/${made}`].sort(),
    );
    const file = path.join(dir, made as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // Opened by the age command (where installed), and by verify-backup with the key.
    if (hasAge) {
      const opened = spawnSync('age', ['-d', '-i', keyFile, file]);
      expect(opened.status, String(opened.stderr)).toBe(0);
      expect([...opened.stdout.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    } else console.warn('age is not installed: the age command does not open the backup here');
    const noKey = await admin(['verify-backup', file], env);
    expect(noKey).toMatchObject({ code: 1 });
    expect(noKey.out).toMatch(/is encrypted \(age\): give the key that opens it, --identity KEYFILE/);
    const otherKey = path.join(tempDir(), 'other.txt');
    writeFileSync(otherKey, `${await generateIdentity()}\n`);
    expect((await admin(['verify-backup', file, '--identity', otherKey], env)).code).toBe(1);
    const verified = await admin(['verify-backup', file, '--identity', keyFile], env);
    expect(verified.code, verified.out).toBe(0);
    expect(verified.out).toMatch(/Verified: 2 accounts, 1 messages/);
    // Restore refuses it without the key too, and touches nothing.
    expect((await admin(['restore', file], env)).out).toMatch(/is encrypted \(age\)/);
    if (url) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const left = await c.query(
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'parley_verify_%'",
      );
      await c.end();
      expect(left.rows).toEqual([]);
    }
  });

  it('a backup that does not verify is set aside, and the older ones are kept', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'parley-20200101-000000Z.tar.gz'), 'old');
    const db = e.t.server.ctx.store.db;
    const u = await db.selectFrom('users').select(['id', 'update_seq']).executeTakeFirstOrThrow();
    const planted = {
      user_id: u.id,
      seq: Number(u.update_seq) + 50,
      kind: 'chatRemoved',
      payload: '{}',
      created_at: 1,
    };
    await db.insertInto('user_updates').values(planted).execute();
    try {
      const { BACKUP_AGE_RECIPIENTS: _, ...plainEnv } = env;
      const r = await admin(['backup', '--dir', dir, '--verify', '--keep', '1'], plainEnv);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(/The backup did not verify: kept as .*\.failed; older ones are kept/);
      const names = readdirSync(dir).sort();
      expect(names[0]).toBe('parley-20200101-000000Z.tar.gz');
      expect(names[1]).toMatch(/^parley-\d{8}-\d{6}Z\.tar\.gz\.failed$/);
      expect(names).toHaveLength(2);
    } finally {
      await db.deleteFrom('user_updates').where('user_id', '=', u.id).where('seq', '=', planted.seq).execute();
    }
  });

  it('verify-backup refuses a backup that does not restore whole', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'plain.tar.gz');
    const { BACKUP_AGE_RECIPIENTS: _, ...plainEnv } = env;
    expect((await admin(['backup', file], plainEnv)).code).toBe(0);
    const unpacked = path.join(dir, 'x');
    mkdirSync(unpacked);
    await tar.x({ file, cwd: unpacked });
    // The attachment's blob cut short, and (SQLite) an update-log entry beyond its seq.
    truncateSync(path.join(unpacked, 'attachments', BLOB), 10);
    if (!url) {
      const db = new SQLite(path.join(unpacked, 'parley.sqlite'));
      db.prepare(
        "INSERT INTO user_updates (user_id, seq, kind, payload, created_at) SELECT id, update_seq + 9, 'chatRemoved', '{}', 1 FROM users LIMIT 1",
      ).run();
      db.close();
    }
    const broken = path.join(dir, 'broken.tar.gz');
    await tar.c({ file: broken, cwd: unpacked, gzip: true }, readdirSync(unpacked));
    const r = await admin(['verify-backup', broken], env);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/1 attachment\(s\) in the backup have another size than recorded/);
    if (!url) expect(r.out).toMatch(/update log entries beyond their user’s sequence number: 1/);
    expect(r.out).toMatch(/NOT verified/);
  });
});

it('refuses arguments it cannot act on, and changes nothing', async () => {
  const e = await importEnv('', 'bkvargs');
  try {
    const dir = tempDir();
    for (const args of [
      ['backup'],
      ['backup', 'a.tar.gz', '--dir', dir],
      ['backup', '--dir', dir, '--keep', '0'],
      ['backup', 'a.tar.gz', '--keep', '3'],
      ['backup', '--dir', dir, '--encrypt-to', 'not-a-key'],
      ['backup', '--dir', dir, '--bogus'],
      ['verify-backup'],
      ['restore', 'x.tar.gz', '--identity'],
    ]) {
      expect((await admin(args, e.env)).code, args.join(' ')).toBe(2);
    }
    const upload = await admin(['backup', '--dir', dir, '--upload'], e.env);
    expect(upload).toMatchObject({ code: 1 });
    expect(upload.out).toMatch(/--upload needs BACKUP_S3_BUCKET/);
    expect(readdirSync(dir)).toEqual([]);
    // Where there is no deployment, nothing is made: not even the folder.
    const nowhere = path.join(tempDir(), 'never-made');
    const none = await admin(['backup', '--dir', nowhere], { DATA_DIR: tempDir() });
    expect(none.code).toBe(1);
    expect(none.out).toMatch(/No database at /);
    expect(existsSync(nowhere)).toBe(false);
    const bad = await admin(['backup', '--dir', dir], { ...e.env, BACKUP_AGE_RECIPIENTS: 'age1NOTAKEY' });
    expect(bad.code).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  } finally {
    await e.close();
  }
});
