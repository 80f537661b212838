/**
 * What the web app's browser tests share, so each file says only what it tests: the app built (once per run, and
 * only when what it is made of changed since the last build: web/, the SDK, the generated types, the domain rules it
 * runs); Chromium; a Herald with an account, fresh for each test or one for the suite (`appSuite`); signing in as a
 * person does; waiting until a page has its data; screenshots where the docs take them from; axe's verdict.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { AxeBuilder } from '@axe-core/playwright';
import type { AxeResults, Result, RunOptions } from 'axe-core';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import type { Config } from '../../src/config.js';
import { launchChromium } from './chromium.js';
import { startTestHerald, type SeededAccount, type TestHerald } from './herald.js';
import { ensureWebBuilt } from './web-build.js';

/** Where the browser tests leave their screenshots (those in docs/ come from here). */
export const ARTIFACTS = path.resolve('test-artifacts');
/** Every page at every size, from the accessibility suite, and the other states the tests show. */
export const SCREENSHOTS = path.join(ARTIFACTS, 'screenshots');

/** The sizes every page is checked and shown at (issue 31: a laptop and a phone). */
export const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

let processBrowser: Promise<Browser> | undefined;

/**
 * The process's one Chromium, for every suite and form of its tests, with the screenshots' folder ready and, unless
 * the pages are the server's own (`webApp` false: sign-in, consent), the app built: mocha's parallel workers run file
 * after file, and a launch costs each file one or two seconds. Each suite still has contexts of its own, closed after
 * it; the browser ends with the process (Playwright closes what it launched when the process exits), or is launched
 * again if it went away.
 */
export async function sharedAppBrowser(webApp = true): Promise<Browser> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  processBrowser ??= launchChromium().then((browser) => {
    browser.on('disconnected', () => {
      processBrowser = undefined;
    });
    return browser;
  });
  const launching = processBrowser;
  try {
    const [browser] = await Promise.all([launching, webApp && ensureWebBuilt()]);
    return browser;
  } catch (error) {
    if (processBrowser === launching) processBrowser = undefined;
    throw error;
  }
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

/**
 * Signs in through the same sign-in form over HTTP, with the page's own cookie jar (the context's request client),
 * then opens `address` (the app's first page by default) and waits for its data: the session a person's sign-in
 * starts, without drawing the sign-in page. signInToApp stays for the tests of signing in itself.
 */
export async function signInByForm(
  page: Page,
  baseUrl: string,
  who: { email: string; password: string },
  address = '/app',
): Promise<void> {
  await signInOverHttp(page, baseUrl, who);
  await page.goto(`${baseUrl}${address}`);
  await appReady(page);
}

/** signInByForm's session alone, for a test that opens its first page itself (nobody signed in on the page yet). */
export async function signInOverHttp(
  page: Page,
  baseUrl: string,
  who: { email: string; password: string },
): Promise<void> {
  const form = await (await page.request.get(`${baseUrl}/app/sign-in`)).text();
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(form)?.[1];
  if (!csrf) throw new Error('the sign-in page has no CSRF token');
  const answer = await page.request.post(`${baseUrl}/app/sign-in`, {
    form: { csrf_token: csrf, email: who.email, password: who.password },
    maxRedirects: 0,
  });
  if (answer.status() !== 303) throw new Error(`signing in answered ${answer.status()}: ${await answer.text()}`);
}

/** The requests a page made by `newPage` has in flight, and when the last one started or ended. */
const traffic = new WeakMap<Page, { pending: number; changed: number }>();

function trackRequests(page: Page): void {
  const state = { pending: 0, changed: Date.now() };
  page.on('request', () => {
    state.pending++;
    state.changed = Date.now();
  });
  const ended = () => {
    state.pending = Math.max(0, state.pending - 1);
    state.changed = Date.now();
  };
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  traffic.set(page, state);
}

/**
 * How long a tracked page must have had no request in flight to count as done loading. Playwright's networkidle
 * waits 500 ms after the last one, on every page of every browser test: a fifth of some files' time. A load one
 * answer starts comes within milliseconds of it, and a part of the page still loading shows its placeholder.
 */
const QUIET_MS = 150;

