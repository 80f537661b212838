import assert from 'node:assert/strict';
import { testWorker } from '../publishing/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { DAY, pinClock } from './support.js';

describe('team: the queue with the publishing engine', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 1 });
  });
  after(() => t.close());

  const api = (method: string, path: string, body?: unknown) =>
    t.api(method, `/v1/rest${path}`, { token: a.apiKey, body });

  it('publishes nothing while paused, then one slot at a time after resuming', async () => {
    const clock = pinClock(t, '2027-01-04T06:00:00Z'); // Monday
    const channelId = a.channelIds[0];
    await api('PUT', `/channels/${channelId}/schedule`, {
      slots: ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, time: '09:00' })),
    });
    const ids: string[] = [];
    for (const text of ['first', 'second'])
      ids.push((await api('POST', '/posts', { channelIds: [channelId], text, addToQueue: true })).body.data[0].id);
    await api('POST', `/channels/${channelId}/queue/pause`);
    const worker = testWorker(t);
    clock.set('2027-01-05T12:00:00Z'); // both slots (Mon, Tue 08:00Z) passed while paused
    assert.equal((await worker.tick()).claimed, 0, 'a paused queue publishes nothing');
    await api('POST', `/channels/${channelId}/queue/resume`);
    assert.equal((await worker.tick()).claimed, 0, 'resuming does not fire the missed posts at once');
    clock.set('2027-01-06T08:00:01Z');
    assert.equal((await worker.tick()).claimed, 1);
    const [first, second] = await Promise.all(ids.map(async (id) => (await api('GET', `/posts/${id}`)).body.data));
    assert.equal(first.isPosted, true);
    assert.equal(second.isPosted, false);
    assert.equal(second.dateTime, '2027-01-07T08:00:00.000Z');
    clock.advance(DAY);
    assert.equal((await worker.tick()).claimed, 1);
    assert.equal((await api('GET', `/posts/${ids[1]}`)).body.data.isPosted, true);
  });
});
