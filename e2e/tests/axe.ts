/**
 * The accessibility scan: axe-core over a page (WCAG 2.0 and 2.1, A and AA, plus axe's
 * best practices), each screen at a phone (390 px) and a desktop (1280 px) width, in the
 * light theme, and its colours again in the dark one (the System default following the
 * emulated colour scheme, turned where the screen stands).
 * Every finding becomes one readable line, so a failure says what to fix and where.
 */

import type { Page } from '@playwright/test';
import axe from 'axe-core';
import { expect, shot } from './fixtures.ts';
import { expectNoSidewaysScroll } from './screen-helpers.ts';

export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/** The widths every screen is scanned at: a phone and a desktop. */
export const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/**
 * What the theme can change: colours. Each screen is opened once per width and scanned
 * with every rule in the light theme, then switched to dark where it stands (the System
 * theme follows the emulated colour scheme live) and scanned again with these rules.
 */
export const THEME_RULES = ['color-contrast', 'link-in-text-block'];

/** A screen to scan: how to open it (and wait until it is ready) from any page of its role. */
export interface Screen {
  name: string;
  open(page: Page): Promise<void>;
}

/** Waits for the page's finite animations (a toast or dialog fading in) to end, so colours are final. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const finite = document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations !== Infinity);
    await Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
  });
}

/**
 * axe's results for the page as it is now: `rules` only (else every rule of AXE_TAGS),
 * within `include` (else the whole document). axe is loaded into a document once (its
 * source is 1.4 MB) and run there as often as asked: a screen's light and dark scans share
 * one load. (@axe-core/playwright loads it up to three times a scan and joins the results
 * in a blank page it opens each time, for frames of other origins: about 1.6 times the
 * time of the whole signed-out pass.) Frames are not entered: the only one our screens
 * have is a video's, of another origin; its own checks, a title, are the page's.
 */
export async function runAxe(page: Page, rules?: string[], include?: string): Promise<axe.AxeResults> {
  await settle(page);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const options: axe.RunOptions = {
    runOnly: rules ? { type: 'rule', values: rules } : { type: 'tag', values: AXE_TAGS },
    iframes: false,
  };
  return page.evaluate(
    ([within, opts]) => {
      const { axe: inPage } = window as unknown as { axe: typeof axe };
      return within ? inPage.run({ include: [within] }, opts) : inPage.run(document, opts);
    },
    [include ?? null, options] as const,
  );
}

/** One line per element axe finds at fault on the page as it is now (`rules`: only these): where, the rule, its impact, the element. */
export async function axeFindings(page: Page, where: string, rules?: string[]): Promise<string[]> {
  const { violations } = await runAxe(page, rules);
  return violations.flatMap((v) =>
    v.nodes.map((n) => {
      const snippet = n.html.replace(/\s+/g, ' ').slice(0, 160);
      return `${where}: ${v.id} (${v.impact ?? 'n/a'}) at ${n.target.join(' > ')}: ${snippet} (${n.failureSummary?.replace(/\s+/g, ' ') ?? v.help})`;
    }),
  );
}

/** Turns the page's theme (the System one, following the colour scheme) and waits until it shows. */
async function scheme(page: Page, colorScheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await expect(page.locator('html')).toHaveAttribute('data-theme', colorScheme);
}

/**
 * Opens every screen at both widths on one page, scans it in the light theme and then in
 * the dark one (THEME_RULES), checks that the phone width does not scroll sideways, and
 * fails with the list of all findings.
 */
export async function expectAccessible(page: Page, screens: Screen[], widths = WIDTHS): Promise<void> {
  const findings: string[] = [];
  for (const size of widths) {
    await page.setViewportSize(size);
    for (const screen of screens) {
      await page.emulateMedia({ colorScheme: 'light' });
      await screen.open(page);
      findings.push(...(await axeFindings(page, `${screen.name} @${size.width} light`)));
      if (size.width <= 390) await expectNoSidewaysScroll(page, screen.name);
      await scheme(page, 'dark');
      findings.push(...(await axeFindings(page, `${screen.name} @${size.width} dark`, THEME_RULES)));
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  expect(findings, `axe found ${findings.length} problem(s):\n${findings.join('\n')}\n`).toEqual([]);
}

/**
 * axe scans and pictures (`shot`: `${name}-${scheme}-${width}`) of the page as it is, light
 * and dark, 1280 and 390 wide, within `include` (else the whole page); what axe finds is
 * added to `findings`. Leaves the page light at 1280x800.
 */
export async function scanSchemes(page: Page, name: string, findings: string[], include?: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      const { violations } = await runAxe(page, undefined, include);
      findings.push(
        ...violations.flatMap((v) => v.nodes.map((n) => `${name} ${scheme} @${width}: ${v.id} at ${n.target}`)),
      );
      await shot(page, `${name}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}
