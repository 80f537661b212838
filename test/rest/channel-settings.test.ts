import assert from 'node:assert/strict';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe("REST PATCH /channels/{channelId}: a channel's time zone", function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 2 });
  });
  afterEach(() => t.close());

  const api = (method: string, path: string, body?: unknown, token = a.apiKey) =>
    t.api(method, `/v1/rest${path}`, { token, body });

  it('sets the zone the weekly slots are read in, and keeps posts already queued at their times', async () => {
    const [channelId, other] = a.channelIds;
    t.deps.now = () => Date.parse('2030-01-01T00:00:00Z'); // a Tuesday
    await api('PUT', `/channels/${channelId}/schedule`, {
      slots: [
        { day: 'wed', time: '09:00' },
        { day: 'thu', time: '09:00' },
      ],
    });
    await api('PATCH', `/channels/${channelId}`, { timezone: 'UTC' });
    const queued = await api('POST', '/posts', { channelIds: [channelId], text: 'Queued in UTC', addToQueue: true });
    assert.equal(queued.body.data[0].dateTime, '2030-01-02T09:00:00.000Z');

    const res = await api('PATCH', `/channels/${channelId}`, { timezone: 'America/New_York' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.timezone, 'America/New_York');
    const schedule = (await api('GET', `/channels/${channelId}/schedule`)).body.data;
    assert.equal(schedule.timezone, 'America/New_York');
    assert.deepEqual(
      schedule.queued.map((q: { dateTime: string }) => q.dateTime),
      ['2030-01-02T09:00:00.000Z'],
      'the queued post keeps its time',
    );
    assert.equal(schedule.nextFreeSlots[0], '2030-01-02T14:00:00.000Z', 'Wednesday 09:00 in New York');
    const channels = (await api('GET', '/channels')).body.data;
    assert.equal(
      channels.find((c: { id: string }) => c.id === other).timezone,
      'Europe/Berlin',
      'only that channel changes',
    );
  });

  it(
    'refuses an unknown zone next to the field, ' + "another account's channel, and a key without manage_team",
    async () => {
      const [channelId] = a.channelIds;
      const bad = await api('PATCH', `/channels/${channelId}`, { timezone: 'Mars/Olympus' });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.details, [
        { path: 'timezone', message: 'Use an IANA name such as Europe/Berlin or UTC.' },
      ]);
      const stranger = await t.seedAccount({ channels: 0 });
      assert.equal((await api('PATCH', `/channels/${channelId}`, { timezone: 'UTC' }, stranger.apiKey)).status, 404);
      const denied = await api('PATCH', `/channels/${channelId}`, { timezone: 'UTC' }, a.basicKey);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 'insufficient_scope');
      assert.equal((await api('PATCH', `/channels/${channelId}`, {})).status, 400, 'the zone is required');
    },
  );
});
