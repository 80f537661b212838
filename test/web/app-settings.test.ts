import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { appReady, appSuite, screenshot, signInByForm } from '../support/app-browser.js';
import * as provisioning from '../../src/domain/provisioning.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from '../oauth/support.js';
import { describeOnce } from '../support/databases.js';

const run = promisify(execFile);

/** The app's Settings pages in a real headless Chromium, against a real Herald on loopback. */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce('the web app: Settings (workspace, members, API keys, connected apps, webhooks)', function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  // The webhook endpoints this test makes are on loopback, which the SSRF guard refuses unless it is listed.
  // One Herald for the file; each test is a new person with a channel, on a tab of their own; the members they add
  // sign in on tabs of one other browser (its cookies cleared first), so the app's bundle loads twice a file.
  const app = appSuite(
    { fresh: 'once', herald: { outboundAllowHosts: ['127.0.0.1'] }, seed: { channels: 1 } },
    (rig) => ({ t, a } = rig),
  );
  let others: Page;
  before(async () => {
    others = await app.newPage();
  });
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 1 });
    await app.page.context().clearCookies();
    page = await app.newTab();
  });

  /** A tab of the other browser, nobody signed in on it. */
  async function otherTab(): Promise<Page> {
    await others.context().clearCookies();
    return app.newTab(others);
  }

  /**
   * Signs the test's person in and opens a Settings page from the navigation, as a person does: Settings from the
   * app's first page (the workspace's settings), or the section's link from the Settings page they signed in on.
   */
  async function openSettings(section: 'Workspace' | 'Members' | 'API keys' | 'Connected apps' | 'Webhooks') {
    if (section === 'Workspace') {
      await signInByForm(page, t.url, a);
      await page.click('nav[aria-label=Main] >> text=Settings');
      await appReady(page);
    } else {
      await signInByForm(page, t.url, a, '/app/settings');
      await page.click(`nav[aria-label=Settings] >> text=${section}`);
      await appReady(page);
    }
    assert.equal(await page.getAttribute(`nav[aria-label=Settings] >> text=${section}`, 'aria-current'), 'page');
  }

  /** A new member with this role, signed in in a page of their own, which shows `address`. */
  async function memberPage(email: string, role: 'editor' | 'reviewer', address = '/app'): Promise<Page> {
    const added = await t.api('POST', '/v1/rest/members', { token: a.apiKey, body: { email, name: email, role } });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const tab = await otherTab();
    await signInByForm(tab, t.url, { email, password: added.body.data.temporaryPassword }, address);
    return tab;
  }

  it(
    "requires approval for a workspace's new posts from Settings; " +
      'a member without manage_team reads it and is told who can change it',
    async () => {
      await openSettings('Workspace');
      assert.match((await page.textContent('.approval-state')) ?? '', /No approval needed/);
      assert.ok(await page.isDisabled('.workspace button[type=submit]'), 'nothing to save yet');
      await page.check(`#approval-${a.workspaceId}`);
      await page.click('.workspace button[type=submit]');
      await page.waitForSelector("text=Saved. New posts wait for a reviewer's approval");
      // Said saved as the page asks for the workspaces again: the state above shows once they are back.
      await appReady(page);
      assert.match((await page.textContent('.approval-state')) ?? '', /Approval required/);
      assert.equal(
        (await t.api('GET', `/v1/rest/workspaces/${a.workspaceId}`, { token: a.apiKey })).body.data.approvalRequired,
        true,
      );
      const held = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: a.channelIds,
          text: 'Needs a yes',
          isScheduled: true,
          dateTime: new Date(Date.now() + 86_400_000).toISOString(),
        },
      });
      assert.equal(held.body.data[0].approvalStatus, 'PENDING', 'the next post is held');

      const editor = await memberPage('eddie@example.test', 'editor', '/app/settings');
      assert.match((await editor.textContent('.approval-state')) ?? '', /Approval required/);
      assert.equal(
        await editor.locator(`#approval-${a.workspaceId}`).count(),
        0,
        'no control for a member without manage_team',
      );
      assert.match(
        (await editor.textContent('#managers-only')) ?? '',
        /Only a manager changes whether posts need approval\. Owners and admins of a workspace can/,
      );
      for (const [section, words] of [
        ['Webhooks', /only a manager adds or changes them/],
        ['Members', /Only a manager adds people and changes roles/],
      ] as const) {
        await editor.click(`nav[aria-label=Settings] >> text=${section}`);
        await appReady(editor);
        assert.match((await editor.textContent('#managers-only')) ?? '', words, section);
      }
      assert.equal(await editor.locator('select[aria-label^="Role of"]').count(), 0);
      assert.match((await editor.textContent('#members')) ?? '', /eddie@example\.test\s*editor/);
      await editor.click('nav[aria-label=Settings] >> text=API keys');
      await appReady(editor);
      assert.match((await editor.textContent('main')) ?? '', /No keys yet/, "only their own keys, not the owner's");
      assert.equal(
        await editor.locator('input[name="manageTeam"]').count(),
        0,
        'no key grants more than its creator holds',
      );
    },
  );

  it(
    'adds a webhook endpoint with its secret shown once, sends it a test, rotates, ' +
      'shows it disabled with why (and on every page), enables it again and deletes it',
    async () => {
      await openSettings('Webhooks');
      await page.waitForSelector('text=No endpoints yet');
      await page.fill('#url', 'ftp://127.0.0.1/hook');
      await page.check('label:has-text("A post is published") input');
      assert.equal(await page.isChecked('input[value="post.published"]'), true, 'each event is named in words');
      await page.click('#add-webhook button[type=submit]');
      assert.match(
        (await page.textContent('#url-problems .problem')) ?? '',
        /Use an https:\/\/ URL/,
        "the server's refusal beside the field",
      );
      assert.equal(await page.getAttribute('#url', 'aria-invalid'), 'true');

      await page.fill('#url', 'http://127.0.0.1:9/hook');
      await page.click('#add-webhook button[type=submit]');
      const secret = (await page.textContent('#secret')) ?? '';
      assert.match(secret, /^whsec_/);
      assert.match(
        (await page.textContent('#webhooks')) ?? '',
        /http:\/\/127\.0\.0\.1:9\/hook\s*A post is published\s*enabled/,
      );
      const [endpoint] = (await t.api('GET', '/v1/rest/webhooks', { token: a.apiKey })).body.data;
      assert.deepEqual(endpoint.eventTypes, ['post.published']);

      await page.click('button[aria-label="Send test to http://127.0.0.1:9/hook"]');
      await page.waitForSelector('text=A test delivery is on its way');
      assert.equal(await page.locator('#secret').count(), 0, 'shown once: gone after the next action');
      const deliveries = (await t.api('GET', `/v1/rest/webhooks/${endpoint.id}/deliveries`, { token: a.apiKey })).body
        .data;
      assert.equal(deliveries.length, 1, 'the test is queued for this endpoint');

      await page.click('button[aria-label="Rotate secret of http://127.0.0.1:9/hook"]');
      await page.waitForSelector('#secret');
      const rotated = (await page.textContent('#secret')) ?? '';
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);
      await page.reload();
      await appReady(page);
      assert.equal(await page.locator('#secret').count(), 0, 'shown once');

      await t.deps.repos.webhooks.disableEndpoint(endpoint.id, 'the receiver answered 410 Gone', Date.now());
      await page.click('nav[aria-label=Main] >> text=Posts');
      await appReady(page);
      assert.match(
        (await page.textContent('.banner')) ?? '',
        /disabled the webhook endpoint http:\/\/127\.0\.0\.1:9\/hook: the receiver answered 410 Gone/,
      );
      await page.goto(`${t.url}/app/settings/webhooks`);
      await appReady(page);
      assert.match((await page.textContent('#webhooks')) ?? '', /disabled\s*the receiver answered 410 Gone/);
      assert.equal(
        await page.locator('button[aria-label^="Send test"]').count(),
        0,
        'a disabled endpoint takes no test',
      );
      await screenshot(page, 'app-webhooks-disabled.png', { fullPage: true });
      await page.click('button[aria-label="Enable again: http://127.0.0.1:9/hook"]');
      await page.waitForSelector('text=is enabled again');
      assert.equal(
        (await t.api('GET', `/v1/rest/webhooks/${endpoint.id}`, { token: a.apiKey })).body.data.enabled,
        true,
      );

      await page.click('button[aria-label="Delete http://127.0.0.1:9/hook"]');
      await page.waitForFunction(() => document.activeElement?.textContent === 'Yes, delete', undefined, {
        timeout: 2_000,
      });
      await page.keyboard.press('Escape');
      assert.equal(
        (await t.api('GET', '/v1/rest/webhooks', { token: a.apiKey })).body.data.length,
        1,
        'Escape keeps it',
      );
      await page.click('button[aria-label="Delete http://127.0.0.1:9/hook"]');
      await page.click('text=Yes, delete');
      await page.waitForSelector('text=No endpoints yet');
      assert.deepEqual((await t.api('GET', '/v1/rest/webhooks', { token: a.apiKey })).body.data, []);
    },
  );

  it(
    'creates an API key shown once with a copy button, ' +
      'which works with curl until it is revoked in the app (from the keyboard)',
    async () => {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      await openSettings('API keys');
      await page.fill('#key-name', '   ');
      await page.click('#create-key button[type=submit]');
      assert.equal(
        await page.textContent('#key-name-problems .problem'),
        'Fill in the name.',
        "the server's refusal beside the field, in words",
      );

      await page.fill('#key-name', 'curl from the terminal');
      await page.check('input[name="manageTeam"]');
      await page.click('#create-key button[type=submit]');
      await page.waitForSelector('#new-key');
      const key = (await page.textContent('#new-key')) ?? '';
      assert.match(key, /^hk_/);
      await page.click('#copy-new-key');
      await page.waitForSelector('#copy-new-key:text("Copied")');
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
      const owner = (await t.deps.repos.accounts.getUser(a.accountId, a.userId))!.name;
      assert.match(
        (await page.textContent('#api-keys')) ?? '',
        new RegExp(`curl from the terminal\\s*hk_\\S*…\\s*read_profile, manage_post, manage_team\\s*${owner}`),
        'a manager sees who created each key',
      );
      await screenshot(page, 'app-api-keys.png', { fullPage: true });

      const curl = (token: string) =>
        run('curl', [
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '-H',
          `Authorization: Bearer ${token}`,
          `${t.url}/v1/rest/approvals`,
        ]);
      assert.equal((await curl(key)).stdout, '200', 'the key works, with the manage_team scope it was given');

      await page.goto(`${t.url}/app/settings/api-keys`);
      await appReady(page);
      assert.equal(await page.locator('#new-key').count(), 0, 'shown once');
      const row = page.locator('#api-keys tr', { hasText: 'curl from the terminal' });
      assert.notEqual(
        await row.locator('td[data-label="Last used"]').textContent(),
        'never',
        'the call shows as its last use',
      );
      await page.focus('button[aria-label="Revoke curl from the terminal"]');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement?.textContent === 'Yes, revoke', undefined, {
        timeout: 2_000,
      });
      await page.keyboard.press('Enter');
      await page.waitForSelector('#api-keys >> text=revoked');
      assert.match((await page.textContent('main [role=status].saved')) ?? '', /“curl from the terminal” is revoked/);
      assert.equal((await curl(key)).stdout, '401', 'revoked: refused at once');
    },
  );

  it('lists the OAuth apps a person authorized and revokes one, ending its tokens', async () => {
    await openSettings('Connected apps');
    await page.waitForSelector('text=No app acts for you through OAuth');

    const { client_id: clientId } = await registerClient(t, { client_name: 'Claude <desktop>' });
    const { verifier, challenge } = pkcePair();
    const redirect = await new FormUser(t.url).authorize(
      authorizeUrl(t, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: t.url + '/mcp',
      }),
      a,
    );
    const tokens = await tokenRequest(t, {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      resource: t.url + '/mcp',
    });
    assert.equal((await t.api('GET', '/v1/rest/channels', { token: tokens.body.access_token })).status, 200);

    await page.reload();
    await appReady(page);
    assert.match((await page.textContent('#connected-apps')) ?? '', /Claude <desktop>.*read_profile, manage_post/s);
    await screenshot(page, 'app-connected-apps.png', { fullPage: true });
    await page.click('button[aria-label="Revoke access of Claude <desktop>"]');
    await page.click('text=Yes, revoke access');
    await page.waitForSelector('text=No app acts for you through OAuth');
    assert.match((await page.textContent('main [role=status].saved')) ?? '', /Claude <desktop> no longer acts for you/);
    assert.equal((await t.api('GET', '/v1/rest/channels', { token: tokens.body.access_token })).status, 401);
  });

  it(
    'adds a person with a temporary password shown once and changes their role; ' +
      "the last owner stays, in the server's words",
    async () => {
      await openSettings('Members');
      await page.fill('#member-email', 'rita@example.test');
      await page.fill('#member-name', 'Rita Reviewer');
      await page.selectOption('#member-role', 'reviewer');
      await page.click('#add-member button[type=submit]');
      await page.waitForSelector('#temporary-password');
      const password = (await page.textContent('#temporary-password')) ?? '';
      assert.ok(password.length >= 16);
      await page.waitForSelector('#members >> text=Rita Reviewer');
      assert.match((await page.textContent('#members')) ?? '', /Rita Reviewer\s*rita@example\.test/);
      assert.equal(await page.inputValue('select[aria-label="Role of Rita Reviewer"]'), 'reviewer');

      await page.selectOption('select[aria-label="Role of Rita Reviewer"]', 'editor');
      await page.click('form:has(select[aria-label="Role of Rita Reviewer"]) button');
      await page.waitForSelector('text=Rita Reviewer is now editor.');
      const rita = (await t.api('GET', '/v1/rest/members', { token: a.apiKey })).body.data.find(
        (m: { email: string }) => m.email === 'rita@example.test',
      );
      assert.deepEqual(
        rita.memberships.map((m: { role: string }) => m.role),
        ['editor'],
      );
      await page.reload();
      await appReady(page);
      assert.equal(await page.inputValue('select[aria-label="Role of Rita Reviewer"]'), 'editor');
      assert.equal(await page.locator('#temporary-password').count(), 0, 'shown once');

      const owner = (await t.deps.repos.accounts.getUser(a.accountId, a.userId))!.name;
      await page.selectOption(`select[aria-label="Role of ${owner}"]`, 'admin');
      await page.click(`form:has(select[aria-label="Role of ${owner}"]) button`);
      assert.match(
        (await page.textContent(`form:has(select[aria-label="Role of ${owner}"]) [role=alert]`)) ?? '',
        /only owner: make someone else owner first/,
        'beside the role it concerns',
      );
      assert.equal(
        await page.inputValue(`select[aria-label="Role of ${owner}"]`),
        'owner',
        'the refused change is not shown as made',
      );

      const second = await provisioning.createWorkspace(t.deps, { accountId: a.accountId, name: 'Second brand' });
      await provisioning.addMember(t.deps, {
        accountId: a.accountId,
        workspaceId: second.id,
        userId: a.userId,
        role: 'owner',
      });
      await page.reload();
      await appReady(page);
      await page.selectOption('#members-workspace', { label: 'Second brand' });
      assert.equal(
        await page.inputValue('select[aria-label="Role of Rita Reviewer"]'),
        '',
        'not a member of the second workspace',
      );
      assert.ok(
        await page.isDisabled('form:has(select[aria-label="Role of Rita Reviewer"]) button'),
        'nothing to do until a role is chosen',
      );
      await page.selectOption('select[aria-label="Role of Rita Reviewer"]', 'reviewer');
      await page.click('form:has(select[aria-label="Role of Rita Reviewer"]) button:text("Add to workspace")');
      await page.waitForSelector('text=Rita Reviewer is now reviewer.');
      const memberships = (await t.api('GET', '/v1/rest/members', { token: a.apiKey })).body.data.find(
        (m: { email: string }) => m.email === 'rita@example.test',
      ).memberships;
      assert.deepEqual(
        Object.fromEntries(memberships.map((m: { workspaceId: string; role: string }) => [m.workspaceId, m.role])),
        { [a.workspaceId]: 'editor', [second.id]: 'reviewer' },
        'each workspace keeps its own role',
      );

      const signedInAsRita = await otherTab();
      await signInByForm(signedInAsRita, t.url, { email: 'rita@example.test', password });
      assert.match(
        (await signedInAsRita.textContent('header')) ?? '',
        /rita@example\.test/,
        'the temporary password signs her in',
      );
    },
  );
  it(
    'removes a person after confirming: signed out at once; ' + "removing yourself is refused in the server's words",
    async () => {
      const edna = await memberPage('edna@example.test', 'editor');
      await openSettings('Members');
      await page.click('button[aria-label="Remove edna@example.test"]');
      const listed = await t.api('GET', '/v1/rest/members', { token: a.apiKey });
      assert.equal(listed.body.data.length, 2, 'the first press only asks');
      await page.click('text=Yes, remove');
      await page.waitForSelector('text=edna@example.test was removed');
      assert.equal(await page.locator('#members >> text=edna@example.test').count(), 0, 'no longer listed');
      await edna.reload();
      assert.match(edna.url(), /\/app\/sign-in/, 'their open app is signed out');

      const owner = (await t.deps.repos.accounts.getUser(a.accountId, a.userId))!.name;
      await page.click(`button[aria-label="Remove ${owner}"]`);
      await page.click('text=Yes, remove');
      const refusal = await page.textContent(`td:has(button[aria-label="Remove ${owner}"]) [role=alert]`);
      assert.match(refusal ?? '', /cannot remove yourself/);
    },
  );
});
