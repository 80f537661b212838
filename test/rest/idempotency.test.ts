import assert from 'node:assert/strict';
import { requestFingerprint } from '../../src/domain/idempotency.js';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('REST Idempotency-Key', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  const body = () => ({
    channelIds: [a.channelIds[0]],
    text: 'exactly once',
    isScheduled: true,
    dateTime: '2031-05-01T10:00:00.000Z',
  });
  const post = (key: string, payload: unknown, token = a.apiKey, path = '/v1/rest/posts') =>
    t.api('POST', path, { token, body: payload, headers: { 'Idempotency-Key': key } });
  const count = async (account = a) =>
    Number((await t.herald.db('posts').where({ account_id: account.accountId }).count({ n: '*' }).first())!.n);

  it('replays the first response for a retry with the same key and body, creating nothing new', async () => {
    const before = await count();
    const first = await post('key-1', body());
    const retry = await post('key-1', body());
    assert.equal(first.status, 201);
    assert.equal(retry.status, 201);
    assert.deepEqual(retry.body, first.body);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(await count(), before + 1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const first = await post('key-order', { text: 'same', channelIds: [a.channelIds[0]] });
    const retry = await post('key-order', { channelIds: [a.channelIds[0]], text: 'same' });
    assert.deepEqual(retry.body, first.body);
  });

  it('answers 422 when the key is reused with a different body', async () => {
    await post('key-2', body());
    const res = await post('key-2', { ...body(), text: 'something else' });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'idempotency_key_reused');
  });

  it('scopes keys to the account', async () => {
    const other = await t.seedAccount();
    await post('shared-key', body());
    const res = await post('shared-key', { ...body(), channelIds: [other.channelIds[0]] }, other.apiKey);
    assert.equal(res.status, 201);
    assert.equal(res.body.data[0].channelId, other.channelIds[0]);
  });

  it('creates once when the same request races itself', async () => {
    const before = await count();
    const results = await Promise.all(Array.from({ length: 8 }, () => post('race-key', body())));
    const statuses = results.map((r) => r.status);
    assert.ok(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(','),
    );
    assert.equal(await count(), before + 1);
  });

  it('frees the key when the request failed validation, so a corrected retry works', async () => {
    const bad = await post('key-3', { ...body(), dateTime: '2020-01-01T00:00:00Z' });
    assert.equal(bad.status, 400);
    const fixed = await post('key-3', { ...body(), dateTime: futureIso(30) });
    assert.equal(fixed.status, 201);
  });

  it('applies to POST /posts/bulk and to the legacy POST /post', async () => {
    const before = await count();
    const bulk = { posts: [body(), body()] };
    const first = await post('bulk-key', bulk, a.apiKey, '/v1/rest/posts/bulk');
    const retry = await post('bulk-key', bulk, a.apiKey, '/v1/rest/posts/bulk');
    assert.deepEqual(retry.body, first.body);
    const legacy1 = await post('legacy-key', body(), a.apiKey, '/v1/rest/post');
    const legacy2 = await post('legacy-key', body(), a.apiKey, '/v1/rest/post');
    assert.deepEqual(legacy2.body, legacy1.body);
    assert.equal(await count(), before + 3);
  });

  it('forgets keys after 24 hours', async () => {
    await post('old-key', body());
    await t.herald
      .db('idempotency_keys')
      .where({ key: 'old-key' })
      .update({ expires_at: Date.now() - 1 });
    const res = await post('old-key', { ...body(), text: 'new day' });
    assert.equal(res.status, 201);
    assert.equal(res.body.data[0].text, 'new day');
  });
});

describe('Idempotency fingerprints', () => {
  /** A value nested `depth` levels, alternating objects and arrays, built without recursion. */
  function deep(depth: number, leaf: unknown): unknown {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { z: 1, a: value };
    return value;
  }

  it('fingerprints a body nested 50,000 deep without overflowing the stack, ignoring key order', () => {
    const fingerprint = requestFingerprint('POST', '/posts', deep(50_000, 'leaf'));
    assert.match(fingerprint, /^[0-9a-f]{64}$/);
    assert.equal(
      requestFingerprint('POST', '/posts', { b: [1, { y: 2, x: 3 }], a: null }),
      requestFingerprint('POST', '/posts', { a: null, b: [1, { x: 3, y: 2 }] }),
    );
    assert.notEqual(
      requestFingerprint('POST', '/posts', deep(50_000, 'leaf')),
      requestFingerprint('POST', '/posts', deep(50_000, 'leaf2')),
    );
    assert.notEqual(requestFingerprint('POST', '/posts', [[1], 2]), requestFingerprint('POST', '/posts', [[1, 2]]));
  });
});
