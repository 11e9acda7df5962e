/**
 * Lighthouse for `npm run test:perf` (web-perf.ts): the npm `lighthouse` CLI driving Debian
 * Chromium with its default mobile profile (a Moto G Power sized screen, simulated slow 4G
 * and a 4x slower CPU), performance and accessibility only. Per run: the two scores, the
 * performance metrics with the points each lost, the audits that cost the most, and the
 * elements that moved in layout shifts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const LIGHTHOUSE = path.join(ROOT, 'node_modules/lighthouse/cli/index.js');

interface Audit {
  id: string;
  title: string;
  score: number | null;
  scoreDisplayMode: string;
  displayValue?: string;
  numericValue?: number;
  metricSavings?: Record<string, number>;
  details?: {
    type?: string;
    overallSavingsMs?: number;
    overallSavingsBytes?: number;
    /** layout-shifts: each shift, the element that moved most, and its score. */
    items?: { node?: { selector?: string; nodeLabel?: string; snippet?: string }; score?: number }[];
  };
}

interface Report {
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number; group?: string }[] }>;
  audits: Record<string, Audit>;
}

export interface LighthouseRun {
  performance: number;
  accessibility: number;
  /** The performance metrics, e.g. "LCP 1.9 s (-3)": value and points lost. */
  metrics: string[];
  /** What costs performance points, most first (metrics' insights and diagnostics with savings). */
  perfCosts: string[];
  /** The accessibility audits that failed. */
  a11yFailures: string[];
  /** The layout shifts, biggest first: the element that moved most, and the shift's score. */
  shifts: string[];
}

const METRIC_ABBR: Record<string, string> = {
  'first-contentful-paint': 'FCP',
  'largest-contentful-paint': 'LCP',
  'total-blocking-time': 'TBT',
  'cumulative-layout-shift': 'CLS',
  'speed-index': 'SI',
};

const pct = (score: number | null | undefined) => Math.round((score ?? 0) * 100);

/** What a run found: the scores and, in words, where the points went. */
export function summarize(report: Report): LighthouseRun {
  const perf = report.categories.performance;
  const a11y = report.categories.accessibility;
  if (!perf || !a11y) throw new Error('lighthouse: a category is missing from the report');
  const totalWeight = perf.auditRefs.reduce((sum, ref) => sum + ref.weight, 0) || 1;
  const metrics = perf.auditRefs
    .filter((ref) => ref.weight > 0)
    .map((ref) => {
      const audit = report.audits[ref.id];
      if (!audit) return `${ref.id} ?`;
      const lost = ((1 - (audit.score ?? 0)) * ref.weight * 100) / totalWeight;
      return `${METRIC_ABBR[ref.id] ?? ref.id} ${audit.displayValue ?? '?'}${lost >= 0.5 ? ` (-${lost.toFixed(0)})` : ''}`;
    });
  const costs: { text: string; ms: number }[] = [];
  for (const ref of perf.auditRefs) {
    if (ref.weight > 0) continue;
    const audit = report.audits[ref.id];
    if (!audit || audit.score === null || audit.score >= 0.9) continue;
    if (audit.scoreDisplayMode === 'notApplicable' || audit.scoreDisplayMode === 'informative') continue;
    const savings = audit.metricSavings ?? {};
    const ms = Math.max(audit.details?.overallSavingsMs ?? 0, savings.LCP ?? 0, savings.FCP ?? 0, savings.TBT ?? 0);
    const saved = Object.entries(savings)
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `${k} ${k === 'CLS' ? v.toFixed(3) : `${Math.round(v)} ms`}`);
    const bytes = audit.details?.overallSavingsBytes;
    const extra = [
      audit.displayValue,
      saved.length ? `saves ${saved.join(', ')}` : '',
      bytes ? `${(bytes / 1024).toFixed(1)} KB` : '',
    ]
      .filter(Boolean)
      .join('; ');
    costs.push({ text: `${audit.id}${extra ? ` (${extra})` : ''}`, ms });
  }
  costs.sort((a, b) => b.ms - a.ms);
  const a11yFailures = a11y.auditRefs
    .map((ref) => report.audits[ref.id])
    .filter((audit): audit is Audit => audit?.scoreDisplayMode === 'binary' && audit.score === 0)
    .map((audit) => `${audit.id}: ${audit.title}`);
  const shifts = (report.audits['layout-shifts']?.details?.items ?? [])
    .filter((item) => (item.score ?? 0) > 0)
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0))
    .map((item) => {
      const node = item.node;
      const what = node ? `${node.nodeLabel ?? ''} ${node.selector ?? node.snippet ?? ''}`.trim() : 'an element';
      return `${(item.score ?? 0).toFixed(3)} ${what}`;
    });
  return {
    performance: pct(perf.score),
    accessibility: pct(a11y.score),
    metrics,
    perfCosts: costs.map((c) => c.text),
    a11yFailures,
    shifts,
  };
}

/**
 * One Lighthouse run of `url` (mobile, default simulated throttling): in a fresh Chromium
 * started with `chromeFlags`, or in the running one at `browser.port`, keeping its storage
 * (web-perf-profile.ts: a signed-in profile).
 */
export function lighthouse(url: string, browser: { chromeFlags: string[] } | { port: number }): Promise<LighthouseRun> {
  const args = [
    LIGHTHOUSE,
    url,
    '--output=json',
    '--quiet',
    '--only-categories=performance,accessibility',
    ...('port' in browser
      ? [`--port=${browser.port}`, '--disable-storage-reset']
      : [`--chrome-flags=${browser.chromeFlags.join(' ')}`]),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`lighthouse exited ${code}`));
      try {
        const report = JSON.parse(out) as Report & { runtimeError?: { message: string } };
        if (report.runtimeError) return reject(new Error(`lighthouse: ${report.runtimeError.message}`));
        // PERF_REPORTS=<dir> keeps each run's whole report, to read what the summary leaves out.
        const dir = process.env.PERF_REPORTS;
        if (dir) {
          mkdirSync(dir, { recursive: true });
          const name = new URL(url).pathname.replace(/\W+/g, '_').replace(/^_|_$/g, '') || 'root';
          writeFileSync(path.join(dir, `${name}-${Date.now()}.json`), out);
        }
        resolve(summarize(report));
      } catch (err) {
        reject(err);
      }
    });
  });
}
