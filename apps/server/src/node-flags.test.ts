/** `npm start` runs the server with the flags the benchmark measured it with. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from './node-flags.ts';

describe('server node flags', () => {
  it('are passed by npm start', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // exec: npm's shell becomes node, so the signals npm passes on reach the server (npm-start.test.ts).
    const start = pkg.scripts.start?.split(' ') ?? [];
    expect(start.slice(0, 2)).toEqual(['exec', 'node']);
    expect(start.slice(2, -1)).toEqual([...SERVER_NODE_FLAGS]);
  });
});
