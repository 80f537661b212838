/**
 * Fuzzing every REST operation of the bundled OpenAPI document (new routes are covered without an edit):
 * path parameters, query parameters, headers and bodies drawn from the spec's own schemas, with
 * boundary values, broken encodings and malformed JSON mixed in. Whatever arrives, the answer is not a
 * 5xx, carries no stack or file path, and every error is the documented REST error body; afterwards the
 * server still answers. Fixed seed (printed on failure); FUZZ_SEED replays one, FUZZ_RUNS scales the run.
 */
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { TEST_DB } from '../support/herald.js';
import { assertNoLeak } from '../support/no-leak.js';
import { raw } from '../support/raw-http.js';
import { openapi, restOperations, type RestOperation } from '../support/rest-operations.js';
import { FUZZ_SEED, fuzzRuns, startFuzzTarget, type FuzzTarget } from './support/fuzz-setup.js';
import { pathSegment, sometimes, valueFor, type ArbitraryContext, type Schema } from './support/schema-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2_500);

const isRestError = new Ajv({ strict: false }).compile(
  (openapi.components as { schemas: Record<string, object> }).schemas.Error,
);

interface RestCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** encodeURIComponent, after replacing lone surrogates (which it cannot encode). */
function encode(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\ufffd'));
}

const MALFORMED_JSON = [
  '',
  '{',
  '{"text":',
  '{"a":1,}',
  "{'a':1}",
  'null',
  '[]',
  '"text"',
  '1e999',
  'NaN',
  '\ufeff{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `${'['.repeat(100)}${']'.repeat(100)}`,
  `${'{"a":'.repeat(65)}1${'}'.repeat(65)}`,
  '{"text":"\\ud800"}',
  '{"text":"a\\u0000b"}',
  '{"channelIds":[' + '"x",'.repeat(2_000) + '"x"]}',
];

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'text/plain',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'application/merge-patch+json',
  'multipart/form-data; boundary=x',
];

function callArbitrary(operation: RestOperation, context: ArbitraryContext): fc.Arbitrary<RestCall> {
  const placeholders = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const query = fc.record(
    Object.fromEntries(queryParameters.map((p) => [p.name, valueFor((p.schema ?? {}) as Schema, context, 1, p.name)])),
    { requiredKeys: [] },
  );
  const strayQuery = sometimes(
    fc.constantFrom(
      'x=1',
      'limit=-1',
      'limit=1e3',
      'cursor=%',
      '%=%',
      'a[b][c][d]=1',
      'limit[]=1',
      'channelIds[__proto__]=x',
      'livePosts=maybe',
      `labelIds=${'a,'.repeat(100)}`,
    ),
    10,
  );
  const json = operation.bodySchema
    ? valueFor(operation.bodySchema as Schema, context).map((v) => JSON.stringify(v) ?? 'null')
    : fc.constant('{}');
  const body = operation.hasBody
    ? fc.oneof(
        { arbitrary: json, weight: 12 },
        { arbitrary: fc.constantFrom(...MALFORMED_JSON), weight: 2 },
        { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
        { arbitrary: fc.constant(undefined), weight: 1 },
      )
    : sometimes(fc.constantFrom('{}', '{"x":1}', ...MALFORMED_JSON.slice(0, 4)), 8);
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 12 },
    { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
  const idempotencyKey = sometimes(
    fc.oneof(fc.constantFrom('fuzz-key-1', 'fuzz-key-2', 'x'.repeat(256)), fc.stringMatching(/^[\x21-\x7e]{1,40}$/)),
    3,
  );
  const token = fc.oneof(
    { arbitrary: fc.constant('full'), weight: 10 },
    { arbitrary: fc.constantFrom('basic', 'none', 'junk'), weight: 1 },
  );

  return fc
    .record({
      segments: fc.tuple(...placeholders.map((name) => pathSegment(context, name))),
      query,
      strayQuery,
      body,
      contentType,
      idempotencyKey,
      token,
    })
    .map(
      ({
        segments,
        query: values,
        strayQuery: stray,
        body: text,
        contentType: type,
        idempotencyKey: key,
        token: which,
      }) => {
        let i = 0;
        const path = operation.path.replace(/\{[^}]+\}/g, () => segments[i++]);
        const pairs: string[] = [];
        for (const [name, value] of Object.entries(values)) {
          for (const item of Array.isArray(value) ? value : [value]) pairs.push(`${encode(name)}=${encode(item)}`);
        }
        if (stray) pairs.push(stray);
        const headers: Record<string, string> = {};
        if (type !== undefined && text !== undefined) headers['content-type'] = type;
        if (key !== undefined) headers['idempotency-key'] = key;
        headers.authorization = which;
        return {
          method: operation.method,
          path: pairs.length > 0 ? `${path}?${pairs.join('&')}` : path,
          headers,
          body: text,
        };
      },
    );
}

describe(`fuzz: every REST operation (${TEST_DB}, seed ${FUZZ_SEED})`, function () {
  this.timeout(300_000);
  let target: FuzzTarget;
  let tokens: Record<string, string>;

  before(async () => {
    target = await startFuzzTarget();
    tokens = {
      full: `Bearer ${target.account.apiKey}`,
      basic: `Bearer ${target.account.basicKey}`,
      none: '',
      junk: 'Bearer hk_not_a_key',
    };
  });
  after(() => target?.h.close());

  it(
    `answers ${RUNS} malformed and boundary requests without a 5xx, ` + 'a stack or a path, errors in the REST shape',
    async () => {
      const operations = restOperations();
      const context: ArbitraryContext = { root: openapi, ids: target.ids };
      const calls = fc.oneof(...operations.map((operation) => callArbitrary(operation, context)));
      await fc.assert(
        fc.asyncProperty(calls, async (call) => {
          const headers = { ...call.headers, authorization: tokens[call.headers.authorization] };
          if (headers.authorization === '') delete (headers as Record<string, string>).authorization;
          const answer = await raw(target.h.url, { method: call.method, path: call.path, headers, body: call.body });
          const what =
            `${call.method} ${call.path} ${JSON.stringify(call.headers)} ${call.body?.slice(0, 300) ?? ''} ` +
            `-> ${answer.status} ${answer.body.slice(0, 500)}`;
          assert.ok(answer.status < 500, what);
          assertNoLeak(answer.body, what);
          if (answer.status >= 400) {
            let body: unknown;
            assert.doesNotThrow(() => (body = JSON.parse(answer.body)), what);
            assert.ok(isRestError(body), `${what}: not the REST error body (${JSON.stringify(isRestError.errors)})`);
          }
        }),
        fuzzRuns(RUNS),
      );
    },
  );

  it('still answers /healthz and a plain request afterwards', async () => {
    assert.equal((await fetch(`${target.h.url}/healthz`)).status, 200);
    const channels = await target.h.api('GET', '/v1/rest/channels', { token: target.account.apiKey });
    assert.equal(channels.status, 200);
  });
});
