/**
 * Webhook delivery end to end: endpoints made over REST, events made by REST actions and the publishing
 * worker, delivered by the worker to a real receiver on loopback that verifies each Standard Webhooks
 * signature with the standardwebhooks package.
 */
import assert from 'node:assert/strict';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { pinClock, testWorker } from '../publishing/support.js';
import { RECEIVER_HOST, startReceiver, type Receiver } from './receiver.js';

const DAY = 24 * 60 * 60_000;

describe(`webhook delivery (${TEST_DB})`, function () {
  this.timeout(60_000);
  let t: TestHerald;
  let receiver: Receiver;

  beforeEach(async () => {
    // The webhook receiver listens on loopback (RECEIVER_HOST), which the SSRF guard refuses unless it is listed.
    t = await startTestHerald({ outboundAllowHosts: [RECEIVER_HOST] });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  async function subscribe(account: SeededAccount, eventTypes: string[], target: Receiver = receiver) {
    const created = await t.api('POST', '/v1/rest/webhooks', {
      token: account.apiKey,
      body: { url: target.url, eventTypes },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.data.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    target.secret = created.body.data.secret;
    return created.body.data as { id: string; secret: string };
  }

  async function deliveries(account: SeededAccount, endpointId: string, query = '') {
    const listed = await t.api('GET', `/v1/rest/webhooks/${endpointId}/deliveries${query}`, { token: account.apiKey });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.data as any[];
  }

  it('delivers what a published post went through, signed, with the event id as webhook-id, once each', async () => {
    const a = await t.seedAccount();
    await subscribe(a, ['post.created', 'post.published']);
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Hello, receivers' },
    });
    assert.equal(created.status, 201);
    const postId = created.body.data[0].id;
    const worker = testWorker(t);
    await worker.tick();
    await worker.tick();

    const types = receiver.received.map((r) => r.event.type);
    assert.deepEqual(types, ['post.created', 'post.published']);
    for (const r of receiver.received) {
      assert.equal(r.verified, true, `the signature of ${r.event.type} verifies`);
      assert.equal(r.id, r.event.id);
      assert.equal(r.event.accountId, a.accountId);
      assert.equal(r.event.workspaceId, a.workspaceId);
      assert.equal(r.event.data.post.id, postId);
    }
    const published = receiver.received[1].event;
    assert.equal(published.data.post.status, 'published');
    assert.match(published.data.permalinkUrl, /^https?:\/\//);
    assert.equal(published.data.permalinkUrl, published.data.post.permalinkUrl);

    const events = await t.api('GET', `/v1/rest/events?postId=${postId}&types=post.published`, { token: a.basicKey });
    assert.equal(events.status, 200);
    assert.deepEqual(
      events.body.data.map((e: any) => e.id),
      [published.id],
    );
    assert.equal(events.body.data[0].timestamp, published.timestamp);
  });

  it('a signature made with another secret does not verify, and a rotated secret signs from then on', async () => {
    const a = await t.seedAccount();
    const endpoint = await subscribe(a, ['webhook.test']);
    const rotated = await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/rotate-secret`, { token: a.apiKey });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.data.secret, endpoint.secret);
    const listed = await t.api('GET', '/v1/rest/webhooks', { token: a.apiKey });
    assert.equal(listed.body.data[0].secret, undefined, 'the secret is never listed');

    receiver.secret = endpoint.secret;
    const sent = await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    assert.equal(sent.status, 202);
    assert.equal(sent.body.data.status, 'pending');
    await testWorker(t).tick();
    assert.equal(receiver.received.length, 1);
    assert.equal(receiver.received[0].event.type, 'webhook.test');
    assert.equal(receiver.received[0].verified, false, 'the old secret no longer verifies');
    receiver.secret = rotated.body.data.secret;
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    await testWorker(t).tick();
    assert.equal(receiver.received[1].verified, true);
  });

  it('retries a receiver that answers 500 with growing waits, then succeeds, and shows each delivery', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const a = await t.seedAccount();
    const endpoint = await subscribe(a, ['webhook.test']);
    receiver.script = [500, 500];
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    const worker = testWorker(t);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      await worker.tick();
      const [delivery] = await deliveries(a, endpoint.id);
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.attempts, attempt);
      assert.equal(delivery.responseCode, 500);
      assert.equal(typeof delivery.durationMs, 'number');
      assert.match(delivery.error, /500/);
      const wait = Date.parse(delivery.nextAttemptAt) - clock.now();
      assert.ok(wait > 0, 'the next try is later');
      waits.push(wait);
      await worker.tick();
      assert.equal(receiver.received.length, attempt, 'nothing is sent again before the next try is due');
      clock.advance(wait);
    }
    assert.ok(waits[1] > waits[0], `waits grow: ${waits.join(', ')}`);
    await worker.tick();
    const [delivery] = await deliveries(a, endpoint.id);
    assert.equal(delivery.status, 'succeeded');
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.responseCode, 200);
    assert.equal(delivery.nextAttemptAt, null);
    assert.equal(receiver.received.length, 3);
    assert.ok(
      receiver.received.every((r) => r.verified && r.id === receiver.received[0].id),
      'every retry carries the same webhook-id',
    );
  });

  it('gives up after about a day, and redelivers failed deliveries on request', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const a = await t.seedAccount();
    const endpoint = await subscribe(a, ['webhook.test']);
    receiver.script = Array(100).fill(503);
    const start = clock.now();
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    const worker = testWorker(t);
    let delivery: any;
    for (;;) {
      await worker.tick();
      [delivery] = await deliveries(a, endpoint.id);
      if (delivery.status !== 'pending') break;
      clock.advance(Date.parse(delivery.nextAttemptAt) - clock.now());
    }
    assert.equal(delivery.status, 'failed');
    const spent = clock.now() - start;
    assert.ok(spent > 0.5 * DAY && spent <= DAY, `gave up after ${spent / 3_600_000} hours`);
    assert.ok(delivery.attempts >= 8, `${delivery.attempts} attempts`);
    assert.equal(
      (await t.api('GET', `/v1/rest/webhooks/${endpoint.id}`, { token: a.apiKey })).body.data.enabled,
      true,
      'a day of failures does not disable it',
    );

    receiver.script = [];
    const again = await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/redeliver`, {
      token: a.apiKey,
      body: { since: new Date(start - 1000).toISOString() },
    });
    assert.equal(again.status, 202);
    assert.deepEqual(again.body.data, { queued: 1 });
    await worker.tick();
    [delivery] = await deliveries(a, endpoint.id);
    assert.equal(delivery.status, 'succeeded');
    assert.equal(receiver.received.at(-1)!.id, receiver.received[0].id, 'redelivered under the same webhook-id');
    const notFailed = await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/redeliver`, {
      token: a.apiKey,
      body: { deliveryId: delivery.id },
    });
    assert.equal(notFailed.status, 409);
    assert.equal(notFailed.body.code, 'delivery_not_failed');
  });

  it('disables an endpoint that answers 410 and tells the workspace with webhook.disabled', async () => {
    const a = await t.seedAccount();
    const watcher = await startReceiver('/watcher');
    try {
      const gone = await subscribe(a, ['webhook.test', 'webhook.disabled']);
      await subscribe(a, ['webhook.disabled'], watcher);
      receiver.script = [410];
      await t.api('POST', `/v1/rest/webhooks/${gone.id}/test`, { token: a.apiKey });
      const worker = testWorker(t);
      await worker.tick();
      await worker.tick();
      const shown = (await t.api('GET', `/v1/rest/webhooks/${gone.id}`, { token: a.apiKey })).body.data;
      assert.equal(shown.enabled, false);
      assert.match(shown.disabledReason, /410/);
      assert.equal((await deliveries(a, gone.id))[0].status, 'failed');
      assert.equal(receiver.received.length, 1, 'the gone endpoint is not told of its own disabling');
      assert.equal(watcher.received.length, 1);
      assert.equal(watcher.received[0].event.type, 'webhook.disabled');
      assert.equal(watcher.received[0].event.data.endpoint.id, gone.id);
      assert.equal(watcher.received[0].verified, true);
      const refused = await t.api('POST', `/v1/rest/webhooks/${gone.id}/test`, { token: a.apiKey });
      assert.equal(refused.status, 409);
      const enabled = await t.api('PATCH', `/v1/rest/webhooks/${gone.id}`, {
        token: a.apiKey,
        body: { enabled: true },
      });
      assert.equal(enabled.body.data.enabled, true);
      assert.equal(enabled.body.data.disabledReason, null);
    } finally {
      await watcher.close();
    }
  });

  it('disables an endpoint after three days of failures, with an event', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const a = await t.seedAccount();
    const endpoint = await subscribe(a, ['webhook.test']);
    receiver.script = Array(100).fill(500);
    const worker = testWorker(t);
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    await worker.tick();
    const failing = (await t.api('GET', `/v1/rest/webhooks/${endpoint.id}`, { token: a.apiKey })).body.data;
    assert.equal(failing.failingSince, new Date(clock.now()).toISOString());
    clock.advance(3 * DAY - 60_000);
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    await worker.tick();
    assert.equal(
      (await t.api('GET', `/v1/rest/webhooks/${endpoint.id}`, { token: a.apiKey })).body.data.enabled,
      true,
      'not yet three days',
    );
    clock.advance(120_000);
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    await worker.tick();
    const disabled = (await t.api('GET', `/v1/rest/webhooks/${endpoint.id}`, { token: a.apiKey })).body.data;
    assert.equal(disabled.enabled, false);
    assert.match(disabled.disabledReason, /failed since/);
    const events = await t.api('GET', '/v1/rest/events?types=webhook.disabled', { token: a.apiKey });
    assert.equal(events.body.data.length, 1);
    assert.equal(events.body.data[0].data.endpoint.id, endpoint.id);
  });

  it('gives up on a receiver that hangs after 10 seconds, and tries again later', async () => {
    const a = await t.seedAccount();
    const endpoint = await subscribe(a, ['webhook.test']);
    receiver.script = ['hang'];
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    // The attempt's deadline runs on the worker's timers, moved here by hand rather than waited out for 10 s.
    const clock = pinClock(t, new Date().toISOString());
    let settled = false;
    const tick = testWorker(t)
      .tick()
      .finally(() => {
        settled = true;
      });
    await receiver.arrived(1);
    clock.advance(9_999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(settled, false, 'the attempt still waits 1 ms before its deadline');
    clock.advance(1);
    await tick;
    const [delivery] = await deliveries(a, endpoint.id);
    assert.equal(delivery.status, 'pending');
    assert.equal(delivery.responseCode, null);
    assert.match(delivery.error, /10000 ms/);
  });

  it('delivers again what a worker claimed and died with, once its lease runs out', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const a = await t.seedAccount();
    const endpoint = await subscribe(a, ['webhook.test']);
    await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    const dead = await t.deps.repos.webhooks.claimDue('dead-worker', clock.now(), 60_000, 10);
    assert.equal(dead.length, 1);
    const worker = testWorker(t);
    await worker.tick();
    assert.equal(receiver.received.length, 0, 'not while the dead worker holds the lease');
    clock.advance(60_001);
    await worker.tick();
    assert.equal(receiver.received.length, 1);
    assert.equal((await deliveries(a, endpoint.id))[0].status, 'succeeded');
    assert.equal(
      await t.deps.repos.webhooks.finishAttempt(dead[0].delivery.id, 'dead-worker', {
        at: clock.now(),
        responseCode: 500,
        durationMs: 1,
        error: 'late',
        status: 'pending',
        nextAttemptAt: clock.now(),
      }),
      false,
      'the dead worker, coming back, can change nothing',
    );
    assert.equal((await deliveries(a, endpoint.id))[0].status, 'succeeded');
  });

  it('two workers ticking together never send one delivery twice at once, and send each once', async () => {
    const a = await t.seedAccount();
    const endpoint = await subscribe(a, ['webhook.test']);
    receiver.delayMs = 100;
    for (let i = 0; i < 12; i++) await t.api('POST', `/v1/rest/webhooks/${endpoint.id}/test`, { token: a.apiKey });
    const one = testWorker(t, { concurrency: 3, batchSize: 4 });
    const two = testWorker(t, { concurrency: 3, batchSize: 4 });
    for (let round = 0; round < 6; round++) await Promise.all([one.tick(), two.tick()]);
    const ids = receiver.received.map((r) => r.id);
    assert.equal(ids.length, 12);
    assert.equal(new Set(ids).size, 12, 'each event delivered once');
    assert.equal(receiver.maxConcurrentPerId, 1);
    assert.ok((await deliveries(a, endpoint.id)).every((d) => d.status === 'succeeded'));
  });
});
