/** One version everywhere: every workspace's package.json, and the CHANGELOG's newest section. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { VERSION } from './version.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const versionOf = (p: string) =>
  (JSON.parse(readFileSync(path.join(root, p, 'package.json'), 'utf8')) as { version: string }).version;

it('is the same in every package.json and names the CHANGELOG’s newest section', () => {
  for (const p of ['.', 'apps/server', 'apps/web', 'packages/e2ee', 'packages/protocol', 'bench', 'e2e']) {
    expect(versionOf(p), p).toBe(VERSION);
  }
  const newest = /^## (.+)$/m.exec(readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'))?.[1];
  expect(newest).toBe(VERSION);
  expect(VERSION).not.toBe('1.0.0');
});