async function quiet(page: Page): Promise<void> {
  const state = traffic.get(page);
  if (!state) return page.waitForLoadState('networkidle');
  const deadline = Date.now() + 30_000;
  while (state.pending > 0 || Date.now() - state.changed < QUIET_MS) {
    if (Date.now() > deadline) throw new Error(`${state.pending} requests still in flight after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The page has rendered its heading and every load it started has arrived (no placeholder left). */
export async function appReady(page: Page): Promise<void> {
  await page.waitForSelector('h1');
  await page.waitForLoadState('load');
  for (;;) {
    await quiet(page);
    const changed = traffic.get(page)?.changed;
    await page.waitForFunction(() => document.querySelectorAll('main .loading').length === 0);
    // A placeholder that went away brought its own requests: wait for those too.
    if (traffic.get(page)?.changed === changed) return;
  }
}

/** Saves what the page shows under test-artifacts/ (`name` may name a folder in it, e.g. screenshots/x.png). */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const file = path.join(ARTIFACTS, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: options.fullPage });
  return file;
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe.run in the page (on `include`, or the whole document), axe put there once for as long as the document lives:
 * AxeBuilder puts its 500 kB in again for every run, most of a run's time on the app's pages.
 */
export async function runAxe(page: Page, options: RunOptions, include?: string): Promise<Result[]> {
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

/** axe's violations one line each (rule, impact, what to fix, where): the serious and critical ones, or every one. */
export function axeLines(violations: Result[], every = false): string[] {
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

/**
 * What axe-core finds on the page as it is now (axeLines: the serious and critical ones, the issue's bar, or every
 * one with `every`). Run in the page, where only the violations' elements are described (a selector and HTML of
 * every element that passed cost as much again); a page with a frame is run the usual way, which reaches into it.
 */
export async function axeViolations(page: Page, options: { every?: boolean } = {}): Promise<string[]> {
  if (page.frames().length === 1) return axeLines(await runAxe(page, {}), options.every);
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
  return axeLines(results.violations, options.every);
}

type SeedOptions = Parameters<TestHerald['seedAccount']>[0];

export interface AppSuiteOptions {
  /** A fresh Herald, account and page for each test (the default), or one of each for the whole suite. */
  fresh?: 'each' | 'once';
  /** Settings of the Herald (startTestHerald's overrides). */
  herald?: Partial<Config>;
  /** The account seeded in it. */
  seed?: SeedOptions;
  /** The page's context (viewport, time zone), or false when the tests make their own pages with `newPage`. */
  page?: BrowserContextOptions | false;
  /** The page signed in as the account's owner before the tests. */
  signedIn?: boolean;
  /** False when the suite's pages are the server's own (sign-in, consent), so the app need not be built for it. */
  webApp?: boolean;
}

/** What a suite's tests work with, handed to them whenever it is new. */
export interface AppRig {
  browser: Browser;
  t: TestHerald;
  a: SeededAccount;
  /** Undefined with `page: false` until a test makes one. */
  page: Page;
}

export interface AppSuite extends AppRig {
  /** Opens an address of this Herald on the page (or `on`) and waits until it has its data. */
  open(address: string, on?: Page): Promise<void>;
  /** Signs the page (or `on`) in as the account's owner, or as someone else. */
  signIn(on?: Page, who?: { email: string; password: string }): Promise<void>;
  /** Another page in a context of its own, closed after the test (after the suite when made outside one). */
  newPage(context?: BrowserContextOptions): Promise<Page>;
  /**
   * A new tab beside the suite's page (or `beside`, e.g. a page from `newPage` kept for another person), in its
   * context (its cookies, storage and cache: the app's bundle is fetched and compiled once a file), closed after the
   * test. With `fresh: 'once'`, a test starts on a page of its own.
   */
  newTab(beside?: Page): Promise<Page>;
  /** Stops this Herald and starts one with other settings and a new account, closed as the first would be. */
  restartHerald(herald: Partial<Config>, seed?: SeedOptions): Promise<void>;
}

/**
 * Registers a browser suite's hooks in the describe block it is called in: Chromium for the suite; a Herald, its
 * account and a page, per test or once; everything closed after. `use` hears of each new rig, so a suite keeps
 * its own short names (`t`, `a`, `page`).
 */
export function appSuite(options: AppSuiteOptions = {}, use: (rig: AppRig) => void = () => {}): AppSuite {
  const perTest = (options.fresh ?? 'each') === 'each';
  const pages = { test: [] as Page[], suite: [] as Page[] };
  const tabs = { test: [] as Page[], suite: [] as Page[] };
  let inTest = false;
  const suite = {} as AppSuite;
  const tell = () => use({ browser: suite.browser, t: suite.t, a: suite.a, page: suite.page });

  async function startRig() {
    suite.t = await startTestHerald(options.herald);
    suite.a = await suite.t.seedAccount(options.seed);
    if (options.page !== false) {
      suite.page = await suite.newPage(options.page);
      if (options.signedIn) await suite.signIn();
    }
    tell();
  }
  async function closeRig(kind: 'test' | 'suite') {
    for (const tab of tabs[kind].splice(0)) await tab.close();
    for (const page of pages[kind].splice(0)) await page.context().close();
    await suite.t?.close();
  }

  Object.assign(suite, {
    async open(address: string, on = suite.page) {
      await on.goto(`${suite.t.url}${address}`);
      await appReady(on);
    },
    signIn(on = suite.page, who = suite.a) {
      return signInToApp(on, suite.t.url, who.email, who.password);
    },
    async newPage(context: BrowserContextOptions = {}) {
      const page = await (await suite.browser.newContext(context)).newPage();
      trackRequests(page);
      pages[inTest ? 'test' : 'suite'].push(page);
      return page;
    },
    async newTab(beside = suite.page) {
      if (!beside) throw new Error("newTab opens beside the suite's page: this suite has none (page: false)");
      const tab = await beside.context().newPage();
      trackRequests(tab);
      tabs[inTest ? 'test' : 'suite'].push(tab);
      return tab;
    },
    async restartHerald(herald: Partial<Config>, seed = options.seed) {
      await suite.t.close();
      suite.t = await startTestHerald(herald);
      suite.a = await suite.t.seedAccount(seed);
      tell();
    },
  });

  before(async () => {
    suite.browser = await sharedAppBrowser(options.webApp !== false);
    tell();
    if (!perTest) await startRig();
  });
  after(async () => {
    if (!perTest) await closeRig('suite');
    for (const page of pages.suite.splice(0)) await page.context().close();
  });
  beforeEach(async () => {
    inTest = true;
    if (perTest) await startRig();
  });
  afterEach(async () => {
    inTest = false;
    if (perTest) await closeRig('test');
    else {
      for (const tab of tabs.test.splice(0)) await tab.close();
      for (const page of pages.test.splice(0)) await page.context().close();
    }
  });
  return suite;
}
