/**
 * The rehearsal before each slot (domain/posts/preflight.ts, publishing/preflight-step.ts), through the real Herald
 * on both databases: each reason marks the post at risk with what to do, a mended cause clears it, the events reach
 * a webhook receiver, and several workers rehearse each post once per window. The networks are their fakes.
 */
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { callTool } from '../mcp/support.js';
import { TINY_JPEG, TINY_PNG } from '../media/fixtures.js';
import { startFakeInstagram, type FakeInstagram } from '../support/fake-instagram.js';
import { startFakeX, type FakeX } from '../support/fake-x.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import type { ManualClock } from '../support/manual-clock.js';
import { serveMediaFiles } from '../support/media-files.js';
import { RECEIVER_HOST, startReceiver, type Receiver } from '../webhooks/receiver.js';
import { eventually, heraldMediaChecker, pinClock, testWorker } from './support.js';

const MINUTE = 60_000;

describe(`preflight: rehearsing posts before their slots (${TEST_DB})`, function () {
  this.timeout(60_000);
  const media: Record<string, { type: string; body: Buffer | string }> = {};
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let t: TestHerald;
  let a: SeededAccount;
  let clock: ManualClock;
  let receiver: Receiver | undefined;
  let x: FakeX | undefined;
  let instagram: FakeInstagram | undefined;

  before(async () => {
    files = await serveMediaFiles(media);
  });
  after(() => files?.close());
  beforeEach(() => {
    media['/picture.png'] = { type: 'image/png', body: TINY_PNG };
    media['/picture.jpg'] = { type: 'image/jpeg', body: TINY_JPEG };
    media['/launch'] = { type: 'text/html', body: '<!DOCTYPE html><title>Launch</title>' };
  });
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
    await x?.close();
    await instagram?.close();
    receiver = x = instagram = undefined;
  });

  async function start(overrides: Parameters<typeof startTestHerald>[0] = {}) {
    // The test's files and receiver are on loopback, which the SSRF guard refuses unless listed.
    t = await startTestHerald({ outboundAllowHosts: ['127.0.0.1', RECEIVER_HOST], ...overrides });
    clock = pinClock(t, new Date(Math.floor(Date.now() / MINUTE) * MINUTE).toISOString());
    a = await t.seedAccount({ channels: 1 });
  }

  function worker() {
    return testWorker(t, {}, undefined, heraldMediaChecker(t));
  }

  async function schedule(body: Record<string, unknown>, inMinutes = 20, channelId = a.channelIds[0]) {
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [channelId],
        isScheduled: true,
        dateTime: new Date(clock.now() + inMinutes * MINUTE).toISOString(),
        ...body,
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0].id as string;
  }

  async function read(id: string) {
    const res = await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  }

  async function events(type: string) {
    const res = await t.api('GET', '/v1/rest/events', { token: a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.data as any[]).filter((e) => e.type === type);
  }

  it(
    'a media file gone (404) marks the post at risk with what to do, ' +
      'tells a webhook, and a file put back clears it',
    async () => {
      await start();
      receiver = await startReceiver();
      const hook = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { url: receiver.url, eventTypes: ['post.at_risk', 'post.risk_cleared'] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const imageUrl = `${files.origin}/picture.png`;
      const id = await schedule({ text: 'With a picture', imageUrls: [imageUrl] });
      const w = worker();

      await w.rehearse();
      assert.equal((await read(id)).risk, null, 'the file is there: no risk');
      delete media['/picture.png'];
      await w.rehearse();
      assert.equal((await read(id)).risk, null, 'rehearsed once per window: nothing new taken');

      // An edit (here, of the text) has the post rehearsed again.
      assert.equal(
        (await t.api('PATCH', `/v1/rest/posts/${id}`, { token: a.apiKey, body: { text: 'With a picture, edited' } }))
          .status,
        200,
      );
      await w.rehearse();
      const atRisk = await read(id);
      assert.equal(atRisk.status, 'scheduled', 'the post keeps its status; the risk is a field beside it');
      assert.match(atRisk.risk.reason, /404/);
      assert.match(atRisk.risk.advice, /Replace the file/);
      assert.equal(atRisk.risk.checkedAt, new Date(clock.now()).toISOString());

      await w.tick();
      assert.deepEqual(
        receiver.received.map((r) => r.event.type),
        ['post.at_risk'],
      );
      const delivered = receiver.received[0].event;
      assert.equal(delivered.data.post.id, id);
      assert.equal(delivered.data.reason, atRisk.risk.reason);
      assert.equal(delivered.data.advice, atRisk.risk.advice);
      assert.equal(delivered.data.post.risk.reason, atRisk.risk.reason);

      // Still broken at the next look: no second event.
      clock.advance(5 * MINUTE);
      await w.rehearse();
      assert.equal((await events('post.at_risk')).length, 1);

      media['/picture.png'] = { type: 'image/png', body: TINY_PNG };
      clock.advance(5 * MINUTE);
      await w.rehearse();
      assert.equal((await read(id)).risk, null, 'the file is back: the risk is cleared before the slot');
      await w.tick();
      assert.deepEqual(
        receiver.received.map((r) => r.event.type),
        ['post.at_risk', 'post.risk_cleared'],
      );
    },
  );

  it(
    'a dead link in the text marks the post at risk; ' +
      'a post outside the window and one with live links are not rehearsed or pass',
    async () => {
      await start();
      const dead = await schedule({ text: `Read more: ${files.origin}/gone.` });
      const alive = await schedule({ text: `Read more: ${files.origin}/launch` });
      const later = await schedule({ text: `Read more: ${files.origin}/gone-too` }, 120);
      await worker().rehearse();
      const risk = (await read(dead)).risk;
      assert.equal(risk.reason, `The link ${files.origin}/gone is gone (HTTP 404).`);
      assert.match(risk.advice, /Fix or remove the link/);
      assert.equal((await read(alive)).risk, null);
      assert.equal((await read(later)).risk, null, 'two hours ahead: not yet rehearsed');
      const [event] = await events('post.at_risk');
      assert.equal(event.data.post.id, dead);

      const listed = await t.api('GET', '/v1/rest/posts/scheduled?atRisk=true', { token: a.apiKey });
      assert.deepEqual(
        (listed.body.data as any[]).map((p) => p.id),
        [dead],
      );

      const tool = await callTool(t, a.apiKey, 'get_scheduled_posts', {});
      assert.equal(tool.body.result.isError, undefined, JSON.stringify(tool.body));
      const fromMcp = (tool.body.result.structuredContent.data as any[]).find((p) => p.id === dead);
      assert.deepEqual(fromMcp.risk, risk, 'MCP tools that return posts carry the risk too');

      // At its time the post goes out all the same (the link is the person's to judge): the attempt settles the risk.
      clock.advance(21 * MINUTE);
      await worker().tick();
      assert.equal((await read(dead)).status, 'published');
      const row = await t.herald.db('posts').where({ id: dead }).first('risk');
      assert.equal(row.risk, null, 'an end state drops the risk');
      assert.deepEqual((await t.api('GET', '/v1/rest/posts/scheduled?atRisk=true', { token: a.apiKey })).body.data, []);
    },
  );

  it(
    'on the defaults a new user has: a channel needing reconnecting is a risk; ' +
      'a link the guard may not fetch is not judged',
    async () => {
      await start({ outboundAllowHosts: [] });
      assert.deepEqual(t.config.outboundAllowHosts, [], 'no host is let past the SSRF guard');
      const unjudged = await schedule({ text: `Read more: ${files.origin}/gone` });
      await worker().rehearse();
      assert.equal(
        (await read(unjudged)).risk,
        null,
        "a loopback link is not Herald's to judge, so no risk is claimed",
      );

      const id = await schedule({ text: 'Before the channel is reconnected?' });
      await t.herald.db('channels').where({ id: a.channelIds[0] }).update({ status: 'needs_reconnect' });
      await worker().rehearse();
      const { risk } = await read(id);
      assert.match(risk.reason, /needs reconnecting/);
      assert.match(risk.advice, /^Reconnect the channel on the Channels page before /);
      assert.equal((await events('post.at_risk')).length, 1);
    },
  );

  it(
    'a post at risk is rehearsed once more when claimed: ' +
      'a link mended in the last minutes clears it as it goes out',
    async () => {
      await start();
      const id = await schedule({ text: `Tickets: ${files.origin}/tickets` });
      const w = worker();
      await w.rehearse();
      assert.match((await read(id)).risk.reason, /is gone \(HTTP 404\)/);
      media['/tickets'] = { type: 'text/html', body: '<!DOCTYPE html><title>Tickets</title>' };
      clock.advance(21 * MINUTE);
      await w.tick();
      assert.equal((await read(id)).status, 'published');
      const types = ((await t.api('GET', '/v1/rest/events', { token: a.apiKey })).body.data as any[])
        .filter((e) => e.data.post?.id === id)
        .map((e) => e.type);
      assert.deepEqual(types, [
        'post.created',
        'post.scheduled',
        'post.at_risk',
        'post.risk_cleared',
        'post.published',
      ]);
    },
  );

  it('a running worker rehearses beside its loop, and still publishes what is due meanwhile', async () => {
    // The post's link is on loopback, which the SSRF guard refuses unless it is listed.
    t = await startTestHerald({ outboundAllowHosts: ['127.0.0.1'] });
    a = await t.seedAccount({ channels: 1 });
    const later = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [a.channelIds[0]],
        text: `Soon: ${files.origin}/nowhere`,
        isScheduled: true,
        dateTime: new Date(Date.now() + 20 * MINUTE).toISOString(),
      },
    });
    const running = testWorker(t, { pollMs: 20, preflightPollMs: 50 }, undefined, heraldMediaChecker(t));
    running.start();
    try {
      const now = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text: 'Right now' },
      });
      const risk = await eventually(
        async () =>
          (await t.api('GET', `/v1/rest/posts/${later.body.data[0].id}`, { token: a.apiKey })).body.data.risk ??
          undefined,
        'the risk',
      );
      assert.match(risk.reason, /nowhere is gone \(HTTP 404\)/);
      await eventually(
        async () => ((await read(now.body.data[0].id)).status === 'published' ? true : undefined),
        'the due post published',
      );
    } finally {
      await running.stop();
    }
  });

  it('several workers at once rehearse each post once in its window', async () => {
    await start();
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await schedule({ text: `Post ${i} ${files.origin}/gone-${i}` }, 10 + i));
    const repo = t.deps.repos.publishing;
    const taken = await Promise.all([0, 1, 2].map(() => repo.claimRehearsals(clock.now(), 30 * MINUTE, 5 * MINUTE, 4)));
    const all = taken.flatMap((posts) => posts.map((p) => p.id));
    assert.equal(new Set(all).size, all.length, 'no post taken twice');
    assert.deepEqual([...all].sort(), [...ids].sort());
    await Promise.all([worker().rehearse(), worker().rehearse()]);
    assert.equal((await events('post.at_risk')).length, 0, 'taken already: nothing rehearsed again');
  });

  describe('X', () => {
    it('an expired token that cannot be renewed marks the post at risk, saying to reconnect', async () => {
      const channelId = await connectX(() => {
        x!.tokenLifetimeSeconds = 600;
      });
      const id = await schedule({ text: 'Before the token lapses?' }, 20, channelId);
      x!.revokeAll();
      await worker().rehearse();
      const { risk } = await read(id);
      assert.match(risk.reason, /^X would not renew the channel's connection/);
      assert.match(risk.advice, /^Reconnect the X channel herald_dev on the Channels page before /);
      const channel = ((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[]).find(
        (c) => c.id === channelId,
      );
      assert.equal(
        channel.status,
        'needs_reconnect',
        'the refusal reached the channel through the vault, as at publishing',
      );
    });

    it('a token that lapses before the slot is renewed by the rehearsal, and the post passes', async () => {
      const channelId = await connectX(() => {
        x!.tokenLifetimeSeconds = 600;
      });
      const id = await schedule({ text: 'Renewed in time' }, 20, channelId);
      const before = x!.issuedTokens().length;
      await worker().rehearse();
      assert.equal((await read(id)).risk, null);
      assert.ok(x!.issuedTokens().length > before, 'a refresh was made');
    });

    it("X's daily post cap reached marks the next post at risk until the cap resets", async () => {
      const channelId = await connectX(() => undefined);
      const due = await schedule({ text: 'Due now' }, 1, channelId);
      const next = await schedule({ text: 'Twenty minutes later' }, 20, channelId);
      const reset = Math.floor(clock.now() / 1000) + 20 * 3600;
      x!.failNext(
        '/2/tweets',
        429,
        { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
        {
          'x-user-limit-24hour-limit': '17',
          'x-user-limit-24hour-remaining': '0',
          'x-user-limit-24hour-reset': String(reset),
        },
      );
      clock.advance(2 * MINUTE);
      const w = worker();
      await w.tick();
      assert.equal((await read(due)).status, 'scheduled', 'waiting for the reset');
      await w.rehearse();
      const { risk } = await read(next);
      assert.equal(
        risk.reason,
        `X has asked Herald to wait until ${new Date(reset * 1000).toISOString()} ` +
          'before posting on this channel again: its posting limit is spent.',
      );
      assert.match(risk.advice, /later than planned, or move it to after then/);
    });

    /** Connects an X account through the fake's consent, with the fake prepared first. */
    async function connectX(prepare: () => void) {
      x = await startFakeX();
      prepare();
      await start({
        networkOriginOverrides: { 'https://x.com': x.url, 'https://api.x.com': x.url },
        networks: { ...loadConfig({}).networks, apps: { x: { clientId: x.clientId, clientSecret: x.clientSecret } } },
      });
      x.redirectUris.push(`${t.url}/connect/x/callback`);
      const started = await t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'x' } });
      const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
      assert.equal((await fetch(consent.headers.get('location')!)).status, 200);
      return ((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[]).find(
        (c) => c.network === 'x',
      ).id as string;
    }
  });

  it('an Instagram publishing limit reached marks the post at risk; quota back, the risk clears', async () => {
    instagram = await startFakeInstagram();
    await start({
      networkOriginOverrides: {
        'https://www.instagram.com': instagram.url,
        'https://api.instagram.com': instagram.url,
        'https://graph.instagram.com': instagram.url,
        'https://www.facebook.com': instagram.facebookUrl,
        'https://graph.facebook.com': instagram.facebookUrl,
      },
      networks: {
        ...loadConfig({}).networks,
        apps: { instagram: { clientId: instagram.appId, clientSecret: instagram.appSecret, graphVersion: 'v23.0' } },
      },
    });
    instagram.redirectUris.push(`${t.url}/connect/instagram/callback`);
    const started = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'instagram' },
    });
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    assert.equal((await fetch(consent.headers.get('location')!)).status, 200);
    const channelId = ((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[]).find(
      (c) => c.network === 'instagram',
    ).id;

    instagram.quotaTotal = 0;
    const id = await schedule({ text: 'A picture', imageUrls: [`${files.origin}/picture.jpg`] }, 20, channelId);
    const w = worker();
    await w.rehearse();
    const { risk } = await read(id);
    assert.equal(risk.reason, 'The Instagram account has used its 0 posts through the API in the last 24 hours.');
    assert.match(risk.advice, /once the network allows it again, later than planned/);

    instagram.quotaTotal = 100;
    clock.advance(5 * MINUTE);
    await w.rehearse();
    assert.equal((await read(id)).risk, null);
    assert.equal((await events('post.risk_cleared')).length, 1);
  });
});
