/**
 * Opening one of the app's addresses the cheapest way that still mounts its page afresh: followed inside the app
 * already on the page, as its links are (followInApp), or loaded in full where the app is not there yet (a new tab,
 * a server page) or already shows that path. A test that walks pages then costs each page its own data alone, and
 * still passes alone, whatever page an earlier test left the tab on: unsaved work an earlier step left behind is
 * let go when the app asks, as a full load lets it go.
 */
import type { Dialog, Page } from 'playwright-core';
import { appReady } from './app-browser.js';
import { followInApp } from './app-navigation.js';

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
