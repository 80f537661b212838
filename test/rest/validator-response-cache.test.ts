/** The validator's response validators, compiled once per route whatever content type requests carry. */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';

const require = createRequire(import.meta.url);
const { ResponseValidator } = require('express-openapi-validator/dist/middlewares/openapi.response.validator.js') as {
  ResponseValidator: { prototype: { buildValidators(responses: unknown, key: string): unknown } };
};

describe(`response validators per route (${TEST_DB})`, () => {
  let t: TestHerald;
  const built: string[] = [];
  const buildValidators = ResponseValidator.prototype.buildValidators;
  before(async () => {
    t = await startTestHerald();
    ResponseValidator.prototype.buildValidators = function (responses, key) {
      built.push(key);
      return buildValidators.call(this, responses, key);
    };
  });
  after(async () => {
    ResponseValidator.prototype.buildValidators = buildValidators;
    await t.close();
  });

  it('compiles a route’s response validators at most once, whatever content type the requests carry', async () => {
    const a = await t.seedAccount();
    // Content types no other test sends to this route, so none of them has been compiled in this process.
    for (const type of ['text/x-herald-one', 'text/x-herald-two', 'application/x-herald-three']) {
      const listed = await t.api('GET', '/v1/rest/labels', { token: a.apiKey, headers: { 'content-type': type } });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
    }
    const forRoute = built.filter((key) => key.startsWith('GET-/v1/rest/labels'));
    assert.ok(forRoute.length <= 1, `compiled again for ${forRoute.join(', ')}`);
    assert.ok(
      forRoute.every((key) => !key.includes('herald')),
      'the request’s content type is no part of the key',
    );
  });
});
