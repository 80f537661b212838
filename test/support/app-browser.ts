/**
 * What the web app's browser tests share: the app built (once per run, and only when what it is made of changed since
 * the last build: web/, the SDK, the generated types, the domain rules it runs), Chromium opened beside it, signing in
 * as a person does, and waiting until a page has its data.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildWeb, WEB_DIST } from '../../scripts/build-web.js';
import { launchChromium } from './chromium.js';

/** Where the browser tests leave their screenshots (those in docs/ come from here). */
export const ARTIFACTS = path.resolve('test-artifacts');

let built: Promise<unknown> | undefined;

function newestChange(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

export function ensureWebBuilt(): Promise<unknown> {
  built ??= (async () => {
    const manifest = path.join(WEB_DIST, 'manifest.json');
    // The bundle also takes the domain rules the browser runs as they are (ARCHITECTURE.md, The web app).
    const inputs = ['web/src', 'sdk/src', 'generated/rest', 'src/domain'];
    const sources = Math.max(...inputs.map((dir) => newestChange(path.resolve(dir))));
    if (fs.existsSync(manifest) && fs.statSync(manifest).mtimeMs > sources) return;
    await buildWeb();
  })();
  return built;
}

/** A suite's Chromium, opened while the app is built, with the screenshots' folder ready. */
export async function openAppBrowser(): Promise<Browser> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const [browser] = await Promise.all([launchChromium(), ensureWebBuilt()]);
  return browser;
}

/** Signs in on the sign-in page and waits for the app's first page to have its data. */
export async function signInToApp(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/app/sign-in`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${baseUrl}/app`);
  await appReady(page);
}

/** The page has rendered its heading and every load it started has arrived (no placeholder left). */
export async function appReady(page: Page): Promise<void> {
  await page.waitForSelector('h1');
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0);
}
