/**
 * The form endpoints of the authorization pages and the web app with a body that is not a form: none, JSON,
 * plain text. Each answers a 4xx with a message in its own shape (a page, or OAuth's JSON), never a 500.
 */
import assert from 'node:assert/strict';
import { startTestHerald, type TestHerald } from '../support/herald.js';

const FORM_PAGES = [
  '/oauth2/mcp/authorize/sign-in',
  '/oauth2/mcp/authorize/decision',
  '/oauth2/mcp/authorize/sign-out',
  '/app/sign-in',
  '/app/sign-out',
];
const CLIENT_FORM_PATHS = ['/oauth2/mcp/token', '/oauth2/mcp/revoke'];
const OAUTH_JSON = [...CLIENT_FORM_PATHS, '/oauth2/mcp/register'];

/** Each body, with the status and message every endpoint answers it with (an empty form fails each its own way). */
const BODIES: { name: string; headers: Record<string, string>; body?: string; status?: number; message?: RegExp }[] = [
  { name: 'no body', headers: {}, status: 400, message: /The form arrived empty/ },
  { name: 'an empty form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' },
  {
    name: 'a JSON body',
    headers: { 'content-type': 'application/json' },
    body: '{"csrf_token":"x","authorization_request":"client_id=x"}',
    status: 415,
    message: /sent as application\/x-www-form-urlencoded, not application\/json/,
  },
  {
    name: 'JSON that is not an object',
    headers: { 'content-type': 'application/json' },
    body: '"decision"',
    status: 415,
    message: /not application\/json/,
  },
  {
    name: 'a text/plain body',
    headers: { 'content-type': 'text/plain' },
    body: 'decision=approve',
    status: 415,
    message: /not text\/plain/,
  },
];

describe('OAuth and app form endpoints given a body that is not a form', () => {
  let h: TestHerald;

  before(async () => {
    h = await startTestHerald();
  });
  after(() => h.close());

  for (const { name, headers, body, status, message } of BODIES) {
    it(`answers ${name} with a 4xx page or OAuth error, never a 500`, async () => {
      for (const path of [...FORM_PAGES, ...OAUTH_JSON]) {
        const response = await fetch(h.url + path, { method: 'POST', headers, body, redirect: 'manual' });
        const text = await response.text();
        assert.ok(response.status >= 400 && response.status < 500, `${path}: ${response.status} ${text.slice(0, 300)}`);
        if (status !== undefined && !path.endsWith('/register')) {
          assert.equal(response.status, status, path);
          assert.match(text, message!, path);
        }
        assert.doesNotMatch(text, /at .*\.(ts|js):\d+|TypeError|Cannot read/, `${path} shows no stack trace`);
        if (FORM_PAGES.includes(path)) {
          assert.match(response.headers.get('content-type') ?? '', /text\/html/, path);
        } else {
          assert.match(response.headers.get('content-type') ?? '', /application\/json/, path);
          assert.equal(typeof JSON.parse(text).error, 'string', path);
        }
      }
    });
  }

  it(
    'refuses a field sent twice with a 400 naming it ' + '(a repeated client_id was a 500 at the token endpoint)',
    async () => {
      const twice =
        'grant_type=authorization_code&code=hoc_x&client_id=hc_one&client_id=hc_two&redirect_uri=x&code_verifier=y';
      for (const path of [...FORM_PAGES, ...CLIENT_FORM_PATHS]) {
        const response = await fetch(h.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: twice,
        });
        const text = await response.text();
        assert.equal(response.status, 400, `${path}: ${text.slice(0, 300)}`);
        assert.match(text, /The field client_id is sent more than once; send it once\./, path);
      }
    },
  );
});
