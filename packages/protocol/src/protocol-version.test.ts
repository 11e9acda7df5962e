/**
 * Fails when the wire protocol changes without a PROTOCOL_VERSION bump: the hash of the
 * protocol's source (comments and spacing ignored) is pinned per version. After a
 * deliberate change, bump PROTOCOL_VERSION and pin the new hash printed by the failure.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from './constants.ts';

const PINNED: Record<number, string> = {
  1: '6a196dd11dbd796a',
  2: 'b6de5be5022ee673',
  3: 'ceff151dad2ef808',
  4: 'dfda59635df5f6ea',
};

function protocolHash(): string {
  const h = createHash('sha256');
  for (const file of ['ws.ts', 'chat.ts', ...(PROTOCOL_VERSION >= 2 ? ['social.ts'] : [])]) {
    const source = readFileSync(path.join(import.meta.dirname, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '')
      .replace(/\s+/g, ' ')
      .trim();
    h.update(`${file}\n${source}\n`);
  }
  return h.digest('hex').slice(0, 16);
}

describe('protocol version', () => {
  it('is bumped whenever the wire schemas change', () => {
    expect(protocolHash(), `protocol changed: bump PROTOCOL_VERSION and pin ${protocolHash()}`).toBe(
      PINNED[PROTOCOL_VERSION],
    );
  });
});
