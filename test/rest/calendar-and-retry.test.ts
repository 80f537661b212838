import assert from 'node:assert/strict';
import { pinClock, testWorker } from '../publishing/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';

describe(
  'REST GET /calendar, POST /posts/{postId}/move and /retry: ' + 'the team calendar and a failed post tried again',
  () => {
    let t: TestHerald;
    let a: SeededAccount;
    beforeEach(async () => {
      t = await startTestHerald();
      a = await t.seedAccount({ channels: 2 });
    });
    afterEach(() => t.close());

    const create = async (body: Record<string, unknown>) => {
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], ...body },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data[0].id as string;
    };

    it(
      'retries a failed post now, even one whose scheduled time has passed, ' + 'and refuses anything not failed',
      async () => {
        const clock = pinClock(t, '2030-01-06T12:00:00Z');
        await t.deps.repos.sandbox.setFailure(a.accountId, a.channelIds[0], 'permanent', 1);
        const id = await create({ text: 'Second time lucky', isScheduled: true, dateTime: '2030-01-06T12:05:00.000Z' });
        clock.advance(10 * 60_000);
        await testWorker(t).tick();
        const failed = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
        assert.equal(failed.status, 'failed');

        const other = await t.seedAccount();
        assert.equal(
          (await t.api('POST', `/v1/rest/posts/${id}/retry`, { token: other.apiKey })).status,
          404,
          "not another account's",
        );
        const res = await t.api('POST', `/v1/rest/posts/${id}/retry`, { token: a.apiKey });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.data.status, 'scheduled');
        assert.equal(res.body.data.error, null);
        assert.equal(res.body.data.dateTime, new Date(clock.now()).toISOString(), 'due now, not at its passed time');
        await testWorker(t).tick();
        const published = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
        assert.equal(published.status, 'published');
        assert.deepEqual(
          published.attempts.map((x: any) => x.outcome),
          ['permanent', 'published'],
        );
        const history = (await t.api('GET', `/v1/rest/posts/${id}/history`, { token: a.apiKey })).body.data;
        assert.deepEqual(
          history.map((e: any) => e.kind),
          ['created', 'updated'],
          'the retry is in its history',
        );

        const again = await t.api('POST', `/v1/rest/posts/${id}/retry`, { token: a.apiKey });
        assert.equal(again.status, 409);
        assert.match(again.body.message, /is published; only a failed post can be tried again/);
        const live = await insertLivePost(t.deps, a, clock.now() - 60_000);
        assert.equal(
          (await t.api('POST', `/v1/rest/posts/${live.id}/retry`, { token: a.apiKey })).body.code,
          'live_post_read_only',
        );
      },
    );

    it(
      'shows a week, a month and a list in a time zone, ' + 'every state told apart, live posts only when asked for',
      async () => {
        const clock = pinClock(t, '2030-01-06T12:00:00Z');
        await t.deps.repos.sandbox.setFailure(a.accountId, a.channelIds[1], 'permanent', 1);
        const images = ['https://cdn.example/first.jpg', 'https://cdn.example/second.jpg'];
        const scheduled = await create({
          text: 'Tuesday talk',
          isScheduled: true,
          dateTime: '2030-01-08T08:30:00.000Z',
          imageUrls: images,
        });
        const draft = await create({
          text: 'Idea',
          saveAsDraft: true,
          isScheduled: true,
          dateTime: '2030-01-09T10:00:00.000Z',
        });
        const failing = (
          await t.api('POST', '/v1/rest/posts', {
            token: a.apiKey,
            body: {
              channelIds: [a.channelIds[1]],
              text: 'Will fail',
              isScheduled: true,
              dateTime: '2030-01-06T12:01:00.000Z',
            },
          })
        ).body.data[0].id;
        clock.advance(2 * 60_000);
        await testWorker(t).tick();
        const live = await insertLivePost(t.deps, a, Date.parse('2030-01-07T23:30:00Z'));
        const later = await create({ text: 'Next month', isScheduled: true, dateTime: '2030-02-03T09:00:00.000Z' });

        const week = await t.api('GET', '/v1/rest/calendar?date=2030-01-08&timezone=Europe%2FBerlin', {
          token: a.apiKey,
        });
        assert.equal(week.status, 200, JSON.stringify(week.body));
        const w = week.body.data;
        assert.deepEqual(
          [w.view, w.timezone, w.date, w.firstDay, w.lastDay, w.previous, w.next],
          ['week', 'Europe/Berlin', '2030-01-08', '2030-01-07', '2030-01-13', '2030-01-06', '2030-01-14'],
        );
        assert.deepEqual(
          w.entries.map((e: any) => [e.postId, e.day, e.time, e.status, e.movable]),
          [
            [scheduled, '2030-01-08', '09:30', 'scheduled', true],
            [draft, '2030-01-09', '11:00', 'draft', false],
          ],
          'Berlin days and times; the failed post of Sunday belongs to the week before',
        );
        assert.equal(w.entries[0].channelId, a.channelIds[0]);
        assert.deepEqual(
          w.entries.map((e: any) => e.imageUrl),
          [images[0], null],
          'the first image, for a thumbnail',
        );
        const before = (
          await t.api('GET', `/v1/rest/calendar?date=${w.previous}&timezone=Europe%2FBerlin`, { token: a.apiKey })
        ).body.data;
        assert.deepEqual(
          before.entries.map((e: any) => [e.postId, e.day, e.time, e.status]),
          [[failing, '2030-01-06', '13:01', 'failed']],
        );
        assert.equal(w.truncated, false);

        const withLive = (
          await t.api('GET', '/v1/rest/calendar?date=2030-01-08&timezone=Europe%2FBerlin&livePosts=true', {
            token: a.apiKey,
          })
        ).body.data;
        assert.deepEqual(
          withLive.entries.map((e: any) => [e.postId, e.day, e.status]),
          [
            [live.id, '2030-01-08', 'live'],
            [scheduled, '2030-01-08', 'scheduled'],
            [draft, '2030-01-09', 'draft'],
          ],
          '23:30 UTC is the next day in Berlin',
        );

        const month = (await t.api('GET', '/v1/rest/calendar?view=month&date=2030-01-20', { token: a.apiKey })).body
          .data;
        assert.deepEqual([month.firstDay, month.lastDay], ['2029-12-31', '2030-02-03'], 'whole weeks, Monday first');
        assert.deepEqual(
          month.entries.map((e: any) => e.postId),
          [failing, scheduled, draft, later],
        );
        const onlySecond = (
          await t.api('GET', `/v1/rest/calendar?view=month&date=2030-01-20&channelIds=${a.channelIds[1]}`, {
            token: a.apiKey,
          })
        ).body.data;
        assert.deepEqual(
          onlySecond.entries.map((e: any) => [e.postId, e.status]),
          [[failing, 'failed']],
        );
        const list = (await t.api('GET', '/v1/rest/calendar?view=list&date=2030-01-08', { token: a.apiKey })).body.data;
        assert.deepEqual([list.firstDay, list.lastDay], ['2030-01-08', '2030-02-06']);
        assert.deepEqual(
          list.entries.map((e: any) => e.postId),
          [scheduled, draft, later],
        );
      },
    );

    it(
      'refuses an unknown view, a date that is not a day, ' + "an unknown time zone and another account's channel",
      async () => {
        const other = await t.seedAccount({ channels: 1 });
        for (const [query, field] of [
          ['view=year', 'view'],
          ['date=2030-02-30', 'date'],
          ['timezone=Mars/Olympus', 'timezone'],
          [`channelIds=${other.channelIds[0]}`, 'channelIds'],
        ]) {
          const res = await t.api('GET', `/v1/rest/calendar?${query}`, { token: a.apiKey });
          assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
          assert.ok(JSON.stringify(res.body).includes(field), `${query} names ${field}: ${JSON.stringify(res.body)}`);
        }
      },
    );

    it(
      'moves a scheduled post to another day keeping its time, ' + 'or to a day and time, and back to where it was',
      async () => {
        pinClock(t, '2030-01-06T12:00:00Z');
        const id = await create({ text: 'Tuesday talk', isScheduled: true, dateTime: '2030-01-08T08:30:00.000Z' });
        const move = (body: unknown) => t.api('POST', `/v1/rest/posts/${id}/move`, { token: a.apiKey, body });
        const day = await move({ day: '2030-01-10', timezone: 'Europe/Berlin' });
        assert.equal(day.status, 200, JSON.stringify(day.body));
        assert.equal(day.body.data.dateTime, '2030-01-10T08:30:00.000Z', 'Thursday, 09:30 in Berlin still');
        assert.equal(day.body.meta.from, '2030-01-08T08:30:00.000Z');
        const timed = await move({ day: '2030-01-11', time: '14:00', timezone: 'Europe/Berlin' });
        assert.equal(timed.body.data.dateTime, '2030-01-11T13:00:00.000Z');
        const back = await move({ dateTime: day.body.meta.from });
        assert.equal(back.body.data.dateTime, '2030-01-08T08:30:00.000Z');

        for (const [body, field] of [
          [{}, 'day'],
          [{ day: '2030-01-10', dateTime: '2030-01-10T08:30:00Z' }, 'dateTime'],
          [{ day: '2030-01-10', time: '25:00' }, 'time'],
          [{ day: '10/01/2030' }, 'day'],
          [{ dateTime: '2029-01-01T00:00:00Z' }, 'dateTime'],
        ] as const) {
          const res = await move(body);
          assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
          assert.ok(
            JSON.stringify(res.body.details ?? res.body).includes(field),
            `${JSON.stringify(body)} names ${field}: ${JSON.stringify(res.body)}`,
          );
        }
        const draft = await create({ text: 'Not yet', saveAsDraft: true });
        const refused = await t.api('POST', `/v1/rest/posts/${draft}/move`, {
          token: a.apiKey,
          body: { day: '2030-01-10' },
        });
        assert.equal(refused.status, 409);
        assert.match(refused.body.message, /is draft; only a scheduled post can be moved/);
      },
    );
  },
);
