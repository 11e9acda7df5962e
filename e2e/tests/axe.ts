/**
 * The accessibility scan: axe-core over a page (WCAG 2.0 and 2.1, A and AA, plus axe's
 * best practices), each screen at a phone (390 px) and a desktop (1280 px) width, in the
 * light and the dark theme (the System default following the emulated colour scheme).
 * Every finding becomes one readable line, so a failure says what to fix and where.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './fixtures.ts';

export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export interface Variant {
  width: number;
  height: number;
  scheme: 'light' | 'dark';
}

export const VARIANTS: Variant[] = [
  { width: 390, height: 844, scheme: 'light' },
  { width: 390, height: 844, scheme: 'dark' },
  { width: 1280, height: 800, scheme: 'light' },
  { width: 1280, height: 800, scheme: 'dark' },
];

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

/** One line per element axe finds at fault on the page as it is now: where, the rule, its impact, the element. */
export async function axeFindings(page: Page, where: string): Promise<string[]> {
  await settle(page);
  const { violations } = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  return violations.flatMap((v) =>
    v.nodes.map((n) => {
      const snippet = n.html.replace(/\s+/g, ' ').slice(0, 160);
      return `${where}: ${v.id} (${v.impact ?? 'n/a'}) at ${n.target.join(' > ')}: ${snippet} (${n.failureSummary?.replace(/\s+/g, ' ') ?? v.help})`;
    }),
  );
}

/** Opens every screen at every width and theme on one page and fails with the list of all findings. */
export async function expectAccessible(page: Page, screens: Screen[], variants = VARIANTS): Promise<void> {
  const findings: string[] = [];
  for (const v of variants) {
    await page.setViewportSize({ width: v.width, height: v.height });
    await page.emulateMedia({ colorScheme: v.scheme });
    for (const screen of screens) {
      await screen.open(page);
      findings.push(...(await axeFindings(page, `${screen.name} @${v.width} ${v.scheme}`)));
    }
  }
  expect(findings, `axe found ${findings.length} problem(s):\n${findings.join('\n')}\n`).toEqual([]);
}
