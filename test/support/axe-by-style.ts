/**
 * axe's verdict at less cost on a page as large as Redoc's (20,000 elements, every operation of the API drawn by the
 * same few components): its costliest rule, color-contrast, run once per way text is drawn rather than once per
 * text, since five sixths of a full run went to 5,000 texts in a few dozen styles. Every other rule runs on the
 * whole page.
 */
import type { Page } from 'playwright-core';
import { axeLines, runAxe } from './app-browser.js';

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

/** axeViolations on a large page, color-contrast judged on one text of each look. */
export async function axeViolationsByStyle(page: Page, options: { every?: boolean } = {}): Promise<string[]> {
  if (page.frames().length !== 1) throw new Error('axeViolationsByStyle runs axe in the page: a frame would be missed');
  const whole = await runAxe(page, { rules: { 'color-contrast': { enabled: false } } });
  const marked = await page.evaluate(markOnePerLook, SAMPLE);
  if (marked === 0) throw new Error('no visible text on the page for color-contrast to judge');
  try {
    const contrast = await runAxe(page, { runOnly: { type: 'rule', values: ['color-contrast'] } }, `[${SAMPLE}]`);
    return axeLines([...whole, ...contrast], options.every);
  } finally {
    await page.evaluate((attribute) => {
      for (const element of document.querySelectorAll(`[${attribute}]`)) element.removeAttribute(attribute);
    }, SAMPLE);
  }
}
