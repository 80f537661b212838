import assert from 'node:assert/strict';
import type { Logger } from '../../src/logger.js';
import { eventually } from '../publishing/support.js';
import { startTestHerald, type TestHerald } from '../support/herald.js';

describe('rest: the access log (LOG_REQUESTS)', () => {
  let t: TestHerald;
  const lines: Array<Record<string, unknown>> = [];
  const logger: Logger = {
    info: (message, fields = {}) => lines.push({ message, ...fields }),
    warn: () => undefined,
    error: () => undefined,
  };

  before(async () => {
    t = await startTestHerald({ logRequests: true }, logger);
  });
  after(async () => t?.close());

  const requestLines = () => lines.filter((line) => line.message === 'request');
  // 'finish' can fire just after the client has the response: wait for the expected lines, not a fixed time.
  const settle = (count: number) =>
    eventually(async () => (requestLines().length >= count ? true : undefined), `${count} access-log lines`);

  it('logs the method, the route pattern, the status and the duration, never the URL or the key', async () => {
    const account = await t.seedAccount();
    const secretQuery = 'cursor=not-a-cursor-SECRET';
    await t.api('GET', '/v1/rest/posts/01notapost', { token: account.apiKey });
    await t.api('GET', `/v1/rest/posts?${secretQuery}`, { token: account.apiKey });
    await settle(2);
    const logged = requestLines();
    assert.equal(logged.length, 2, JSON.stringify(logged));
    assert.deepEqual(
      { ...logged[0], ms: 0 },
      { message: 'request', method: 'GET', route: '/v1/rest/posts/:postId', status: 404, ms: 0 },
    );
    assert.equal(logged[1].route, '/v1/rest/posts');
    assert.equal(logged[1].status, 400);
    assert.equal(typeof logged[0].ms, 'number');
    const text = JSON.stringify(lines);
    assert.ok(!text.includes('SECRET') && !text.includes('01notapost') && !text.includes(account.apiKey), text);
  });

  it('logs an unmatched request without its path', async () => {
    lines.length = 0;
    await t.api('GET', '/calendar-link-typo/secret-token-here');
    await settle(1);
    assert.deepEqual(
      requestLines().map((line) => [line.route, line.status]),
      [[null, 404]],
    );
    assert.ok(!JSON.stringify(lines).includes('secret-token-here'));
  });
});
