/**
 * Hostile variations of valid requests, for the fuzz test: a value replaced by a string
 * no storage should take (NUL, unpaired surrogates, huge), by any JSON, by deep nesting;
 * keys added or dropped; raw text that is not JSON at all. Seeded through fast-check,
 * so a failure replays.
 */
import { type Path, stringPaths, withValue } from '@app/protocol/test/samples';
import fc from 'fast-check';

export const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  'end\uD83D',
  '😀',
  '\u202Eevil',
  '%00',
  "'; drop table users; --",
  '\\',
  '"',
  '',
  ' ',
  'a'.repeat(5000),
  'é'.repeat(40_000),
];

export type Mutation =
  | { kind: 'asIs' }
  | { kind: 'nastyString'; at: number; value: string }
  | { kind: 'anyJson'; at: number; value: unknown }
  | { kind: 'deep'; at: number; depth: number }
  | { kind: 'extraKey'; key: string; value: unknown }
  | { kind: 'dropKey'; at: number };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: 'asIs' as const }),
  fc.record({
    kind: fc.constant('nastyString' as const),
    at: fc.nat(),
    value: fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 30 })),
  }),
  fc.record({ kind: fc.constant('anyJson' as const), at: fc.nat(), value: fc.jsonValue({ maxDepth: 3 }) }),
  // (Deeper values would overflow the test's own JSON.stringify; raw text below nests deeper.)
  fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), depth: fc.integer({ min: 50, max: 1000 }) }),
  fc.record({
    kind: fc.constant('extraKey' as const),
    key: fc.string({ maxLength: 12 }),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({ kind: fc.constant('dropKey' as const), at: fc.nat() }),
);

/** Every path to a value inside `value` (containers and leaves, not the root). */
function allPaths(value: unknown, at: Path = []): Path[] {
  const own = at.length ? [at] : [];
  if (Array.isArray(value)) return [...own, ...value.flatMap((v, i) => allPaths(v, [...at, i]))];
  if (value !== null && typeof value === 'object') {
    return [...own, ...Object.entries(value).flatMap(([k, v]) => allPaths(v, [...at, k]))];
  }
  return own;
}

function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
  return v;
}

/** Applies `m` to a valid request body or frame (which is left unchanged). */
export function mutate(valid: Record<string, unknown>, m: Mutation): unknown {
  const pick = (paths: Path[], at: number): Path | undefined => paths[at % Math.max(1, paths.length)];
  switch (m.kind) {
    case 'asIs':
      return valid;
    case 'nastyString': {
      const path = pick(stringPaths(valid), m.at);
      return path ? withValue(valid, path, m.value) : valid;
    }
    case 'anyJson': {
      const path = pick(allPaths(valid), m.at);
      return path ? withValue(valid, path, m.value) : m.value;
    }
    case 'deep': {
      const path = pick(allPaths(valid), m.at);
      return path ? withValue(valid, path, nested(m.depth)) : nested(m.depth);
    }
    case 'extraKey':
      return { ...valid, [m.key]: m.value };
    case 'dropKey': {
      const keys = Object.keys(valid);
      const key = keys[m.at % Math.max(1, keys.length)];
      if (key === undefined) return valid;
      const { [key]: _, ...rest } = valid;
      return rest;
    }
  }
}

/** Raw WebSocket text that is not a frame at all. */
export const rawTextArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom('', 'null', '[]', '{}', '{"t":', '"hello"', '1e309', '{"t":"send","id":"x"}'),
  fc.integer({ min: 100, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
);
