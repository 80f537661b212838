/**
 * Moving between the app's pages as its own links do: the router's history entry and popstate, no reload. A test
 * that walks many pages signs in and loads the app once, then each page costs its own data alone (not the document,
 * the bundle, who is signed in and axe put in the page again).
 */
import type { Page } from 'playwright-core';
import { appReady } from './app-browser.js';

/**
 * Shows `address` (a path of the app, with its query) in the app already on the page and waits for its data, as a
 * click on a link to it would (router.tsx: an entry carrying its place, then the app re-renders and scrolls to the
 * top). The page before must have another path, so the new one is mounted afresh, as a full load would mount it.
 */
export async function followInApp(page: Page, address: string): Promise<void> {
  const arrived = await page.evaluate(async (to) => {
    const target = new URL(to, location.href);
    if (target.origin !== location.origin) return `another site: ${target.href}`;
    if (target.pathname === location.pathname) return `the same page: ${location.pathname}`;
    const before = document.querySelector('h1');
    const at = ((history.state as { at?: number } | null)?.at ?? 0) + 1;
    history.pushState({ at }, '', target.href);
    dispatchEvent(new PopStateEvent('popstate', { state: { at } }));
    window.scrollTo(0, 0);
    // The page before goes when the new one is rendered; its loads start in effects run once that is painted.
    const deadline = Date.now() + 10_000;
    while (before?.isConnected && Date.now() < deadline) await new Promise((r) => requestAnimationFrame(r));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    if (before?.isConnected) return `still on the page before (${document.title})`;
    return location.pathname + location.search;
  }, address);
  if (arrived !== address) throw new Error(`the app did not show ${address}: ${arrived}`);
  await appReady(page);
}
