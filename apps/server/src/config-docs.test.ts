/**
 * The configuration table is the one source: loadConfig reads every variable it lists and no
 * other, takes its defaults from it, refuses bad values by name; .env.example and the README's
 * table are what config-docs makes of it; `--help` prints it and a .env file is read at start.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { envExample, withReadmeTable } from './config-docs.ts';
import { CONFIG_OPTIONS, DEFAULT_RATE_LIMITS } from './config-options.ts';
import { EnvReader } from './env-reader.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'parley-config-'));
  dirs.push(d);
  return d;
}

describe('the configuration table', () => {
  it('is read whole by loadConfig, with its defaults', () => {
    const read = new Set<string>();
    const original = EnvReader.prototype.raw;
    EnvReader.prototype.raw = function (this: EnvReader, name: string) {
      read.add(name);
      return original.call(this, name);
    };
    try {
      const c = loadConfig({ DATA_DIR: tempDir() });
      expect([...read].sort()).toEqual(CONFIG_OPTIONS.map((o) => o.name).sort());
      expect(c.port).toBe(3000);
      expect(c.host).toBe('0.0.0.0');
      expect(c.rateLimits).toEqual(DEFAULT_RATE_LIMITS);
      expect(c.shutdownDrainMs).toBe(0);
      expect(c.trustProxy).toBe(false);
      expect(c.smtpUrl).toBeNull();
    } finally {
      EnvReader.prototype.raw = original;
    }
  });

  it('names each variable once, and refuses bad values by name', () => {
    const names = CONFIG_OPTIONS.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    expect(() => loadConfig({ DATA_DIR: tempDir(), PORT: 'eighty' })).toThrow(/PORT must be a whole number/);
    expect(() => loadConfig({ DATA_DIR: tempDir(), RATE_LIMIT_API_PER_MINUTE: '-1' })).toThrow(
      /RATE_LIMIT_API_PER_MINUTE/,
    );
    expect(() => new EnvReader({}).int('NO_SUCH_SETTING')).toThrow(/not in the configuration table/);
    expect(loadConfig({ DATA_DIR: tempDir(), RATE_LIMIT_API_PER_MINUTE: '7' }).rateLimits.apiPerMinute).toBe(7);
    expect(() => loadConfig({ DATA_DIR: tempDir(), SQLITE_SYNCHRONOUS: 'off' })).toThrow(
      /SQLITE_SYNCHRONOUS must be full or normal/,
    );
    expect(loadConfig({ DATA_DIR: tempDir() }).sqliteSynchronous).toBe('full');
    expect(loadConfig({ DATA_DIR: tempDir(), SQLITE_SYNCHRONOUS: 'NORMAL' }).sqliteSynchronous).toBe('normal');
  });

  it('.env.example and the README table are up to date (npm run config-docs)', () => {
    expect(readFileSync(path.join(ROOT, '.env.example'), 'utf8')).toBe(envExample());
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(withReadmeTable(readme)).toBe(readme);
    for (const o of CONFIG_OPTIONS) expect(readme).toContain(`| \`${o.name}\` |`);
  });
});

describe('the server process', () => {
  const main = path.join(import.meta.dirname, 'main.ts');

  it('--help prints every variable with its default and exits', () => {
    const out = execFileSync(process.execPath, [main, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    for (const o of CONFIG_OPTIONS) expect(out).toContain(`  ${o.name}  (default: `);
    expect(out).toContain('RATE_LIMIT_API_PER_MINUTE  (default: 600)');
  });

  it('reads .env from its working directory; the environment wins', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, '.env'), 'PORT=not-a-port\nLOG_LEVEL=silent\n');
    const run = (env: NodeJS.ProcessEnv) => {
      try {
        execFileSync(process.execPath, [main], { cwd: dir, encoding: 'utf8', env, stdio: 'pipe', timeout: 20_000 });
        return '';
      } catch (e) {
        return String((e as { stderr?: string }).stderr);
      }
    };
    // The file's PORT is read (and refused by name: the process never starts).
    expect(run({ PATH: process.env.PATH, DATA_DIR: dir })).toContain('PORT must be a whole number, got "not-a-port"');
    // A PORT in the environment wins over the file's: now the refusal is of the environment's value.
    expect(run({ PATH: process.env.PATH, DATA_DIR: dir, PORT: 'x1' })).toContain('got "x1"');
  });
});
