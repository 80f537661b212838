import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger.js';
import { startHerald } from '../../src/server.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('REST rate limits', () => {
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald({ rateLimits: { restReadsPerMinute: 4, restWritesPerMinute: 2, accountPerHour: 9, mcpPerTokenPerMinute: 60 } });
    a = await t.seedAccount();
  });
  afterEach(() => t.close());

  const read = (token = a.apiKey) => t.api('GET', '/v1/rest/posts', { token });
  const write = (token = a.apiKey, path = '/v1/rest/posts') => t.api('POST', path, { token, body: { channelIds: [a.channelIds[0]], text: 'x', saveAsDraft: true } });

  it('reports the minute and account budgets in the headers, resets in seconds', async () => {
    const res = await read();
    assert.equal(res.headers.get('ratelimit-limit'), '4');
    assert.equal(res.headers.get('ratelimit-remaining'), '3');
    const reset = Number(res.headers.get('ratelimit-reset'));
    assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset} is seconds, not a timestamp`);
    assert.equal(res.headers.get('x-account-ratelimit-limit'), '9');
    assert.equal(res.headers.get('x-account-ratelimit-remaining'), '8');
    const accountReset = Number(res.headers.get('x-account-ratelimit-reset'));
    assert.ok(accountReset >= 1 && accountReset <= 3600);
  });

  it('answers 429 with Retry-After and {status:false, message} giving the seconds', async () => {
    for (let i = 0; i < 4; i++) assert.equal((await read()).status, 200);
    const res = await read();
    assert.equal(res.status, 429);
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60);
    assert.equal(res.body.status, false);
    assert.ok(res.body.message.includes(`${retryAfter} seconds`), res.body.message);
    assert.equal(res.headers.get('ratelimit-remaining'), '0');
  });

  it('keeps read and write minute budgets separate', async () => {
    for (let i = 0; i < 2; i++) assert.equal((await write()).status, 201);
    assert.equal((await write()).status, 429);
    const res = await read();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-limit'), '4');
  });

  it('counts per account: another key of the same account gets no separate allowance', async () => {
    for (let i = 0; i < 2; i++) await write();
    assert.equal((await write(a.basicKey)).status, 429);
    const other = await t.seedAccount();
    assert.equal((await t.api('POST', '/v1/rest/posts', { token: other.apiKey, body: { channelIds: [other.channelIds[0]], text: 'x', saveAsDraft: true } })).status, 201);
  });

  it('puts the legacy POST /post on the write limiter', async () => {
    await write();
    await write(a.apiKey, '/v1/rest/post');
    const res = await write(a.apiKey, '/v1/rest/post');
    assert.equal(res.status, 429);
    assert.match(res.body.message, /write/);
  });

  it('leaves GET /profile outside the limiter', async () => {
    for (let i = 0; i < 12; i++) {
      const res = await t.api('GET', '/v1/rest/profile', { token: a.apiKey });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), null);
    }
    assert.equal((await read()).headers.get('ratelimit-remaining'), '3');
  });

  it('spends the hourly account budget across reads and writes', async () => {
    for (let i = 0; i < 4; i++) await read();
    for (let i = 0; i < 2; i++) await write();
    // 6 of 9 used; the 4-per-minute read budget is spent, so empty the minute buckets to reach the hourly one.
    await t.herald.db('rate_limit_buckets').where('bucket', 'like', 'rest_%').delete();
    for (let i = 0; i < 3; i++) assert.equal((await read()).status, 200);
    const res = await read();
    assert.equal(res.status, 429);
    assert.match(res.body.message, /account hourly budget/);
    assert.equal(res.headers.get('x-account-ratelimit-remaining'), '0');
  });

  it('shares the budget between two Herald instances on one database', async () => {
    const second = await startHerald({ ...t.config, port: 0 }, createLogger({ quiet: true }));
    try {
      await read();
      await read();
      const res = await fetch(`${second.url}/v1/rest/posts`, { headers: { authorization: `Bearer ${a.apiKey}` } });
      assert.equal(res.headers.get('ratelimit-remaining'), '1');
    } finally {
      await second.close();
    }
  });

  it('holds a minute budget across a minute boundary: 120 requests in 1.25 s get the budget, not twice it', async () => {
    const limited = await startTestHerald({ rateLimits: { restReadsPerMinute: 60, restWritesPerMinute: 15, accountPerHour: 100_000, mcpPerTokenPerMinute: 60 } });
    try {
      const owner = await limited.seedAccount();
      let now = Date.UTC(2030, 0, 1, 12, 0, 59, 500);
      limited.deps.now = () => now;
      const statuses: number[] = [];
      for (let i = 0; i < 120; i++) {
        statuses.push((await limited.api('GET', '/v1/rest/posts', { token: owner.apiKey })).status);
        now += 10; // 1.2 s in all, across 12:01:00
      }
      const passed = statuses.filter((s) => s === 200).length;
      assert.ok(passed <= 60 + 2, `${passed} of 120 passed in 1.2 s`);
      assert.ok(passed >= 60, `${passed}: the budget itself must be usable at once`);
      now += 30_000;
      const half = [];
      for (let i = 0; i < 40; i++) half.push((await limited.api('GET', '/v1/rest/posts', { token: owner.apiKey })).status);
      assert.equal(half.filter((s) => s === 200).length, 30, 'half a minute later, half the budget is back');
      const refused = await limited.api('GET', '/v1/rest/posts', { token: owner.apiKey });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    } finally {
      await limited.close();
    }
  });
});
