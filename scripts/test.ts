/**
 * `npm test`: every stage of the suite in order (lint, typecheck, unit and integration,
 * browser, web performance, bench smoke), stopping at the first that fails, and then the
 * time each took, so a stage that slows down is seen the day it does (CI prints it too).
 */
import { spawnSync } from 'node:child_process';

const STAGES: [name: string, script: string, args?: string[]][] = [
  ['lint', 'lint'],
  ['typecheck', 'typecheck'],
  ['unit and integration', 'test:unit'],
  ['browser', 'test:e2e'],
  ['web performance', 'test:perf'],
  ['bench smoke', 'bench', ['--', '--quick']],
];

const format = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
};

const times: [string, number][] = [];
let failed: string | null = null;
const started = performance.now();
for (const [name, script, args = []] of STAGES) {
  const t0 = performance.now();
  console.log(`\n--- ${name} (npm run ${script})`);
  const run = spawnSync('npm', ['run', script, ...args], { stdio: 'inherit' });
  times.push([name, performance.now() - t0]);
  if (run.status !== 0) {
    failed = name;
    break;
  }
}
console.log('\n--- time by stage');
for (const [name, ms] of times) console.log(`  ${name.padEnd(22)} ${format(ms).padStart(12)}`);
console.log(`  ${'total'.padEnd(22)} ${format(performance.now() - started).padStart(12)}`);
if (failed) {
  console.log(`\n${failed} failed`);
  process.exit(1);
}
