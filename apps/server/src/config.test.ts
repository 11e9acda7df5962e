import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateSecret } from './config.ts';

const run = promisify(execFile);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the session secret', () => {
  it('is made once, kept, and agreed on by processes that start at once on a new data folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-secret-'));
    dirs.push(dir);
    const script = `import { loadOrCreateSecret } from ${JSON.stringify(path.resolve(import.meta.dirname, 'config.ts'))};
process.stdout.write(loadOrCreateSecret(process.argv[1]));`;
    const secrets = await Promise.all(
      Array.from({ length: 6 }, () =>
        run(process.execPath, ['--input-type=module', '-e', script, dir]).then((r) => r.stdout),
      ),
    );
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(loadOrCreateSecret(dir)).toBe(secrets[0]);
    // No candidate file is left behind.
    expect(readdirSync(dir)).toEqual(['session-secret']);
  });
});
