/**
 * Backups that run by themselves, as shipped (issue 32): the systemd timer and service, and
 * compose.yaml's `backup` service. Each runs `backup` with arguments that work: the very
 * command line is run here against a real deployment and leaves a verified backup; the
 * service runs as parley.service's user, beside its state; the timer's calendar is one
 * systemd reads; compose's service sets only settings of the configuration table.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runAdmin } from './cli/admin.ts';
import { CONFIG_OPTIONS } from './config-options.ts';
import { captureOutput } from './test/cli-output.ts';
import { type ImportEnv, importEnv } from './test/import-env.ts';
import { connectedPerson } from './test/people.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');
const ADMIN_MAIN = 'apps/server/src/cli/admin-main.ts';
const SYSTEMD_ANALYZE = spawnSync('systemd-analyze', ['--version']).error ? null : 'systemd-analyze';

let e: ImportEnv;
const temps: string[] = [];
beforeAll(async () => {
  e = await importEnv('', 'bkfiles');
  const [a, b] = [await connectedPerson(e.t), await connectedPerson(e.t)];
  await a.ws.sendMessage(b.user.id, 'in a nightly backup');
});
afterAll(async () => {
  await e?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** Runs `backup …` as the file has it, its --dir pointed at a scratch folder; what it left there. */
async function runAsShipped(args: string[]): Promise<string[]> {
  expect(args[0]).toBe('backup');
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-nightly-'));
  temps.push(dir);
  const i = args.indexOf('--dir');
  expect(i).toBeGreaterThan(0);
  const local = [...args.slice(0, i + 1), dir, ...args.slice(i + 2)];
  const c = captureOutput();
  const code = await runAdmin(local, e.env, c.out);
  expect(code, c.lines.join('\n')).toBe(0);
  expect(c.lines.join('\n')).toMatch(/Verified: 2 accounts, 1 messages/);
  return readdirSync(dir);
}

describe('the systemd backup timer and service', () => {
  const service = read('deploy/systemd/parley-backup.service');
  const timer = read('deploy/systemd/parley-backup.timer');
  const main = read('deploy/systemd/parley.service');

  it('runs a verified, pruned backup as parley.service’s user, beside its state', async () => {
    const exec = /^ExecStart=\/usr\/bin\/env node (\S+) (.*)$/m.exec(service);
    expect(exec?.[1]).toBe(ADMIN_MAIN);
    const args = (exec?.[2] ?? '').split(' ');
    expect(args).toEqual(expect.arrayContaining(['--verify', '--keep']));
    expect(await runAsShipped(args)).toEqual([expect.stringMatching(/^parley-\d{8}-\d{6}Z\.tar\.gz$/)]);
    // parley.service's user is its unit name: the same dynamic user, so the same uid.
    expect(main).not.toMatch(/^User=/m);
    for (const line of ['DynamicUser=yes', 'User=parley', 'StateDirectory=parley parley-backups', 'Type=oneshot']) {
      expect(service).toContain(`\n${line}\n`);
    }
    const dir = args[args.indexOf('--dir') + 1];
    expect(dir).toBe('/var/lib/parley-backups');
    for (const shared of [
      'EnvironmentFile=-/etc/parley.env',
      'Environment=DATA_DIR=/var/lib/parley',
      'WorkingDirectory=/opt/parley',
    ]) {
      expect(main).toContain(shared);
      expect(service).toContain(shared);
    }
    expect(timer).toMatch(/^Persistent=true$/m);
  });

  it.skipIf(!SYSTEMD_ANALYZE)('systemd reads both units and the calendar', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-units-'));
    temps.push(dir);
    const verify = spawnSync(SYSTEMD_ANALYZE as string, [
      'verify',
      path.join(ROOT, 'deploy/systemd/parley-backup.service'),
      path.join(ROOT, 'deploy/systemd/parley-backup.timer'),
    ]);
    expect(verify.status, String(verify.stderr)).toBe(0);
    const calendar = /^OnCalendar=(.*)$/m.exec(timer)?.[1] ?? '';
    const next = spawnSync(SYSTEMD_ANALYZE as string, ['calendar', calendar], { encoding: 'utf8' });
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/Next elapse:/);
  });
});

describe('compose.yaml’s backup service', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      { image?: string; environment?: Record<string, string>; entrypoint?: string[]; volumes?: string[] }
    >;
  };
  const backup = compose.services.backup;
  const app = compose.services.parley1;

  it('runs a verified, pruned backup daily with the servers’ settings', async () => {
    expect(backup?.image).toBe(app?.image);
    expect(backup?.volumes).toEqual(app?.volumes);
    const names = new Set(CONFIG_OPTIONS.map((o) => o.name));
    for (const key of Object.keys(backup?.environment ?? {})) expect(names, key).toContain(key);
    for (const key of ['DATABASE_URL', 'S3_BUCKET', 'SESSION_SECRET']) expect(backup?.environment).toHaveProperty(key);
    const script = backup?.entrypoint?.at(-1) ?? '';
    expect(script).toMatch(/sleep 86400/);
    const line = new RegExp(`node ${ADMIN_MAIN} (backup [^\\n$]*?)\\s+\\$\\$\\{BACKUP_S3_BUCKET:\\+--upload\\}`).exec(
      script,
    );
    const args = (line?.[1] ?? '').trim().split(/\s+/);
    expect(await runAsShipped(args)).toHaveLength(1);
  });
});
