/**
 * `npm run bench:search`: the web client's message search (apps/web search-index.ts) over
 * 100,000 messages of realistic lengths, against a baseline in the same run: the same
 * messages scanned without the index's pre-folded text (folding each one at every search,
 * as a search straight over the decrypted history would). Median and worst of 25 runs per
 * query, in milliseconds, and the ratio to the baseline.
 *
 *   npm run bench:search                 100,000 messages
 *   npm run bench:search -- --messages 20000
 */
import { performance } from 'node:perf_hooks';
import { fold, type IndexedMessage, SearchIndex } from '../../apps/web/src/client/search/search-index.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--messages');
const N = at >= 0 ? Number(args[at + 1]) : 100_000;
const RUNS = 25;

const WORDS =
  'the a to and of you I it is in that for on with this be are was have at not but we can what so just do get like know about go will all one me out if up there no time think your see come good now how when back day then would our going well want here really could make some yeah okay sure thanks tomorrow tonight dinner meeting café naïve crème résumé lunch train station harbour lighthouse weekend photo call later soon'.split(
    ' ',
  );

/** A deterministic generator (the same messages in every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function messages(n: number): IndexedMessage[] {
  const r = rng(42);
  const out: IndexedMessage[] = [];
  for (let i = 0; i < n; i++) {
    // Most messages are short; some long (lengths as chat logs have them).
    const words = r() < 0.9 ? 1 + Math.floor(r() * 12) : 20 + Math.floor(r() * 80);
    const text = Array.from({ length: words }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
    out.push({
      chatId: `chat${i % 200}`,
      msgId: `m${i}`,
      senderId: `u${i % 2}`,
      timestamp: 1_700_000_000_000 + i,
      rev: 0,
      text: i === n / 2 ? `${text} zanzibar` : text,
    });
  }
  return out;
}

function time(fn: () => number): { median: number; worst: number; hits: number } {
  const ms: number[] = [];
  let hits = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    hits = fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(RUNS / 2)] as number, worst: ms[RUNS - 1] as number, hits };
}

const all = messages(N);
const index = new SearchIndex();
const built = performance.now();
for (const m of all) index.put(m);
const buildMs = performance.now() - built;

console.log(`Message search over ${N.toLocaleString('en-US')} messages (${RUNS} runs per query; median / worst, ms)`);
console.log(`  index built in ${buildMs.toFixed(0)} ms`);
for (const q of ['zanzibar', 'cafe', 'lighthouse weekend', 'the']) {
  const indexed = time(() => index.search(q, { limit: 50 }).length);
  const folded = fold(q);
  const baseline = time(() => all.filter((m) => fold(m.text).includes(folded)).slice(0, 50).length);
  console.log(
    `  “${q}”: index ${indexed.median.toFixed(1)} / ${indexed.worst.toFixed(1)}   baseline ${baseline.median.toFixed(1)} / ${baseline.worst.toFixed(1)}   ${(indexed.median / baseline.median).toFixed(2)}× the baseline's time   (${indexed.hits} shown)`,
  );
}
