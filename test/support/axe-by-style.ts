/**
 * axe's verdict at less cost than AxeBuilder's, the same rules and options: axe put in a page once for as long as
 * the page lives (AxeBuilder puts its 500 kB in again for every run, most of a run's time on the app's pages), and
 * on a page as large as Redoc's (20,000 elements, every operation of the API drawn by the same few components) its
 * costliest rule, color-contrast, run once per way text is drawn rather than once per text: five sixths of a full
 * run went to 5,000 texts in a few dozen styles. Every other rule runs on the whole page.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, Result, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';
import { axeViolations } from './app-browser.js';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const SAMPLE = 'data-axe-contrast-sample';

/**
 * Marks one visible text of each look: its own colour, size, weight and shadow, and every box behind it up to the
 * root (background colour and image, opacity, blending, filter, position). Contrast is decided by these alone, never
 * by the words, so the texts left out have a marked twin whose verdict is theirs. Returns how many were marked.
 */
function markOnePerLook(attribute: string): number {
  // No named function inside: the page does not have the helper the test's compiler wraps them with.
  const behind = new Map<Element, string>([[document.documentElement, '']]);
  const looks = new Set<string>();
  for (const element of document.body.querySelectorAll('*')) {
    const control = element.matches('input, select, textarea');
    const text = [...element.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
    if (!(control || text) || !element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const unknown: Element[] = [];
    let known: Element = element;
    while (!behind.has(known)) {
      unknown.push(known);
      known = known.parentElement ?? document.documentElement;
    }
    for (const box of unknown.reverse()) {
      const s = getComputedStyle(box);
      const own = [s.backgroundColor, s.backgroundImage, s.opacity, s.mixBlendMode, s.filter, s.position].join(' ');
      behind.set(box, `${own}/${behind.get(box.parentElement ?? document.documentElement)}`);
    }
    const s = getComputedStyle(element);
    const look = [element.localName, s.color, s.fontSize, s.fontWeight, s.textShadow, behind.get(element)].join('|');
    if (looks.has(look)) continue;
    looks.add(look);
    element.setAttribute(attribute, '');
  }
  return looks.size;
}

function lines(violations: Result[], every: boolean): string[] {
  return violations
    .filter((v) => every || v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}) ${v.help}: ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(', ')}`,
    );
}

/** axe.run in the page (on `include`, or the whole document), axe put there first if this document has none yet. */
async function run(page: Page, options: RunOptions, include?: string): Promise<Result[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    ([context, runOptions]) =>
      (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<AxeResults> } }).axe.run(
        context ? { include: [context] } : document,
        runOptions,
      ),
    [include, { ...options, resultTypes: ['violations'] }] as const,
  );
  return results.violations;
}

/**
 * What axe finds on the page as it is now, as axeViolations (test/support/app-browser.ts) says it: the serious and
 * critical violations, or every one with `every`. A page with frames is left to axeViolations, which reaches them.
 */
export async function axeFindings(page: Page, options: { every?: boolean } = {}): Promise<string[]> {
  if (page.frames().length !== 1) return axeViolations(page, options);
  return lines(await run(page, {}), options.every ?? false);
}

/** axeFindings on a large page, color-contrast judged on one text of each look. */
export async function axeViolationsByStyle(page: Page, options: { every?: boolean } = {}): Promise<string[]> {
  if (page.frames().length !== 1) throw new Error('axeViolationsByStyle runs axe in the page: a frame would be missed');
  const whole = await run(page, { rules: { 'color-contrast': { enabled: false } } });
  const marked = await page.evaluate(markOnePerLook, SAMPLE);
  if (marked === 0) throw new Error('no visible text on the page for color-contrast to judge');
  try {
    const contrast = await run(page, { runOnly: { type: 'rule', values: ['color-contrast'] } }, `[${SAMPLE}]`);
    return lines([...whole, ...contrast], options.every ?? false);
  } finally {
    await page.evaluate((attribute) => {
      for (const element of document.querySelectorAll(`[${attribute}]`)) element.removeAttribute(attribute);
    }, SAMPLE);
  }
}
