import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appReady, appSuite, signInByForm } from '../support/app-browser.js';
import { startLocalBluesky } from '../support/bluesky-pds.js';
import { startFakeAppView } from '../support/fake-bluesky-appview.js';
import { startFakeMastodon } from '../support/fake-mastodon.js';
import { testWorker } from '../publishing/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/** The team's pages of the web app (approvals, a channel's queue, the channels) in a real Chromium on a real Herald. */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce('the web app: approvals, queues and channels', function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  // The Mastodon instance the channels tests name is a fake on 127.0.0.1, which the SSRF guard refuses unless listed.
  // One Herald for the file; each test is a new person with two channels, on a tab of their own.
  const app = appSuite(
    { fresh: 'once', herald: { outboundAllowHosts: ['127.0.0.1'] }, seed: { channels: 2 } },
    (rig) => ({ t, a, page } = rig),
  );
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 2 });
    await app.page.context().clearCookies();
    page = await app.newTab();
  });
  /** Signs the test's person in and opens `path` (the app's first page by default). */
  const signIn = (path?: string) => signInByForm(page, t.url, a, path);

  const rest = (method: string, path: string, body?: unknown) =>
    t.api(method, `/v1/rest${path}`, { token: a.apiKey, body });
  const open = (path: string) => app.open(path, page);
  const schedule = async (channelId = a.channelIds[0]) =>
    (await rest('GET', `/channels/${channelId}/schedule`)).body.data;

  describe('approvals', () => {
    beforeEach(async () => {
      a = await t.seedAccount({ approvalRequired: true, channels: 1 });
    });
    const hold = async (text: string) =>
      (await rest('POST', '/posts', { channelIds: [a.channelIds[0]], text })).body.data[0].id as string;

    it('approves several held posts at once, reporting each', async () => {
      for (const text of ['One', 'Two']) await hold(text);
      await signIn('/app/approvals');
      for (const box of await page.locator('input[name=postIds]').all()) await box.check();
      // The list asked for after the decision is held back: meanwhile the page must not report what it still lists.
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let asked!: () => void;
      const askedAgain = new Promise<void>((resolve) => {
        asked = resolve;
      });
      await page.route(/\/v1\/rest\/approvals\?/, async (route) => {
        asked();
        await released;
        await route.continue();
      });
      await page.click('text=Approve selected');
      await askedAgain;
      assert.equal(await page.locator('#results li').count(), 0, 'no outcome beside the list from before the decision');
      release();
      await page.waitForSelector('#results li');
      assert.equal(await page.locator('#results li').count(), 2);
      assert.match((await page.textContent('#results')) ?? '', /One: approved[\s\S]*Two: approved/);
      await page.waitForSelector('text=Nothing is waiting for approval');
      const listed = (await rest('GET', '/approvals')).body.data;
      assert.deepEqual(listed, []);
    });

    it('approves a post from the inbox (published now, its time passed); refuses one without CSRF', async () => {
      const postId = await hold('Needs a yes');
      await signIn('/app/approvals');
      assert.match((await page.textContent('main')) ?? '', /Needs a yes/);
      await page.click('text=Needs a yes');
      await page.waitForURL(`${t.url}/app/posts/${postId}`);
      await page.goBack();
      await appReady(page);
      const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const forged = await fetch(`${t.url}/v1/rest/approvals/decisions`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ postIds: [postId], decision: 'reject', reason: 'forged' }),
      });
      assert.equal(forged.status, 403, 'the session alone does not decide');
      assert.equal((await rest('GET', `/posts/${postId}`)).body.data.approvalStatus, 'PENDING');

      await page.click('button[aria-label="Approve “Needs a yes”"]');
      await page.waitForSelector('#results li');
      assert.match((await page.textContent('#results')) ?? '', /Needs a yes: approved/);
      assert.equal((await rest('GET', `/posts/${postId}`)).body.data.approvalStatus, 'APPROVED');
      const history = (await rest('GET', `/posts/${postId}/history`)).body.data;
      assert.deepEqual(
        history.map((e: { kind: string }) => e.kind),
        ['created', 'approved'],
      );
      assert.equal(history[1].details.publishesNow, true);
      assert.equal(history[1].actorUserId, a.userId, 'decided as the signed-in person');
    });

    it('does not approve a post its author changed after the inbox showed it, and says so', async () => {
      const postId = await hold('As first written');
      await signIn('/app/approvals');
      assert.match((await page.textContent('main')) ?? '', /As first written/);
      assert.equal((await rest('PATCH', `/posts/${postId}`, { text: 'Changed behind the reviewer' })).status, 200);
      await page.click('button[aria-label="Approve “As first written”"]');
      await page.waitForSelector('#results li');
      assert.match(
        (await page.textContent('#results')) ?? '',
        /As first written: changed since this page showed it: read it again before deciding/,
      );
      assert.equal(
        (await rest('GET', `/posts/${postId}`)).body.data.approvalStatus,
        'PENDING',
        'the unseen text was not approved',
      );
      assert.match(
        (await page.textContent('main')) ?? '',
        /Changed behind the reviewer/,
        'the list shows what it says now',
      );
    });

    it('rejects with a reason (said beside the field when missing); shows posts assigned to me or anyone', async () => {
      const mine = await hold('For me');
      const other = await hold('For anyone');
      assert.equal((await rest('POST', `/posts/${mine}/assign`, { reviewerUserId: a.userId })).status, 200);
      await signIn('/app/approvals');
      assert.equal(await page.locator('input[name=postIds]').count(), 2);
      // The answer for the new filter is held back, so what the page shows meanwhile can be seen.
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route(/\/v1\/rest\/approvals\?.*assignedTo=me/, async (route) => {
        await released;
        await route.continue();
      });
      await page.check('text=me (assigned to me)');
      await page.waitForURL(/\/app\/approvals\?assigned=me$/);
      await page.waitForSelector('main .loading');
      assert.equal(
        await page.locator('table.approvals').count(),
        0,
        'the list for anyone is not shown as the list for me',
      );
      release();
      await appReady(page);
      assert.deepEqual(await page.locator('table.approvals tbody td:nth-child(2)').allTextContents(), ['For me']);
      assert.match((await page.textContent('table.approvals tbody')) ?? '', /you/);

      await page.check('input[aria-label="Select “For me”"]');
      await page.click('text=Reject selected');
      assert.match((await page.textContent('#reason-problems .problem')) ?? '', /Give a reason/);
      assert.equal(
        await page.getAttribute('#reason', 'aria-describedby'),
        'reason-problems',
        'tied to the field for screen readers',
      );
      await page.fill('#reason', 'Wrong launch date');
      await page.click('text=Reject selected');
      await page.waitForSelector('#results li');
      assert.match((await page.textContent('#results')) ?? '', /For me: rejected/);
      const rejected = (await rest('GET', `/posts/${mine}`)).body.data;
      assert.equal(rejected.approvalStatus, 'REJECTED');
      assert.equal(rejected.rejectionReason, 'Wrong launch date');
      assert.match((await page.textContent('main')) ?? '', /Nothing is waiting for approval that is assigned to you/);

      await page.check('text=anyone (every held post)');
      await page.waitForURL(/\/app\/approvals$/);
      await appReady(page);
      assert.deepEqual(await page.locator('table.approvals tbody td:nth-child(2)').allTextContents(), ['For anyone']);
      assert.equal((await rest('GET', `/posts/${other}`)).body.data.approvalStatus, 'PENDING');
    });
  });

  describe("a channel's queue", () => {
    it('edits weekly slots (a refused one explained beside it), pauses, resumes, clears with a count', async () => {
      await signIn('/app/channels');
      await page.click(`a[href="/app/channels/${a.channelIds[0]}/queue"]`);
      await appReady(page);
      assert.match((await page.textContent('main h1')) ?? '', /^Queue of /);
      assert.match((await page.textContent('main')) ?? '', /No slots yet/);
      await page.click('text=Add a slot');
      await page.click('text=Add a slot');
      await page.selectOption('select[aria-label="Day of slot 2"]', 'wed');
      await page.fill('input[aria-label="Time of slot 2"]', '12:30');
      await page.click('text=Save slots');
      await page.waitForSelector('text=Slots saved.');
      assert.deepEqual((await schedule()).slots, [
        { day: 'mon', time: '09:00' },
        { day: 'wed', time: '12:30' },
      ]);
      assert.equal(await page.inputValue('input[aria-label="Time of slot 2"]'), '12:30');

      await page.click('text=Add a slot');
      await page.click('text=Save slots');
      assert.match(
        (await page.textContent('#slot-2-problems .problem')) ?? '',
        /Remove the duplicate/,
        'the refusal is beside the slot it concerns',
      );
      assert.equal((await schedule()).slots.length, 2, 'nothing saved');
      await page.click('button[aria-label="Remove slot 3"]');

      const queued = await rest('POST', '/posts', {
        channelIds: [a.channelIds[0]],
        text: 'In the queue',
        addToQueue: true,
      });
      assert.equal(queued.status, 201, JSON.stringify(queued.body));
      await open(`/app/channels/${a.channelIds[0]}/queue`);
      assert.match((await page.textContent('#queued')) ?? '', /In the queue/);
      await page.click('button:has-text("Pause")');
      await page.waitForSelector('#paused');
      assert.equal(await page.textContent('#paused'), 'Paused');
      assert.equal((await schedule()).queuePaused, true);
      await page.click('button:has-text("Resume")');
      await page.waitForSelector('#paused', { state: 'detached' });
      assert.equal((await schedule()).queuePaused, false);

      await page.click('text=Clear the queue');
      assert.match((await page.textContent('#would-clear')) ?? '', /removes 1 queued post/);
      assert.equal(
        await page.evaluate(() => document.activeElement?.textContent),
        'Clear them',
        'the question has the focus',
      );
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.activeElement?.textContent === 'Clear the queue…');
      assert.equal((await rest('GET', `/posts/${queued.body.data[0].id}`)).status, 200, 'declining removed nothing');
      await page.click('text=Clear the queue');
      assert.equal(
        (await rest('GET', `/posts/${queued.body.data[0].id}`)).status,
        200,
        'nothing removed before confirming',
      );
      await page.click('text=Clear them');
      await page.waitForSelector('#cleared');
      assert.match((await page.textContent('#cleared')) ?? '', /Removed 1 post/);
      assert.equal((await rest('GET', `/posts/${queued.body.data[0].id}`)).status, 404);
      assert.match((await page.textContent('main')) ?? '', /The queue is empty/);
    });

    it('reorders the queue by dragging a post onto another, and with its buttons from the keyboard', async () => {
      await rest('PUT', `/channels/${a.channelIds[0]}/schedule`, {
        slots: [
          { day: 'mon', time: '09:00' },
          { day: 'wed', time: '09:00' },
          { day: 'fri', time: '09:00' },
        ],
      });
      const ids: string[] = [];
      for (const text of ['First', 'Second', 'Third']) {
        const res = await rest('POST', '/posts', { channelIds: [a.channelIds[0]], text, addToQueue: true });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids.push(res.body.data[0].id);
      }
      const order = async () => (await schedule()).queued.map((q: { postId: string }) => q.postId);
      const times = (await schedule()).queued.map((q: { dateTime: string }) => q.dateTime);
      await signIn(`/app/channels/${a.channelIds[0]}/queue`);
      await page.dragAndDrop(`#queued li[data-post-id="${ids[2]}"]`, `#queued li[data-post-id="${ids[0]}"]`);
      await page.waitForSelector(`#queued li:nth-child(1)[data-post-id="${ids[2]}"]`);
      assert.deepEqual(
        await order(),
        [ids[2], ids[0], ids[1]],
        'the third post takes the first slot; the others follow',
      );
      assert.deepEqual(
        (await schedule()).queued.map((q: { dateTime: string }) => q.dateTime),
        times,
        'the slot times stay',
      );

      await page.focus('button[aria-label="Move “Second” up"]');
      await page.keyboard.press('Enter');
      await page.waitForSelector(`#queued li:nth-child(2)[data-post-id="${ids[1]}"]`);
      assert.deepEqual(await order(), [ids[2], ids[1], ids[0]]);
      assert.equal(
        await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
        'Move “Second” up',
        'focus stays with the moved post',
      );
      await page.keyboard.press('Enter');
      await page.waitForSelector(`#queued li:nth-child(1)[data-post-id="${ids[1]}"]`);
      assert.equal(
        await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
        'Move “Second” down',
        'at the top, focus moves to the button that still works',
      );
      assert.deepEqual(await order(), [ids[1], ids[2], ids[0]]);
    });
  });

  describe('channels', () => {
    it('connects Mastodon by consent, shows what to set, reconnects (named loudly), disconnects', async () => {
      const mastodon = await startFakeMastodon();
      try {
        await signIn('/app/channels');
        assert.match(
          (await page.textContent('section[data-network="youtube"]')) ?? '',
          /operator must set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/,
        );
        assert.equal(
          await page.locator('section[data-network="youtube"] form').count(),
          0,
          'no form for a network this instance cannot connect',
        );
        await page.fill('#connect-mastodon-instance', mastodon.url);
        await page.click('section[data-network="mastodon"] button');
        await page.waitForURL(/\/connect\/mastodon\/callback/);
        await open('/app/channels');
        const [channel] = (await rest('GET', '/channels')).body.data.filter(
          (c: { network: string }) => c.network === 'mastodon',
        );
        const row = `tr[data-channel-id="${channel.id}"]`;
        assert.match(
          (await page.textContent(row)) ?? '',
          new RegExp(`active.*@alice@${mastodon.host.replace(/\./g, '\\.')}`, 's'),
        );

        mastodon.revokeAll();
        const post = await rest('POST', '/posts', { channelIds: [channel.id], text: 'After the token was revoked' });
        await testWorker(t).tick();
        assert.match((await rest('GET', `/posts/${post.body.data[0].id}`)).body.data.error, /reconnect/);
        await open('/app');
        assert.match(
          (await page.textContent('.banner')) ?? '',
          /The Mastodon channel .* needs reconnecting \(.*The access token is invalid.*\)/,
          'shown on every page',
        );
        await open('/app/channels');
        assert.match(
          (await page.textContent('.alarm[role=alert]')) ?? '',
          /A channel needs reconnecting[\s\S]*Mastodon[\s\S]*The access token is invalid/,
          'and loudly on the channels page',
        );
        await page.click(`tr.needs-reconnect button:has-text("Reconnect at Mastodon")`);
        await page.waitForURL(/\/connect\/mastodon\/callback/);
        await open('/app/channels');
        assert.equal(await page.locator('tr.needs-reconnect').count(), 0);
        assert.equal(await page.locator('.alarm').count(), 0);
        assert.equal(
          (await rest('GET', '/channels')).body.data.find((c: { id: string }) => c.id === channel.id).status,
          'active',
        );

        const focused = () => page.evaluate(() => document.activeElement?.textContent);
        await page.focus(`${row} button[aria-label^="Disconnect"]`);
        await page.keyboard.press('Enter');
        assert.equal(await focused(), 'Yes, disconnect', 'the question has the focus');
        assert.equal(mastodon.tokens(), 1, 'nothing happens before confirming');
        await page.keyboard.press('Escape');
        await page.waitForFunction(() => document.activeElement?.textContent === 'Disconnect');
        await page.click(`${row} button[aria-label^="Disconnect"]`);
        await page.click(`${row} button:has-text("Yes, disconnect")`);
        await page.waitForSelector(`${row} .status.disconnected`);
        assert.match((await page.textContent('[role=status]')) ?? '', /is disconnected\..*revoked at the network/);
        assert.equal(mastodon.tokens(), 0, 'disconnecting revoked the token at the instance');
      } finally {
        await mastodon.close();
      }
    });

    it("gives a channel connected through the network's consent the browser's time zone, said in words", async () => {
      const mastodon = await startFakeMastodon();
      const tokyo = await app.newPage({ timezoneId: 'Asia/Tokyo' });
      try {
        await signInByForm(tokyo, t.url, a, '/app/channels');
        await tokyo.fill('#connect-mastodon-instance', mastodon.url);
        await tokyo.click('section[data-network="mastodon"] button');
        await tokyo.waitForURL(/\/connect\/mastodon\/callback/);
        const [channel] = (await rest('GET', '/channels')).body.data.filter(
          (c: { network: string }) => c.network === 'mastodon',
        );
        assert.equal(channel.timezone, 'Asia/Tokyo', 'made in the zone of the browser that started connecting');
        await app.open('/app/channels', tokyo);
        const words = await tokyo.textContent(`#zone-${channel.id}-words`);
        assert.equal(words, 'Tokyo time (UTC+09:00)');
        await tokyo.click(`a[href="/app/channels/${channel.id}/queue"]`);
        await appReady(tokyo);
        const main = (await tokyo.textContent('main')) ?? '';
        assert.match(main, /Time zone Tokyo time \(UTC\+09:00\)/);
        assert.ok(!main.includes('Asia/Tokyo'), 'the queue names its zone in words');
      } finally {
        await mastodon.close();
      }
    });

    it('connects Bluesky from its credentials form, saying why when Bluesky refuses the app password', async () => {
      const appView = await startFakeAppView();
      const bsky = await startLocalBluesky({ appView });
      appView.pdsUrl = bsky.pdsUrl;
      try {
        // The PDS a person names is on this machine, which the SSRF guard refuses unless listed.
        const herald = {
          outboundAllowHosts: ['localhost', '127.0.0.1'],
          networkOriginOverrides: { 'https://bsky.social': bsky.pdsUrl, 'https://plc.directory': bsky.plcUrl },
        };
        // A Herald of its own, whose network addresses are this PDS's.
        const local = await startTestHerald(herald);
        try {
          const owner = await local.seedAccount({ channels: 0 });
          const channels = async () => (await local.api('GET', '/v1/rest/channels', { token: owner.apiKey })).body.data;
          const who = await bsky.createAccount(`team${Date.now().toString(36)}.test`);
          await signInByForm(page, local.url, owner, '/app/channels');
          assert.match((await page.textContent('main')) ?? '', /No channels yet: connect one below/);
          await page.fill('#connect-bluesky-identifier', who.handle);
          await page.fill('#connect-bluesky-appPassword', 'wrong-wrong-wrong-wrong');
          assert.equal(
            await page.getAttribute('#connect-bluesky-appPassword', 'type'),
            'password',
            'a secret is not shown',
          );
          await page.click('section[data-network="bluesky"] button:has-text("Connect")');
          await page.waitForSelector('section[data-network="bluesky"] [role=alert]');
          assert.match(
            (await page.textContent('section[data-network="bluesky"] [role=alert]')) ?? '',
            /Bluesky refused the identifier or app password/,
          );
          assert.deepEqual(await channels(), []);

          await page.fill('#connect-bluesky-appPassword', who.appPassword);
          await page.click('section[data-network="bluesky"] button:has-text("Connect")');
          await page.waitForSelector(`text=Connected`);
          const [channel] = await channels();
          assert.equal(channel.network, 'bluesky');
          assert.equal(channel.handle, who.handle);
          assert.match(
            (await page.textContent(`tr[data-channel-id="${channel.id}"]`)) ?? '',
            new RegExp(`active[\\s\\S]*${who.handle.replace(/\./g, '\\.')}`),
          );
          assert.equal(
            await page.inputValue('#connect-bluesky-appPassword'),
            '',
            'the form forgets the app password once connected',
          );
        } finally {
          await local.close();
        }
      } finally {
        await appView.close();
        await bsky.close();
      }
    });

    it('connects a sandbox channel by its handle, saying what a handle may be when it is refused', async () => {
      await signIn('/app/channels');
      await page.fill('#connect-sandbox-handle', 'no spaces/please');
      await page.click('section[data-network="sandbox"] button:has-text("Connect")');
      await page.waitForSelector('section[data-network="sandbox"] [role=alert]');
      assert.match(
        (await page.textContent('section[data-network="sandbox"] [role=alert]')) ?? '',
        /letters, digits, dots, dashes or underscores/,
      );
      await page.fill('#connect-sandbox-handle', 'our-brand');
      await page.click('section[data-network="sandbox"] button:has-text("Connect")');
      await page.waitForSelector('text=Connected our-brand.');
      const channels = (await rest('GET', '/channels')).body.data;
      assert.equal(channels.length, 3);
      const added = channels.find((c: { handle: string }) => c.handle === 'our-brand');
      assert.match((await page.textContent(`tr[data-channel-id="${added.id}"]`)) ?? '', /active[\s\S]*our-brand/);
      assert.equal(
        await page.locator('section[data-network="sandbox"] [role=alert]').count(),
        0,
        'the refusal is gone once it connected',
      );
    });

    it("sets a channel's time zone, explaining an unknown one beside the field", async () => {
      await signIn('/app/channels');
      const field = `#zone-${a.channelIds[1]}`;
      assert.equal(await page.inputValue(field), 'Europe/Berlin');
      await page.fill(field, 'Mars/Olympus');
      await page.press(field, 'Enter');
      await page.waitForSelector(`${field}-problems`);
      assert.match(
        (await page.textContent(`${field}-problems`)) ?? '',
        /^Choose a time zone from the list: type its city/,
      );
      await page.fill(field, 'America/New_York');
      await page.click(`tr[data-channel-id="${a.channelIds[1]}"] button:has-text("Save")`);
      await page.waitForSelector('text=now uses New York time');
      const channels = (await rest('GET', '/channels')).body.data;
      assert.deepEqual(
        channels.map((c: { timezone: string }) => c.timezone),
        ['Europe/Berlin', 'America/New_York'],
      );
      await page.click(`a[href="/app/channels/${a.channelIds[1]}/queue"]`);
      await appReady(page);
      assert.match((await page.textContent('main')) ?? '', /Time zone New York time \(UTC-0[45]:00\)/);
    });
  });
});
