import assert from 'node:assert/strict';
import { appSession } from '../security/team-support.js';
import { startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';

/**
 * What the web app's calls spend, kept by the database on each: the browser tests (test/web/app-spa and
 * app-compose, run once) show the same budgets as people meet them in the app.
 */
describe(`REST: the web app's budgets (${TEST_DB})`, function () {
  this.timeout(30_000);
  let t: TestHerald | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("spends the person's own budget, not the account's API budgets, and says how long to wait beyond it", async () => {
    t = await startTestHerald({
      appRequestsPerMinute: 12,
      rateLimits: { restReadsPerMinute: 2, restWritesPerMinute: 2, accountPerHour: 1000, mcpPerTokenPerMinute: 60 },
    });
    const a = await t.seedAccount({ channels: 1 });
    const app = await appSession(t, a);
    assert.ok(app.signedIn);
    for (let i = 0; i < 3; i += 1)
      assert.equal(
        (await app.call('GET', '/v1/rest/channels')).status,
        200,
        "past the account's 2 REST reads a minute",
      );
    for (let i = 0; i < 2; i += 1)
      assert.equal(
        (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).status,
        200,
        "the account's REST reads are untouched by the app",
      );
    let calls = 3;
    let refused = await app.call('GET', '/v1/rest/channels');
    while (refused.status === 200 && calls < 20) {
      calls += 1;
      refused = await app.call('GET', '/v1/rest/channels');
    }
    assert.equal(refused.status, 429);
    assert.equal(calls, 12, 'the person has exactly their 12 calls a minute');
    assert.match(refused.body.message, /web app budget of this person/);
    assert.ok(Number(refused.headers.get('retry-after')) > 0, 'it says how long to wait');
  });

  it(
    "charges the app's AI helpers to the account's write budget, " + 'as API integrations are, and not its saves',
    async () => {
      t = await startTestHerald({
        rateLimits: {
          restReadsPerMinute: 100_000,
          restWritesPerMinute: 1,
          accountPerHour: 1_000_000,
          mcpPerTokenPerMinute: 100_000,
        },
      });
      const a = await t.seedAccount({ channels: 1 });
      const app = await appSession(t, a);
      const text = 'We shipped the new calendar today';
      assert.equal((await app.call('POST', '/v1/rest/ai/hashtags', { text })).status, 200);
      assert.equal(
        (await t.api('POST', '/v1/rest/ai/hashtags', { token: a.apiKey, body: { text } })).status,
        429,
        "the app's AI call spent the account's write budget",
      );
      const again = await app.call('POST', '/v1/rest/ai/hashtags', { text });
      assert.equal(again.status, 429);
      assert.match(again.body.message, /write budget/);
      const saved = await app.call('POST', '/v1/rest/posts', { channelIds: [a.channelIds[0]], text, isDraft: true });
      assert.equal(saved.status, 201, "saving is the person's own budget, not an AI request");
    },
  );
});
