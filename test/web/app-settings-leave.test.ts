import assert from 'node:assert/strict';
import type { Dialog, Page } from 'playwright-core';
import { appReady, appSuite, signInOverHttp } from '../support/app-browser.js';
import { describeOnce } from '../support/databases.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';

const QUESTION = 'Leave without saving? Your changes are lost.';

/**
 * Leaving a settings form with unsaved changes asks first, as the composer and the edit page do, in a real Chromium
 * against a real Herald: by a link, the Back button or a reload; on every form of the settings, a channel's time zone
 * and connect forms and its queue's slots; once for a page with several changed forms; and not once saved.
 */
// The app in the browser; the settings' REST calls are tested on both databases (test/rest and beside it).
describeOnce('the web app: leaving settings with unsaved changes', function () {
  this.timeout(90_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;
  // One Herald for the file; each test is a new person with a channel, on a tab of their own, signed in (each test
  // opens its first page itself).
  const app = appSuite({ fresh: 'once', seed: { channels: 1 } }, (rig) => ({ t, a } = rig));
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 1 });
    await app.page.context().clearCookies();
    page = await app.newTab();
    await signInOverHttp(page, t.url, a);
  });

  /** The questions the page asks while `act` runs, each answered as told. */
  async function asked(act: () => Promise<unknown>, answer: 'accept' | 'dismiss' = 'dismiss'): Promise<Dialog[]> {
    const dialogs: Dialog[] = [];
    const hear = (dialog: Dialog) => {
      dialogs.push(dialog);
      void (answer === 'accept' ? dialog.accept() : dialog.dismiss());
    };
    page.on('dialog', hear);
    try {
      // A question comes as the click's own task, asked before the click returns: once `act` is done, it was asked.
      await act();
    } finally {
      page.off('dialog', hear);
    }
    return dialogs;
  }

  const toPosts = () => page.click('nav[aria-label=Main] >> text=Posts');

  /** A link away asks the one question, and the page stays as it was when told to. */
  async function asksBeforeLeaving(what: string): Promise<void> {
    const from = page.url();
    const questions = await asked(toPosts);
    assert.deepEqual(
      questions.map((q) => [q.type(), q.message()]),
      [['confirm', QUESTION]],
      `${what}: asked once`,
    );
    assert.equal(page.url(), from, `${what}: stayed`);
  }

  async function leavesWithoutAsking(what: string): Promise<void> {
    const questions = await asked(async () => {
      await toPosts();
      await page.waitForURL(`${t.url}/app`);
      await appReady(page);
    });
    assert.deepEqual(
      questions.map((q) => q.message()),
      [],
      `${what}: nothing to ask`,
    );
  }

  /** Opens an address as a person types it, leaving what the page had (a reload's question accepted). */
  async function go(address: string): Promise<void> {
    await asked(() => app.open(address, page), 'accept');
  }

  async function type(selector: string, text: string) {
    await page.click(selector);
    await page.keyboard.type(text);
  }

  it('asks before a link, Back or a reload leaves a webhook half written; stays or leaves as told', async () => {
    // Reached as a person does, from the Settings page, so Back goes there.
    await go('/app/settings');
    await page.click('nav[aria-label=Settings] >> text=Webhooks');
    await appReady(page);
    await type('#url', 'https://hooks.example.com/herald');
    await asksBeforeLeaving('a link');
    assert.equal(await page.inputValue('#url'), 'https://hooks.example.com/herald', 'with the address as typed');

    // The browser has moved when the app hears of Back (popstate), so its question comes after the step.
    const back = page.waitForEvent('dialog', { timeout: 5_000 });
    await page.evaluate(() => history.back());
    const question = await back;
    assert.deepEqual([question.type(), question.message()], ['confirm', QUESTION], 'Back asks');
    await question.dismiss();
    await page.waitForFunction(() => location.pathname === '/app/settings/webhooks');
    assert.equal(await page.inputValue('#url'), 'https://hooks.example.com/herald', 'still there after Back');

    const reload = await asked(async () => {
      const question = page.waitForEvent('dialog', { timeout: 5_000 });
      // Refused, the reload never ends: it is left to fail when the page closes, instead of waiting out a timeout.
      page.reload().catch(() => undefined);
      await question;
    });
    assert.deepEqual(
      reload.map((q) => q.type()),
      ['beforeunload'],
      "a reload asks the browser's way",
    );
    assert.equal(await page.inputValue('#url'), 'https://hooks.example.com/herald', 'stayed');

    const leaving = await asked(async () => {
      await toPosts();
      await page.waitForURL(`${t.url}/app`);
    }, 'accept');
    assert.equal(leaving.length, 1);
    await appReady(page);
    assert.equal(await page.textContent('h1'), 'Posts', 'left when told to');
  });

  it('asks on every settings form with a change, and no more once it is saved', async () => {
    await go('/app/settings');
    await leavesWithoutAsking('a settings page as it was shown');
    await go('/app/settings');
    await page.check(`#approval-${a.workspaceId}`);
    await asksBeforeLeaving('the approval setting');
    await page.click('.workspace button[type=submit]');
    await page.waitForSelector("text=Saved. New posts wait for a reviewer's approval");
    await leavesWithoutAsking('the approval setting saved');

    await go('/app/settings/members');
    await type('#member-email', 'new@example.test');
    await asksBeforeLeaving('a person to add');
    await go('/app/settings/members');
    await page.selectOption(`select[aria-label^="Role of"]`, 'admin');
    await asksBeforeLeaving("a person's new role");

    await go('/app/settings/labels');
    await type('#label-name', 'Evergreen');
    await asksBeforeLeaving('a label to make');

    await go('/app/settings/webhooks');
    await type('#webhook-description', 'Our chat');
    await asksBeforeLeaving("a webhook's description");

    await go('/app/settings/api-keys');
    await type('#key-name', 'Zapier');
    await asksBeforeLeaving('a key to create');
    await page.click('#create-key button[type=submit]');
    await page.waitForSelector('#new-key');
    await leavesWithoutAsking('the key created');
  });

  it("asks on a channel's time zone, connect form and queue slots, once for a page with several changes", async () => {
    const channelId = a.channelIds[0];
    await go('/app/channels');
    await page.fill(`#zone-${channelId}`, '');
    await type(`#zone-${channelId}`, 'Europe/Paris');
    await asksBeforeLeaving("a channel's time zone");
    await type('#connect-sandbox-handle', 'our-brand');
    await asksBeforeLeaving('a time zone and a channel to connect');
    await page.click(`#zone-${channelId} ~ button[type=submit]`);
    await page.waitForSelector('text=now uses');
    await page.fill('#connect-sandbox-handle', '');
    await leavesWithoutAsking('the time zone saved and the other field emptied');

    await go(`/app/channels/${channelId}/queue`);
    await page.click('text=Add a slot');
    await asksBeforeLeaving('a slot added');
    await page.click('text=Save slots');
    await page.waitForSelector('text=Slots saved.');
    await leavesWithoutAsking('the slots saved');
  });
});
