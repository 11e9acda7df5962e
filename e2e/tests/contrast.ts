/**
 * A text-contrast check in the page (WCAG 2 AA, the rule axe calls color-contrast): every
 * visible text's colour against the background it is drawn on, 4.5:1, or 3:1 for large
 * text (24px, or 18.66px bold). Colours in any CSS syntax (Tailwind's oklab mixes too)
 * are read through a canvas pixel; translucent backgrounds and opacity are blended down
 * to the first opaque ancestor. Text over a background image (the brand gradient) is
 * skipped, as axe reports it for review, not as a violation; so are disabled controls.
 */
import { expect, type Page } from '@playwright/test';

export interface ContrastProblem {
  text: string;
  ratio: number;
  needed: number;
  color: string;
  background: string;
}

export function contrastProblems(page: Page): Promise<ContrastProblem[]> {
  return page.evaluate(() => {
    type Rgba = [number, number, number, number];
    const canvas = document.createElement('canvas');
    canvas.width = 1;
    canvas.height = 1;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) throw new Error('no canvas');
    const parse = (css: string): Rgba => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      const [r = 0, g = 0, b = 0, a = 0] = ctx.getImageData(0, 0, 1, 1).data;
      return [r, g, b, a / 255];
    };
    // `top` drawn over an opaque `bottom`.
    const over = (top: Rgba, bottom: Rgba): Rgba => [
      top[0] * top[3] + bottom[0] * (1 - top[3]),
      top[1] * top[3] + bottom[1] * (1 - top[3]),
      top[2] * top[3] + bottom[2] * (1 - top[3]),
      1,
    ];
    const luminance = ([r, g, b]: Rgba) =>
      [r, g, b]
        .map((v) => v / 255)
        .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
        .reduce((sum, c, i) => sum + c * ([0.2126, 0.7152, 0.0722][i] ?? 0), 0);
    const ratio = (a: Rgba, b: Rgba) => {
      const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
      return (hi + 0.05) / (lo + 0.05);
    };
    const canvasColor: Rgba = document.documentElement.classList.contains('dark')
      ? [18, 18, 18, 1]
      : [255, 255, 255, 1];

    /** The opaque colour behind `el`, and the product of the opacities on the way; null over an image. */
    const backdrop = (el: Element): { bg: Rgba; opacity: number } | null => {
      const layers: Rgba[] = [];
      let opacity = 1;
      let bg: Rgba | null = null;
      for (let e: Element | null = el; e; e = e.parentElement) {
        const style = getComputedStyle(e);
        opacity *= Number(style.opacity);
        if (bg) continue;
        if (style.backgroundImage !== 'none') return null;
        const c = parse(style.backgroundColor);
        if (c[3] >= 1) bg = c;
        else if (c[3] > 0) layers.push(c);
      }
      let result = bg ?? canvasColor;
      for (const layer of layers.reverse()) result = over(layer, result);
      return { bg: result, opacity };
    };

    /** Text that is not drawn, or need not meet the rule: hidden, visually hidden (sr-only), disabled. */
    const exempt = (el: Element) =>
      !el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) ||
      el.getBoundingClientRect().width <= 1 ||
      el.getBoundingClientRect().height <= 1 ||
      el.closest(':disabled, [aria-disabled="true"]') !== null;

    const check = (el: Element, text: string): ContrastProblem | null => {
      const behind = backdrop(el);
      if (!behind) return null;
      const style = getComputedStyle(el);
      const fg = parse(style.color);
      const shown = over([fg[0], fg[1], fg[2], fg[3] * behind.opacity], behind.bg);
      const size = Number.parseFloat(style.fontSize);
      const needed = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700) ? 3 : 4.5;
      const r = ratio(shown, behind.bg);
      if (r >= needed) return null;
      return {
        text: text.slice(0, 60),
        ratio: Math.round(r * 100) / 100,
        needed,
        color: style.color,
        background: `rgb(${behind.bg.slice(0, 3).map(Math.round).join(', ')})`,
      };
    };

    const seen = new Set<Element>();
    const problems: ContrastProblem[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      const text = node.textContent?.trim() ?? '';
      if (!el || !text || seen.has(el)) continue;
      seen.add(el);
      const problem = exempt(el) ? null : check(el, text);
      if (problem) problems.push(problem);
    }
    return problems;
  });
}

/** No text below WCAG AA contrast (polled: a toast fades in), in each of `schemes` (the page's own when none). */
export async function expectReadable(page: Page, schemes: readonly ('light' | 'dark')[] = []): Promise<void> {
  if (schemes.length === 0) {
    await expect.poll(() => contrastProblems(page), { message: 'text below WCAG AA contrast' }).toEqual([]);
    return;
  }
  for (const colorScheme of schemes) {
    await page.emulateMedia({ colorScheme });
    await expect
      .poll(() => contrastProblems(page), { message: `text below WCAG AA contrast (${colorScheme})` })
      .toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
