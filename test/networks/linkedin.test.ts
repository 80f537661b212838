import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { startFakeLinkedIn, VIDEO_PART_BYTES, type FakeLinkedIn } from '../support/fake-linkedin.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';

/** LinkedIn through its documented wire format (test/support/fake-linkedin.ts), through the real Herald. */
describe('LinkedIn, against a fake that speaks its documented API', function () {
  this.timeout(60_000);
  let linkedin: FakeLinkedIn;
  let files: http.Server;
  let imageUrl: string;
  let videoUrl: string;
  const video = Buffer.alloc(VIDEO_PART_BYTES + 1000, 7);
  let t: TestHerald;
  let a: SeededAccount;
  const ORG = 'urn:li:organization:2414183';

  before(async () => {
    files = http.createServer((req, res) => {
      if (req.url?.startsWith('/film.mp4')) res.writeHead(200, { 'content-type': 'video/mp4' }).end(video);
      else res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    imageUrl = `${origin}/picture.png`;
    videoUrl = `${origin}/film.mp4`;
  });
  after(() => files?.close());

  async function start(app: Partial<{ apiVersion: string; organizations: boolean }> = {}, configured = true) {
    linkedin = await startFakeLinkedIn();
    const defaults = loadConfig({}).networks;
    t = await startTestHerald({
      networkOriginOverrides: { 'https://www.linkedin.com': linkedin.url, 'https://api.linkedin.com': linkedin.url },
      networks: {
        ...defaults,
        apps: configured
          ? { linkedin: { clientId: linkedin.clientId, clientSecret: linkedin.clientSecret, apiVersion: '202510', organizations: true, ...app } }
          : {},
      },
      outboundAllowHosts: ['127.0.0.1'],
    });
    linkedin.redirectUris.push(`${t.url}/connect/linkedin/callback`);
    a = await t.seedAccount({ channels: 0 });
  }
  afterEach(async () => {
    await t?.close();
    await linkedin?.close();
  });

  /** Starts connecting, plays the member at LinkedIn's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(path = '/v1/rest/channels/connect', body: Record<string, unknown> = { network: 'linkedin' }) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302, await consent.text());
    const page = await fetch(consent.headers.get('location')!);
    return { authorizationUrl: new URL(started.body.authorizationUrl), status: page.status, html: await page.text() };
  }

  async function channels() {
    return (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[];
  }

  async function channelOf(networkAccountId: string) {
    const row = await t.herald.db('channels').where({ network_account_id: networkAccountId }).first();
    return (await channels()).find((c) => c.id === row.id);
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function schedule(channelId: string, body: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  describe('connecting', () => {
    it('connects the member and every Page they administer from one consent, each as its own channel', async () => {
      await start();
      const first = await connectThroughConsent();
      assert.equal(first.status, 200, first.html);
      assert.match(first.html, /Connected/);
      assert.equal(first.authorizationUrl.origin, linkedin.url, 'the real www.linkedin.com, rewritten by NETWORK_ORIGIN_OVERRIDES');
      assert.equal(first.authorizationUrl.pathname, '/oauth/v2/authorization');
      assert.equal(first.authorizationUrl.searchParams.get('redirect_uri'), `${t.url}/connect/linkedin/callback`);
      assert.deepEqual(first.authorizationUrl.searchParams.get('scope')!.split(' ').sort(),
        ['openid', 'profile', 'r_organization_social', 'rw_organization_admin', 'w_member_social', 'w_organization_social']);
      const listed = await channels();
      assert.deepEqual(listed.map((c) => [c.network, c.handle, c.displayName, c.status]).sort(), [
        ['linkedin', 'Ada Lovelace', 'Ada Lovelace', 'active'],
        ['linkedin', 'analytical-engines', 'Analytical Engines Ltd', 'active'],
      ]);
      const row = await t.herald.db('channels').where({ network_account_id: ORG }).first();
      assert.ok(row.credentials.startsWith('v1.'), 'sealed in the vault');
      assert.ok(Number(row.credentials_expire_at) > Date.now() + 59 * 24 * 3600_000, 'LinkedIn\'s 60-day expiry is kept');

      // Connecting again updates the same two channels; a reconnect of the Page keeps to the Page.
      await connectThroughConsent();
      assert.equal((await channels()).length, 2);
      const page = await channelOf(ORG);
      const again = await connectThroughConsent(`/v1/rest/channels/${page.id}/reconnect`, {});
      assert.equal(again.status, 200, again.html);
      assert.equal((await channels()).length, 2);
    });

    it('asks only for the member\'s scopes when the operator says the app has no Page product', async () => {
      await start({ organizations: false });
      const connected = await connectThroughConsent();
      assert.equal(connected.status, 200, connected.html);
      assert.deepEqual(connected.authorizationUrl.searchParams.get('scope')!.split(' ').sort(), ['openid', 'profile', 'w_member_social']);
      assert.deepEqual((await channels()).map((c) => c.handle), ['Ada Lovelace']);
    });

    it('a denied consent or a scope the app lacks creates nothing and says why; an unconfigured LinkedIn refuses to connect', async () => {
      await start();
      linkedin.denyNext = true;
      const denied = await connectThroughConsent();
      assert.equal(denied.status, 400);
      assert.match(denied.html, /LinkedIn did not grant access \(The user cancelled the authorization\)/);
      linkedin.productScopes = ['openid', 'profile', 'w_member_social'];
      const unauthorized = await connectThroughConsent();
      assert.equal(unauthorized.status, 400);
      assert.match(unauthorized.html, /Scope &quot;w_organization_social&quot; is not authorized for your application|Scope "w_organization_social" is not authorized/);
      assert.equal((await channels()).length, 0);
      await t.close();
      await linkedin.close();

      await start({}, false);
      const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
      assert.equal(networks.body.data.find((n: any) => n.name === 'linkedin').configured, false);
      const refused = await t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'linkedin' } });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /not configured for LinkedIn/);
    });
  });

  describe('publishing', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it('publishes text as the member with the configured LinkedIn-Version, the post URN from x-restli-id', async () => {
      const member = await channelOf('urn:li:person:Xy12AbCd');
      const post = await schedule(member.id, { text: 'Hello, LinkedIn (ünïcödé)' });
      await testWorker(t).tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      const [made] = linkedin.posts;
      assert.equal(made.author, 'urn:li:person:Xy12AbCd');
      assert.equal(made.commentary, 'Hello, LinkedIn (ünïcödé)');
      assert.equal(made.visibility, 'PUBLIC');
      assert.equal(published.permalinkUrl, `https://www.linkedin.com/feed/update/${made.id}/`);
      assert.deepEqual([...linkedin.versionsSeen], ['202510']);
    });
  });
});
