/** The validator's route matchers, memoized: one per route and routing options, the same as compiling afresh. */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { memoizeValidatorRouteMatchers } from '../../src/rest/validator-route-matchers.js';

type Matcher = { regexp: RegExp; keys: { name: string }[] };
const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const pathToRegexp = () =>
  (fromValidator('path-to-regexp') as { pathToRegexp: (path: unknown, options?: object) => Matcher }).pathToRegexp;

describe('validator route matchers', () => {
  before(() => memoizeValidatorRouteMatchers());

  it('gives the validator one matcher per route and options, matching as a fresh one does', () => {
    const match = pathToRegexp();
    const matcher = match('/v1/rest/posts/:id', { sensitive: false, strict: false });
    assert.equal(match('/v1/rest/posts/:id', { sensitive: false, strict: false }), matcher);
    assert.notEqual(match('/v1/rest/posts/:id', { sensitive: true, strict: false }), matcher);
    assert.notEqual(match('/v1/rest/posts/:id', { sensitive: false, strict: true }), matcher);
    assert.deepEqual(
      matcher.keys.map((k) => k.name),
      ['id'],
    );
    assert.equal(matcher.regexp.exec('/v1/rest/posts/abc')?.[1], 'abc');
    assert.equal(matcher.regexp.exec('/V1/REST/POSTS/abc')?.[1], 'abc', 'not case sensitive');
    assert.equal(
      match('/v1/rest/posts/:id', { sensitive: true, strict: false }).regexp.exec('/V1/REST/POSTS/abc'),
      null,
    );
  });

  it('compiles afresh for any other call shape', () => {
    const match = pathToRegexp();
    assert.notEqual(match('/a/:b', { end: false }), match('/a/:b', { end: false }));
    assert.notEqual(match(['/a', '/b']), match(['/a', '/b']));
  });
});
