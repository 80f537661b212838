import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as provisioning from '../../src/domain/provisioning.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';
import { DAY, HOUR, pinClock } from './support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

describe('team: posting queue over REST', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let berlin: string;
  let newYork: string;
  let clock: ReturnType<typeof pinClock>;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 2 });
    berlin = a.channelIds[0];
    newYork = (
      await provisioning.addChannel(t.deps, {
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        network: 'sandbox',
        handle: '@ny',
        timezone: 'America/New_York',
      })
    ).id;
    clock = pinClock(t, '2027-01-01T00:00:00Z');
  });
  after(() => t.close());

  const api = (method: string, path: string, body?: unknown, token = a.apiKey) =>
    t.api(method, `/v1/rest${path}`, { token, body });
  const setSlots = (channelId: string, slots: string) =>
    api('PUT', `/channels/${channelId}/schedule`, {
      slots: slots.split(',').map((s) => ({ day: s.trim().split(' ')[0], time: s.trim().split(' ')[1] })),
    });
  const queue = async (channelId: string, text: string) => {
    const res = await api('POST', '/posts', { channelIds: [channelId], text, addToQueue: true });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  };
  const clear = async (channelId: string) =>
    assert.equal((await api('POST', `/channels/${channelId}/queue/clear`, { dryRun: false })).status, 200);

  it('stores slots and shows them on the channel record with the paused flag', async () => {
    const res = await setSlots(berlin, 'tue 12:30, mon 09:00');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.slots, [
      { day: 'mon', time: '09:00' },
      { day: 'tue', time: '12:30' },
    ]);
    const channels = await api('GET', '/channels');
    const channel = channels.body.data.find((c: any) => c.id === berlin);
    assert.deepEqual(channel.schedule, res.body.data.slots);
    assert.equal(channel.queuePaused, false);
    const bad = await api('PUT', `/channels/${berlin}/schedule`, { slots: [{ day: 'mon', time: '25:00' }] });
    assert.equal(bad.status, 400);
  });

  it('keeps wall-clock slots across the March and October 2027 changes in Europe/Berlin', async () => {
    await setSlots(berlin, 'sat 09:00,sun 02:30,mon 09:00');
    clock.set('2027-03-26T12:00:00Z');
    const spring = [await queue(berlin, 's1'), await queue(berlin, 's2'), await queue(berlin, 's3')];
    // 09:00 CET, 02:30 falls in the gap -> 03:30 CEST, 09:00 CEST.
    assert.deepEqual(
      spring.map((p) => p.dateTime),
      ['2027-03-27T08:00:00.000Z', '2027-03-28T01:30:00.000Z', '2027-03-29T07:00:00.000Z'],
    );
    assert.ok(spring.every((p) => p.isScheduled === true && p.inQueue === true && p.status === 'scheduled'));
    await clear(berlin);
    clock.set('2027-10-29T12:00:00Z');
    const autumn = [await queue(berlin, 'a1'), await queue(berlin, 'a2'), await queue(berlin, 'a3')];
    // 09:00 CEST, 02:30 happens twice -> the first (CEST), 09:00 CET.
    assert.deepEqual(
      autumn.map((p) => p.dateTime),
      ['2027-10-30T07:00:00.000Z', '2027-10-31T00:30:00.000Z', '2027-11-01T08:00:00.000Z'],
    );
    await clear(berlin);
  });

  it('keeps wall-clock slots across the March and November 2027 changes in America/New_York', async () => {
    await setSlots(newYork, 'sat 09:00,sun 02:30,mon 09:00');
    clock.set('2027-03-12T12:00:00Z');
    const spring = [await queue(newYork, 's1'), await queue(newYork, 's2'), await queue(newYork, 's3')];
    assert.deepEqual(
      spring.map((p) => p.dateTime),
      ['2027-03-13T14:00:00.000Z', '2027-03-14T07:30:00.000Z', '2027-03-15T13:00:00.000Z'],
    );
    await clear(newYork);
    await setSlots(newYork, 'sat 09:00,sun 01:30,mon 09:00');
    clock.set('2027-11-05T12:00:00Z');
    const autumn = [await queue(newYork, 'a1'), await queue(newYork, 'a2'), await queue(newYork, 'a3')];
    // 01:30 on 7 November happens at 05:30Z (EDT) and 06:30Z (EST): the first is used, once.
    assert.deepEqual(
      autumn.map((p) => p.dateTime),
      ['2027-11-06T13:00:00.000Z', '2027-11-07T05:30:00.000Z', '2027-11-08T14:00:00.000Z'],
    );
    const schedule = await api('GET', `/channels/${newYork}/schedule`);
    assert.equal(schedule.body.data.nextFreeSlots[0], '2027-11-13T14:00:00.000Z');
    await clear(newYork);
  });

  it('refuses addToQueue with a time, and on a channel without slots, saying why', async () => {
    clock.set('2027-01-04T06:00:00Z');
    const both = await api('POST', '/posts', {
      channelIds: [berlin],
      text: 'x',
      addToQueue: true,
      isScheduled: true,
      dateTime: '2027-02-01T00:00:00Z',
    });
    assert.equal(both.status, 400);
    assert.match(both.body.message, /addToQueue cannot be combined with isScheduled, dateTime/);
    const noSlots = await api('POST', '/posts', { channelIds: [a.channelIds[1]], text: 'x', addToQueue: true });
    assert.equal(noSlots.status, 400);
    assert.match(noSlots.body.message, /no free queue slot/);
  });

  it('queues a draft through PATCH addToQueue', async () => {
    await setSlots(berlin, 'mon 09:00,tue 09:00,wed 09:00,thu 09:00,fri 09:00');
    clock.set('2027-01-04T06:00:00Z');
    const draft = await api('POST', '/posts', { channelIds: [berlin], text: 'draft', saveAsDraft: true });
    const res = await api('PATCH', `/posts/${draft.body.data[0].id}`, { addToQueue: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data[0].dateTime, '2027-01-04T08:00:00.000Z');
    assert.equal(res.body.data[0].isDraft, false);
    assert.equal(res.body.data[0].inQueue, true);
    await clear(berlin);
  });

  it('pause holds the queue; resume moves posts whose slot passed to the next free slots', async () => {
    clock.set('2027-01-04T06:00:00Z'); // Monday
    const [p1, p2, p3] = [await queue(berlin, 'p1'), await queue(berlin, 'p2'), await queue(berlin, 'p3')];
    assert.deepEqual(
      [p1, p2, p3].map((p) => p.dateTime),
      ['2027-01-04T08:00:00.000Z', '2027-01-05T08:00:00.000Z', '2027-01-06T08:00:00.000Z'],
    );
    const paused = await api('POST', `/channels/${berlin}/queue/pause`);
    assert.equal(paused.body.data.queuePaused, true);
    assert.equal((await api('GET', '/channels')).body.data.find((c: any) => c.id === berlin).queuePaused, true);
    clock.set('2027-01-05T12:00:00Z'); // p1's and p2's slots passed while paused
    const resumed = await api('POST', `/channels/${berlin}/queue/resume`);
    assert.equal(resumed.body.data.queuePaused, false);
    assert.deepEqual(resumed.body.data.queued, [
      { postId: p3.id, dateTime: '2027-01-06T08:00:00.000Z', text: p3.text },
      { postId: p1.id, dateTime: '2027-01-07T08:00:00.000Z', text: p1.text },
      { postId: p2.id, dateTime: '2027-01-08T08:00:00.000Z', text: p2.text },
    ]);
    const history = await api('GET', `/posts/${p1.id}/history`);
    assert.deepEqual(
      history.body.data.map((e: any) => e.kind),
      ['queued', 'queue_moved'],
    );
    assert.equal(history.body.data[1].details.reason, 'resumed');
    await clear(berlin);
  });

  it('reorder moves a post to a position and the slots follow', async () => {
    clock.set('2027-01-04T06:00:00Z');
    const [a1, a2, a3] = [await queue(berlin, 'a'), await queue(berlin, 'b'), await queue(berlin, 'c')];
    const res = await api('POST', `/channels/${berlin}/queue/reorder`, { postId: a3.id, position: 1 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.queued, [
      { postId: a3.id, dateTime: '2027-01-04T08:00:00.000Z', text: a3.text },
      { postId: a1.id, dateTime: '2027-01-05T08:00:00.000Z', text: a1.text },
      { postId: a2.id, dateTime: '2027-01-06T08:00:00.000Z', text: a2.text },
    ]);
    const last = await api('POST', `/channels/${berlin}/queue/reorder`, { postId: a3.id, position: 99 });
    assert.deepEqual(
      last.body.data.queued.map((q: any) => q.postId),
      [a1.id, a2.id, a3.id],
    );
    const middle = await api('POST', `/channels/${berlin}/queue/reorder`, { postId: a1.id, position: 2 });
    assert.deepEqual(
      middle.body.data.queued.map((q: any) => q.postId),
      [a2.id, a1.id, a3.id],
    );
    assert.deepEqual(
      middle.body.data.queued.map((q: any) => q.dateTime),
      ['2027-01-04T08:00:00.000Z', '2027-01-05T08:00:00.000Z', '2027-01-06T08:00:00.000Z'],
    );
    const notQueued = await api('POST', '/posts', {
      channelIds: [berlin],
      text: 'timed',
      isScheduled: true,
      dateTime: '2027-02-01T00:00:00Z',
    });
    const refused = await api('POST', `/channels/${berlin}/queue/reorder`, {
      postId: notQueued.body.data[0].id,
      position: 1,
    });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'post_not_queued');
    await api('DELETE', `/posts/${notQueued.body.data[0].id}`);
  });

  it('clear only reports until dryRun is false', async () => {
    const before = (await api('GET', `/channels/${berlin}/schedule`)).body.data.queued.map((q: any) => q.postId);
    assert.equal(before.length, 3);
    const report = await api('POST', `/channels/${berlin}/queue/clear`, {});
    assert.deepEqual(report.body, { dryRun: true, postIds: before });
    assert.equal((await api('GET', `/channels/${berlin}/schedule`)).body.data.queued.length, 3);
    const removed = await api('POST', `/channels/${berlin}/queue/clear`, { dryRun: false });
    assert.deepEqual(removed.body, { dryRun: false, postIds: before });
    assert.equal((await api('GET', `/channels/${berlin}/schedule`)).body.data.queued.length, 0);
    assert.equal((await api('GET', `/posts/${before[0]}`)).status, 404);
  });

  it('gives concurrent addToQueue requests distinct slots', async () => {
    await setSlots(berlin, 'mon 09:00,tue 09:00,wed 09:00,thu 09:00,fri 09:00');
    clock.set('2027-01-04T06:00:00Z');
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api('POST', '/posts', { channelIds: [berlin], text: `c${i}`, addToQueue: true }),
      ),
    );
    assert.deepEqual(
      made.map((r) => r.status),
      [201, 201, 201, 201, 201, 201],
      JSON.stringify(made.map((r) => r.body)),
    );
    const times = made.map((r) => r.body.data[0].dateTime).sort();
    assert.deepEqual(times, [
      '2027-01-04T08:00:00.000Z',
      '2027-01-05T08:00:00.000Z',
      '2027-01-06T08:00:00.000Z',
      '2027-01-07T08:00:00.000Z',
      '2027-01-08T08:00:00.000Z',
      '2027-01-11T08:00:00.000Z',
    ]);
    await clear(berlin);
  });

  it('rejects a live post in the queue and keeps other accounts out', async () => {
    const live = await insertLivePost(t.deps, a, clock.now() - DAY);
    const res = await api('POST', `/channels/${berlin}/queue/reorder`, { postId: live.id, position: 1 });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'live_post_read_only');
    const other = await t.seedAccount();
    assert.equal((await api('GET', `/channels/${berlin}/schedule`, undefined, other.apiKey)).status, 404);
    assert.equal((await api('POST', `/channels/${berlin}/queue/pause`, undefined, other.apiKey)).status, 404);
    const mine = await queue(berlin, 'mine');
    assert.equal((await api('GET', `/posts/${mine.id}/history`, undefined, other.apiKey)).status, 404);
    assert.equal((await api('GET', `/posts/${mine.id}/history`)).status, 200);
    // Given a time of its own, a queued post leaves the queue.
    const timed = await api('PATCH', `/posts/${mine.id}`, {
      isScheduled: true,
      dateTime: new Date(clock.now() + 30 * DAY).toISOString(),
    });
    assert.equal(timed.body.data[0].inQueue, false);
    assert.equal((await api('GET', `/channels/${berlin}/schedule`)).body.data.queued.length, 0);
    await api('DELETE', `/posts/${mine.id}`);
    clock.advance(HOUR);
  });

  it('sets slots from the CLI', async () => {
    const run = promisify(execFile);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
    };
    const { stdout } = await run(
      'node',
      [
        HERALD_CLI,
        'channel',
        'slots',
        '--account',
        a.accountId,
        '--channel',
        a.channelIds[1],
        '--slots',
        'mon 09:00,tue 12:30',
        '--json',
      ],
      { env },
    );
    assert.deepEqual(JSON.parse(stdout).slots, [
      { day: 'mon', time: '09:00' },
      { day: 'tue', time: '12:30' },
    ]);
    const schedule = await api('GET', `/channels/${a.channelIds[1]}/schedule`);
    assert.deepEqual(schedule.body.data.slots, [
      { day: 'mon', time: '09:00' },
      { day: 'tue', time: '12:30' },
    ]);
    await assert.rejects(
      run(
        'node',
        [
          HERALD_CLI,
          'channel',
          'slots',
          '--account',
          a.accountId,
          '--channel',
          a.channelIds[1],
          '--slots',
          'someday 9',
          '--json',
        ],
        { env },
      ),
      (error: any) => error.code === 2 && /day must be one of/.test(error.stderr),
    );
  });
});
