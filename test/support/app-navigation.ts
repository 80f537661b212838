/**
 * Moving between the app's pages as its own links do: the router's history entry and popstate, no reload. A test
 * that walks many pages signs in and loads the app once, then each page costs its own data alone (not the document,
 * the bundle, who is signed in and axe put in the page again).
 */
import type { Dialog, Page } from 'playwright-core';
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

/**
 * Opening one of the app's addresses the cheapest way that still mounts its page afresh: followed inside the app
 * already on the page, as its links are (followInApp), or loaded in full where the app is not there yet (a new tab,
 * a server page) or already shows that path. A test that walks pages then costs each page its own data alone, and
 * still passes alone, whatever page an earlier test left the tab on: unsaved work an earlier step left behind is
 * let go when the app asks, as a full load lets it go.
 */
export async function openInApp(page: Page, baseUrl: string, address: string): Promise<void> {
  const origin = new URL(baseUrl).origin;
  const here = new URL(page.url());
  const there = new URL(address, baseUrl);
  const appShown =
    here.origin === origin &&
    here.pathname !== there.pathname &&
    (await page.evaluate(
      () =>
        document.getElementById('app') !== null && document.querySelector('meta[name="herald-csrf-token"]') !== null,
    ));
  if (appShown) {
    const leave = (dialog: Dialog) => (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
    page.on('dialog', leave);
    try {
      return await followInApp(page, there.pathname + there.search);
    } finally {
      page.off('dialog', leave);
    }
  }
  await page.goto(there.href);
  await appReady(page);
}

/**
 * Takes a tab an earlier test used back to a blank page, saying yes when the page asks before it is left (its unsaved
 * work is the earlier test's), at the file's size: the next test's person starts there as on a new tab, without
 * the new renderer a tab costs (about half a second each on this machine).
 */
export async function blankTab(page: Page, viewport: { width: number; height: number }): Promise<void> {
  const leave = (dialog: Dialog) => dialog.accept();
  page.on('dialog', leave);
  try {
    await page.goto('about:blank');
  } finally {
    page.off('dialog', leave);
  }
  await page.setViewportSize(viewport);
}
