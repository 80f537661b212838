/**
 * A network's connect form on the app's Channels page (built from GET /networks), filled and sent as a person does:
 * what it answers is either the network's refusal, as the form shows it, or the page saying what was connected.
 */
import type { Page } from 'playwright-core';
import { sharedAppBrowser, signInByForm } from './app-browser.js';

export interface ConnectForm {
  page: Page;
  /** The labels of the form's fields, in order, as a person reads them. */
  labels(): Promise<string[]>;
  /** Fills the fields given (by their API names) and presses Connect. */
  send(fields: Record<string, string>): Promise<void>;
  /** What the form says after a refusal (its alert, or a field's problems, each an alert). */
  refusal(): Promise<string>;
  /** Waits until the page says the channel is connected, and returns what it said. */
  connected(): Promise<string>;
  close(): Promise<void>;
}

export async function openConnectForm(
  baseUrl: string,
  person: { email: string; password: string },
  network: string,
): Promise<ConnectForm> {
  const context = await (await sharedAppBrowser()).newContext();
  const page = await context.newPage();
  // Signing in is not what these tests are about: the sign-in form's request, then the Channels page alone.
  await signInByForm(page, baseUrl, person, '/app/channels');
  const form = `section[data-network="${network}"]`;
  return {
    page,
    labels: async () =>
      (await page.locator(`${form} label`).allTextContents()).map((l) => l.replace(/\s+/g, ' ').trim()),
    async send(fields) {
      for (const [name, value] of Object.entries(fields)) await page.fill(`#connect-${network}-${name}`, value);
      await page.click(`${form} button[type=submit]`);
    },
    async refusal() {
      await page.waitForSelector(`${form} [role=alert]`);
      return (await page.locator(`${form} [role=alert]`).allTextContents()).join(' ');
    },
    async connected() {
      await page.waitForSelector('[role=status] >> text=Connected');
      return (await page.textContent('[role=status]')) ?? '';
    },
    close: () => context.close(),
  };
}
