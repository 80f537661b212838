import assert from 'node:assert/strict';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { writeWeeklyDigests } from '../../src/domain/insights/weekly-digest.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { madeUpHistory, type History } from './fixture.js';
import { testWorker } from '../publishing/support.js';
import { RECEIVER_HOST } from '../webhooks/receiver.js';

describe('insights over REST', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let history: History;
  before(async () => {
    // The webhook receiver listens on loopback (RECEIVER_HOST), which the SSRF guard refuses unless it is listed.
    t = await startTestHerald({ outboundAllowHosts: [RECEIVER_HOST] });
    a = await t.seedAccount({ channels: 2 });
    history = await madeUpHistory(t, a);
  });
  after(() => t.close());

  const get = (path: string, token = a.apiKey) => t.api('GET', `/v1/rest${path}`, { token });
  const metricsOf = async (id: string) => (await t.deps.repos.posts.get(a.accountId, id))!.metrics!;
  const engagement = (m: Record<string, number>) => m.likes + m.comments + m.shares;
  const inMarch = () => history.posts.filter((p) => p.at >= '2026-03-01' && p.at < '2026-03-29');

  it("reports a period's totals from each post's latest counters, against the period before", async () => {
    const res = await get('/insights?from=2026-03-01&to=2026-03-28');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const report = res.body.data;
    assert.deepEqual(report.period, {
      from: '2026-03-01',
      to: '2026-03-28',
      start: '2026-03-01T00:00:00.000Z',
      end: '2026-03-29T00:00:00.000Z',
    });
    assert.deepEqual(report.previousPeriod, {
      from: '2026-02-01',
      to: '2026-02-28',
      start: '2026-02-01T00:00:00.000Z',
      end: '2026-03-01T00:00:00.000Z',
    });
    const march = await Promise.all(inMarch().map((p) => metricsOf(p.id)));
    const february = await Promise.all(history.posts.filter((p) => p.at < '2026-03-01').map((p) => metricsOf(p.id)));
    const sum = (list: Record<string, number>[], f: (m: Record<string, number>) => number) =>
      list.reduce((n, m) => n + f(m), 0);
    assert.equal(report.totals.posts, 6);
    assert.equal(report.totals.engagement, sum(march, engagement));
    assert.equal(
      report.totals.reach,
      sum(march, (m) => m.impressions),
    );
    assert.ok(report.totals.engagement > 0, "the sandbox's counters grew");
    assert.equal(report.previousTotals.posts, 3);
    assert.equal(report.previousTotals.engagement, sum(february, engagement));
    assert.equal(report.change.posts, 100);
    assert.equal(
      report.change.engagement,
      Math.round(
        ((report.totals.engagement - report.previousTotals.engagement) / report.previousTotals.engagement) * 1000,
      ) / 10,
    );
    assert.deepEqual(
      report.byNetwork.map((n: any) => [n.network, n.totals.posts]),
      [['sandbox', 6]],
    );
    assert.deepEqual(
      report.byChannel.map((c: any) => c.totals.posts),
      [3, 3],
    );
    assert.ok(
      report.byChannel.every((c: any) => c.audienceEnd > c.audienceStart),
      'audiences grew over the period',
    );
    assert.deepEqual(
      report.byLabel.map((l: any) => [l.name, l.totals.posts]),
      [['Spring', inMarch().filter((p) => p.labelled).length]],
    );
    assert.equal(report.topPosts.length, 6);
    assert.deepEqual(
      report.topPosts.map((p: any) => p.engagement),
      [...report.topPosts.map((p: any) => p.engagement)].sort((x: number, y: number) => y - x),
    );
    assert.equal(report.audience.length, 2);
  });

  it("places posts by weekday and hour in their channel's zone", async () => {
    const report = (await get('/insights?from=2026-03-01&to=2026-03-28')).body.data;
    // Berlin is UTC+1 in March before the 29th: 08:10Z on Monday the 2nd is Monday 09:xx there.
    const cells = report.byWeekdayHour.map((c: any) => `${c.weekday}@${c.hour}:${c.posts}`);
    assert.deepEqual(cells, ['0@9:2', '1@9:1', '3@20:1', '4@13:1', '4@23:1']);
  });

  it("narrows to channels, labels and a workspace, and refuses what is not the account's", async () => {
    const one = (await get(`/insights?from=2026-03-01&to=2026-03-28&channelIds=${a.channelIds[1]}`)).body.data;
    assert.deepEqual([one.totals.posts, one.byChannel.length], [3, 1]);
    const labelled = (await get(`/insights?from=2026-03-01&to=2026-03-28&labelIds=${history.labelId}`)).body.data;
    assert.equal(labelled.totals.posts, inMarch().filter((p) => p.labelled).length);
    assert.equal(
      (await get(`/insights?from=2026-03-01&to=2026-03-28&workspaceId=${a.workspaceId}`)).body.data.totals.posts,
      6,
    );
    const other = await t.seedAccount({ name: 'Other', channels: 1 });
    for (const query of [
      `channelIds=${other.channelIds[0]}`,
      `workspaceId=${other.workspaceId}`,
      'labelIds=nope',
      'from=2026-03-10&to=2026-03-01',
      'from=2024-01-01&to=2026-03-01',
      'to=2026-02-30',
    ]) {
      const res = await get(`/insights?${query}`);
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.message.length > 0);
    }
    assert.equal((await get(`/posts/${history.posts[0].id}/insights`, other.apiKey)).status, 404);
    assert.equal((await get(`/channels/${a.channelIds[0]}/best-times`, other.apiKey)).status, 404);
    assert.equal(
      (await get('/insights?from=2026-03-01&to=2026-03-28', other.apiKey)).body.data.totals.posts,
      0,
      'another account sees nothing of this one',
    );
  });

  it('exports the period as CSV, one row a post', async () => {
    const res = await fetch(`${t.url}/v1/rest/insights/export?from=2026-03-01&to=2026-03-28`, {
      headers: { authorization: `Bearer ${a.apiKey}` },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    const lines = (await res.text()).trimEnd().split('\r\n');
    assert.equal(
      lines[0],
      'postId,channelId,channel,network,publishedAt,permalinkUrl,labels,text,' +
        'engagement,reach,comments,impressions,likes,shares',
    );
    assert.equal(lines.length, 7);
    const first = lines[1].split(',');
    assert.equal(first[0], inMarch()[0].id);
    assert.equal(first[6], 'Spring');
    assert.equal(Number(first[8]), engagement(await metricsOf(first[0])));
  });

  it('exports a file of many chunks whole: every row once, multibyte text and quoted fields intact', async () => {
    const b = await t.seedAccount({ channels: 1 });
    // About 5 KB a row, so the file is sent in several 64 KB chunks, a row never cut between two.
    const texts = Array.from({ length: 30 }, (_, i) => `Row ${i} ${'é'.repeat(2400)} "quoted", with a\nbreak`);
    for (const text of texts) {
      const created = await t.api('POST', '/v1/rest/posts', {
        token: b.apiKey,
        body: { channelIds: [b.channelIds[0]], text },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const worker = testWorker(t);
    while ((await worker.tick()).claimed > 0);
    const day = new Date(history.clock.now()).toISOString().slice(0, 10);
    const res = await fetch(`${t.url}/v1/rest/insights/export?from=${day}&to=${day}`, {
      headers: { authorization: `Bearer ${b.apiKey}` },
    });
    assert.equal(res.status, 200);
    const body = Buffer.from(await res.arrayBuffer());
    assert.ok(body.length > 2 * 64 * 1024, `${body.length} bytes`);
    const text = body.toString('utf8');
    assert.ok(!text.includes('\uFFFD'), 'no character cut between chunks');
    assert.equal(text.trimEnd().split('\r\n').length, 1 + texts.length);
    for (const sent of texts) {
      const field = `"${sent.replace(/"/g, '""')}"`;
      assert.equal(text.split(field).length, 2, `${sent.slice(0, 6)} once, whole`);
    }
  });

  it("tells a post's counters over time", async () => {
    const post = history.posts[0];
    const res = await get(`/posts/${post.id}/insights`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const curve = res.body.data;
    assert.equal(curve.publishedAt, new Date(post.at).toISOString());
    assert.ok(curve.samples.length >= 3, `samples: ${curve.samples.length}`);
    const reach = curve.samples.map((s: any) => s.reach);
    assert.deepEqual(
      reach,
      [...reach].sort((x: number, y: number) => x - y),
      'never falls',
    );
    assert.deepEqual(curve.samples.at(-1).counters, await metricsOf(post.id));
    assert.equal(curve.engagement, engagement(curve.counters));
  });

  it('answers the same after compaction', async () => {
    const before = (await get('/insights?from=2026-03-01&to=2026-03-28')).body.data;
    const samples = Number((await t.herald.db('post_samples').count({ n: '*' }).first())!.n);
    const swept = await purgeExpired(t.deps);
    assert.ok(swept.metricSamples > 0, 'something was compacted');
    assert.ok(Number((await t.herald.db('post_samples').count({ n: '*' }).first())!.n) < samples);
    const after = (await get('/insights?from=2026-03-01&to=2026-03-28')).body.data;
    assert.deepEqual({ ...after, audience: null }, { ...before, audience: null });
  });

  it("writes one weekly digest per workspace, through /events and webhooks, with the week's numbers", async () => {
    const hook = await t.api('POST', '/v1/rest/webhooks', {
      token: a.apiKey,
      body: { url: `http://${RECEIVER_HOST}:9/hook`, eventTypes: ['insights.weekly'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    assert.ok((await writeWeeklyDigests(t.deps)) >= 1, 'every workspace with channels, this one among them');
    assert.equal(await writeWeeklyDigests(t.deps), 0, 'once per week');
    const events = (await get('/events')).body.data.filter((e: any) => e.type === 'insights.weekly');
    assert.equal(events.length, 1);
    const digest = events[0].data;
    const week = (await get('/insights?from=2026-03-23&to=2026-03-29')).body.data;
    assert.deepEqual(digest.week, week.period);
    assert.deepEqual(
      [digest.totals, digest.previousTotals, digest.change],
      [week.totals, week.previousTotals, week.change],
    );
    assert.deepEqual(digest.bestPost, week.topPosts[0]);
    assert.deepEqual(
      digest.suggestedSlots.map((s: any) => s.channelId),
      a.channelIds,
    );
    assert.match(digest.suggestedSlots[0].note, /Only \d+ published posts?/);
    const deliveries = await t.api('GET', `/v1/rest/webhooks/${hook.body.data.id}/deliveries`, { token: a.apiKey });
    assert.deepEqual(
      deliveries.body.data.map((d: any) => d.eventType ?? d.type),
      ['insights.weekly'],
    );
  });
});
