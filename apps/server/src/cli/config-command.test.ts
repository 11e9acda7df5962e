/** `npm run admin -- config check` and `version`. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { captureOutput } from '../test/cli-output.ts';
import { VERSION } from '../version.ts';
import { runAdmin } from './admin.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'parley-config-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('says what the settings run on, and refuses a misspelled variable or an invalid value', async () => {
  const ok = captureOutput();
  expect(await runAdmin(['config', 'check'], { DATA_DIR: dir, PUBLIC_URL: 'https://chat.example.com' }, ok.out)).toBe(
    0,
  );
  expect(ok.lines).toEqual([
    `Database: the SQLite database ${path.join(dir, 'parley.sqlite')}.`,
    'Processes: one (no REDIS_URL).',
    `Attachments: ${path.join(dir, 'attachments')}.`,
    `Mail: the outbox in ${dir}.`,
    'Public address: https://chat.example.com.',
    'Backups: not encrypted (no BACKUP_AGE_RECIPIENTS).',
    "Two-step verification: each account's choice.",
    'The settings are valid.',
  ]);

  // DATABSE_URL: the server would run on SQLite and say nothing.
  const typo = captureOutput();
  expect(await runAdmin(['config', 'check'], { DATA_DIR: dir, DATABSE_URL: 'postgres://db/parley' }, typo.out)).toBe(1);
  expect(typo.lines).toContain('ERR DATABSE_URL is not a Parley setting: did you mean DATABASE_URL? It is ignored.');

  const bad = captureOutput();
  expect(await runAdmin(['config', 'check'], { DATA_DIR: dir, PORT: 'eighty' }, bad.out)).toBe(1);
  expect(bad.lines).toEqual(['ERR Invalid setting: PORT must be a whole number, got "eighty"']);

  // An age key whose checksum is wrong (one letter changed) is refused before any backup is made.
  const key = captureOutput();
  const typoKey = 'age12763kxz33kpfvshmuphjj9tduq4vcary0kn7ghy9wqkqu9eyp8qq3ltxvq';
  expect(await runAdmin(['config', 'check'], { DATA_DIR: dir, BACKUP_AGE_RECIPIENTS: typoKey }, key.out)).toBe(1);
  expect(key.lines.join('\n')).toMatch(/BACKUP_AGE_RECIPIENTS: "age1.*" is not an age public key/);

  const kdf = captureOutput();
  expect(await runAdmin(['config', 'check'], { DATA_DIR: dir, KDF_COST: '12' }, kdf.out)).toBe(1);
  expect(kdf.lines).toContain(
    'ERR KDF_COST 12 is below 17: browsers refuse to derive passwords with it (only the test build accepts it).',
  );

  const v = captureOutput();
  expect(await runAdmin(['version'], {}, v.out)).toBe(0);
  expect(v.lines).toEqual([`Parley ${VERSION} (Node.js ${process.versions.node})`]);
});
