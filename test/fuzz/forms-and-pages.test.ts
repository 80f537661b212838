/**
 * Fuzzing what browsers and OAuth clients post outside REST and MCP: the authorization endpoint and its three
 * forms (sign-in, decision, sign-out), registration, token and revocation, the web app's sign-in and sign-out,
 * and the networks' connect callbacks. Fields are drawn from real values (a registered client, a valid
 * authorization request, the signed-in browser's cookies and CSRF token, live connect states, some bound to
 * that browser) mixed with boundary strings, repeated fields, other content types and malformed bodies.
 * Whatever arrives, the answer is not a 5xx, carries no stack or file path, and is in its surface's shape: a
 * page for the browser forms and callbacks, `{error, error_description}` for the OAuth client endpoints.
 * Fixed seed (printed on failure); FUZZ_SEED replays one, FUZZ_RUNS scales the run.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { loadConfig } from '../../src/config.js';
import { pkcePair, REDIRECT_URI, registerClient } from '../oauth/support.js';
import { startFakeX, type FakeX } from '../support/fake-x.js';
import { TEST_DB } from '../support/herald.js';
import { assertNoLeak } from '../support/no-leak.js';
import { raw } from '../support/raw-http.js';
import { FUZZ_SEED, fuzzRuns, startFuzzTarget, type FuzzTarget } from './support/fuzz-setup.js';
import { BOUNDARY_STRINGS, SAFE_URLS, sometimes } from './support/schema-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);
const BROWSERS = 4;
const CONNECTS_PER_BROWSER = 4;

/** The browser forms, sign-outs rarer: each ends a browser's session, and what follows it reaches less. */
const PAGE_FORMS: [path: string, weight: number][] = [
  ['/oauth2/mcp/authorize/sign-in', 3],
  ['/oauth2/mcp/authorize/decision', 4],
  ['/oauth2/mcp/authorize/sign-out', 1],
  ['/app/sign-in', 2],
  ['/app/sign-out', 1],
];
const CLIENT_FORMS = ['/oauth2/mcp/token', '/oauth2/mcp/revoke'];
const NETWORKS = ['x', 'mastodon', 'linkedin', 'sandbox', 'bluesky', 'nope', '%E0%A4%A', '..', 'x%00', 'X'];
const CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded; charset=utf-16',
  '',
];
const MALFORMED_BODIES = [
  '',
  '=',
  '&&&',
  '%',
  '%E0%A4%A=1',
  'a=%zz',
  'a[b][c]=1',
  '__proto__[x]=1',
  '{"decision":"approve"}',
  'null',
  'x'.repeat(20_000),
  'a=1&'.repeat(2_000),
];

interface Browser {
  cookie: string;
  csrf: string;
}

interface Known {
  clientId: string;
  secretClientId: string;
  clientSecret: string;
  authorizationRequest: string;
  /** Browsers signed in to the app, each with its cookies and its CSRF token. */
  browsers: Browser[];
  email: string;
  password: string;
  states: string[];
  /** Where X sent the person back after consenting: a live state with its real code, some bound to a browser. */
  callbacks: string[];
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  surface: 'page' | 'oauth';
}

/** encodeURIComponent, after replacing lone surrogates (which it cannot encode). */
function encode(text: string): string {
  return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'));
}

function query(fields: Record<string, string | string[] | undefined>): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value])
      pairs.push(`${encode(name)}=${encode(item)}`);
  }
  return pairs.join('&');
}

/** A field's value: mostly one of the real ones given, else a boundary string or any string; now and then repeated. */
function field(...real: string[]): fc.Arbitrary<string | string[] | undefined> {
  const drawn = [
    { arbitrary: fc.constantFrom(...BOUNDARY_STRINGS), weight: 2 },
    { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
  ];
  const one = fc.oneof(...(real.length > 0 ? [{ arbitrary: fc.constantFrom(...real), weight: 8 }] : []), ...drawn);
  return fc.oneof(
    { arbitrary: one, weight: 12 },
    { arbitrary: fc.array(one, { minLength: 2, maxLength: 3 }), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 2 },
  );
}

function authorizationQuery(k: Known, h: FuzzTarget['h']): fc.Arbitrary<string> {
  const valid = fc.constant(k.authorizationRequest);
  const drawn = fc
    .record(
      {
        response_type: field('code', 'token'),
        client_id: field(k.clientId, k.secretClientId, 'hc_unknown', ...SAFE_URLS.slice(0, 3)),
        redirect_uri: field(REDIRECT_URI, 'http://127.0.0.1:53682/other', ...SAFE_URLS),
        code_challenge: field(pkcePair().challenge, 'short'),
        code_challenge_method: field('S256', 'plain'),
        resource: field(`${h.url}/mcp`, `${h.url}/mcp/claude`, 'https://other.example/mcp'),
        scope: field('read_profile manage_post', 'manage_team', 'openid'),
        state: field('s1'),
      },
      { requiredKeys: [] },
    )
    .map(query);
  return fc.oneof(
    { arbitrary: valid, weight: 3 },
    { arbitrary: drawn, weight: 4 },
    { arbitrary: fc.constantFrom('', '%', 'client_id=%E0%A4%A', 'a[b]=1'), weight: 1 },
  );
}

/** A browser: mostly a signed-in one (its cookies and CSRF token go together), else none or broken cookies. */
function browsers(k: Known): fc.Arbitrary<{ cookie?: string; csrf: string }> {
  const csrf = k.browsers[0].csrf;
  return fc.oneof(
    { arbitrary: fc.constantFrom(...k.browsers), weight: 6 },
    { arbitrary: fc.constant({ csrf }), weight: 3 },
    {
      arbitrary: fc
        .constantFrom(
          `herald_web_csrf=${csrf}`,
          'herald_web_sign_in=hs_junk',
          'herald_web_sign_in=%E0%A4%A; herald_web_csrf=%',
          `herald_web_sign_in=hs_${'A'.repeat(43)}`,
        )
        .map((cookie) => ({ cookie, csrf })),
      weight: 1,
    },
  );
}

function formBody(
  fields: fc.Arbitrary<Record<string, string | string[] | undefined>>,
): fc.Arbitrary<{ contentType?: string; body?: string }> {
  return fc.oneof(
    {
      arbitrary: fields.map((f) => ({ contentType: 'application/x-www-form-urlencoded', body: query(f) })),
      weight: 12,
    },
    {
      arbitrary: fc.record({
        contentType: fc.constantFrom(...CONTENT_TYPES),
        body: fc.constantFrom(...MALFORMED_BODIES),
      }),
      weight: 2,
    },
    { arbitrary: fields.map((f) => ({ contentType: 'application/json', body: JSON.stringify(f) })), weight: 1 },
    { arbitrary: fc.constant({}), weight: 1 },
  );
}

function calls(k: Known, h: FuzzTarget['h']): fc.Arbitrary<Call> {
  const authorize = fc.record({ q: authorizationQuery(k, h), browser: browsers(k) }).map(
    ({ q, browser: { cookie } }): Call => ({
      method: 'GET',
      path: `/oauth2/mcp/authorize?${q}`,
      headers: cookie ? { cookie } : {},
      surface: 'page',
    }),
  );
  const pageFields = (csrf: string) =>
    fc.record(
      {
        csrf_token: field(csrf),
        authorization_request: fc.oneof(authorizationQuery(k, h), field()),
        email: field(k.email, 'nobody@example.test'),
        password: field(k.password, 'wrong'),
        decision: field('approve', 'deny'),
        manage_team: field('yes'),
        next: field('/app', '/app/calendar', 'https://evil.example/', '//evil.example', '/app/../../x'),
      },
      { requiredKeys: [] },
    );
  const pageForm = fc
    .record({
      path: fc.oneof(...PAGE_FORMS.map(([path, weight]) => ({ arbitrary: fc.constant(path), weight }))),
      browser: browsers(k),
    })
    .chain(({ path, browser }) =>
      formBody(pageFields(browser.csrf)).map(
        (body): Call => ({
          method: 'POST',
          path,
          body: body.body,
          surface: 'page',
          headers: {
            ...(browser.cookie ? { cookie: browser.cookie } : {}),
            ...(body.contentType ? { 'content-type': body.contentType } : {}),
          },
        }),
      ),
    );
  const clientFields = fc.record(
    {
      grant_type: field('authorization_code', 'refresh_token', 'client_credentials', 'password'),
      code: field('hoc_junk'),
      code_verifier: field(pkcePair().verifier, 'short'),
      redirect_uri: field(REDIRECT_URI),
      client_id: field(k.clientId, k.secretClientId, 'hc_unknown', SAFE_URLS[0]),
      client_secret: field(k.clientSecret, 'hcs_wrong'),
      refresh_token: field('hor_junk'),
      token: field('hoa_junk', 'hor_junk', 'hk_junk'),
      token_type_hint: field('access_token', 'refresh_token'),
      resource: field(`${h.url}/mcp`, `${h.url}/mcp/claude`),
    },
    { requiredKeys: [] },
  );
  const basic = sometimes(
    fc.constantFrom(
      `Basic ${Buffer.from(`${k.secretClientId}:${k.clientSecret}`).toString('base64')}`,
      `Basic ${Buffer.from(`${k.secretClientId}:wrong`).toString('base64')}`,
      'Basic %%%',
      'Basic ',
      'Bearer hk_junk',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}`,
    ),
    4,
  );
  const clientForm = fc
    .record({ path: fc.constantFrom(...CLIENT_FORMS), body: formBody(clientFields), authorization: basic })
    .map(
      ({ path, body, authorization }): Call => ({
        method: 'POST',
        path,
        body: body.body,
        surface: 'oauth',
        headers: {
          ...(authorization ? { authorization } : {}),
          ...(body.contentType ? { 'content-type': body.contentType } : {}),
        },
      }),
    );
  /** Mostly the valid value, now and then one of the odd ones. */
  const mostly = (valid: unknown, ...odd: unknown[]) =>
    fc.oneof({ arbitrary: fc.constant(valid), weight: 12 }, { arbitrary: fc.constantFrom(...odd), weight: 1 });
  const metadata = fc.record(
    {
      redirect_uris: fc.oneof(
        { arbitrary: fc.constant([REDIRECT_URI]), weight: 8 },
        {
          arbitrary: fc.array(
            fc.constantFrom(REDIRECT_URI, 'https://notes.example/cb', ...SAFE_URLS, ...BOUNDARY_STRINGS.slice(0, 12)),
            { maxLength: 3 },
          ),
          weight: 2,
        },
        { arbitrary: fc.constantFrom<unknown>('x', null, 7, {}), weight: 1 },
      ),
      client_name: fc.oneof(
        fc.constant('Fuzz client'),
        fc.constantFrom(...BOUNDARY_STRINGS),
        fc.constantFrom<unknown>(7, null, []),
      ),
      client_uri: mostly('https://notes.example/', ...SAFE_URLS, 7),
      logo_uri: mostly('https://notes.example/logo.png', ...SAFE_URLS),
      tos_uri: mostly('http://127.0.0.1:9/terms', ...SAFE_URLS),
      token_endpoint_auth_method: mostly('none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt', 1),
      grant_types: mostly(['authorization_code', 'refresh_token'], ['implicit'], [], 'authorization_code'),
      application_type: mostly('native', 'web', 'browser', null),
      scope: mostly('read_profile', '', 7),
    },
    { requiredKeys: ['redirect_uris'] },
  );
  const register = fc
    .record({
      body: fc.oneof(
        { arbitrary: metadata.map((m) => JSON.stringify(m)), weight: 8 },
        { arbitrary: fc.constantFrom(...MALFORMED_BODIES, '[]', '{', '"x"'), weight: 2 },
      ),
      contentType: fc.oneof(
        { arbitrary: fc.constant('application/json'), weight: 8 },
        { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 1 },
      ),
    })
    .map(
      ({ body, contentType }): Call => ({
        method: 'POST',
        path: '/oauth2/mcp/register',
        body,
        surface: 'oauth',
        headers: contentType ? { 'content-type': contentType } : {},
      }),
    );
  const signInPage = fc
    .record({
      next: field('/app/calendar', 'https://evil.example/', '//evil.example', '/app/%0d%0aSet-Cookie:x'),
      browser: browsers(k),
    })
    .map(
      ({ next, browser: { cookie } }): Call => ({
        method: 'GET',
        path: `/app/sign-in?${query({ next })}`,
        headers: cookie ? { cookie } : {},
        surface: 'page',
      }),
    );
  const drawnCallback = fc
    .record(
      {
        state: field(...k.states),
        code: field('fake-code', 'denied'),
        error: sometimes(fc.constantFrom('access_denied', '<script>alert(1)</script>', ''), 4),
        error_description: field('The user said no'),
      },
      { requiredKeys: [] },
    )
    .map(query);
  const callback = fc
    .record({
      network: fc.oneof(
        { arbitrary: fc.constant('x'), weight: 6 },
        { arbitrary: fc.constantFrom(...NETWORKS), weight: 1 },
      ),
      params: fc.oneof(
        { arbitrary: fc.constantFrom(...k.callbacks), weight: 1 },
        { arbitrary: drawnCallback, weight: 2 },
      ),
      browser: browsers(k),
    })
    .map(
      ({ network, params, browser: { cookie } }): Call => ({
        method: 'GET',
        path: `/connect/${network}/callback?${params}`,
        headers: cookie ? { cookie } : {},
        surface: 'page',
      }),
    );
  return fc.oneof(authorize, pageForm, clientForm, register, signInPage, callback);
}

describe(`fuzz: OAuth forms, sign-in pages and connect callbacks (${TEST_DB}, seed ${FUZZ_SEED})`, function () {
  this.timeout(300_000);
  let x: FakeX;
  let target: FuzzTarget;
  let known: Known;

  before(async () => {
    x = await startFakeX();
    target = await startFuzzTarget({
      networkOriginOverrides: { 'https://x.com': x.url, 'https://api.x.com': x.url },
      networks: { ...loadConfig({}).networks, apps: { x: { clientId: x.clientId, clientSecret: x.clientSecret } } },
      // The X fake the callbacks reach listens on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
      oauthThrottles: { registrationsPerHour: 1_000_000, failedSignInsPerWindow: 1_000_000 },
    });
    const { h, account } = target;
    x.redirectUris.push(`${h.url}/connect/x/callback`);
    const client = await registerClient(h);
    const confidential = await registerClient(h, { token_endpoint_auth_method: 'client_secret_basic' });
    const states: string[] = [];
    const callbacks: string[] = [];
    /** Starts connecting X (in a browser, or with the API key) and plays the person at X's consent screen. */
    const connect = async (started: Response) => {
      assert.equal(started.status, 200, 'a connect flow starts');
      const consent = await fetch((await started.json()).authorizationUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      states.push(back.searchParams.get('state')!);
      callbacks.push(back.search.slice(1));
    };
    const signedIn: Browser[] = [];
    for (let b = 0; b < BROWSERS; b++) {
      const jar = new Map<string, string>();
      const send = async (
        path: string,
        init: { method?: string; headers?: Record<string, string>; body?: string } = {},
      ) => {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await fetch(h.url + path, {
          ...init,
          headers: { ...init.headers, cookie },
          redirect: 'manual',
        });
        for (const set of response.headers.getSetCookie()) {
          const [pair] = set.split(';');
          jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
        }
        return response;
      };
      const csrfField = /name="csrf_token" value="([^"]+)"/.exec(await (await send('/app/sign-in')).text())![1];
      const answer = await send('/app/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          csrf_token: csrfField,
          email: account.email,
          password: account.password,
        }).toString(),
      });
      assert.equal(answer.status, 303, 'a fuzz browser signs in');
      // Half the connections start in this browser (bound to it), half with the API key.
      for (let i = 0; i < CONNECTS_PER_BROWSER; i++) {
        await connect(
          i % 2 === 0
            ? await send('/v1/rest/channels/connect', {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-csrf-token': jar.get('herald_web_csrf')! },
                body: '{"network":"x"}',
              })
            : await fetch(`${h.url}/v1/rest/channels/connect`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', authorization: `Bearer ${account.apiKey}` },
                body: '{"network":"x"}',
              }),
        );
      }
      signedIn.push({
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        csrf: jar.get('herald_web_csrf')!,
      });
    }
    known = {
      clientId: client.client_id,
      secretClientId: confidential.client_id,
      clientSecret: confidential.client_secret!,
      authorizationRequest: query({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        resource: `${h.url}/mcp`,
        state: 's',
      }),
      browsers: signedIn,
      email: account.email,
      password: account.password,
      states,
      callbacks,
    };
  });
  after(async () => {
    await target?.h.close();
    await x?.close();
  });

  it(
    `answers ${RUNS} malformed and boundary form posts, ` +
      "pages and callbacks without a 5xx, a stack or a path, in each surface's shape",
    async () => {
      await fc.assert(
        fc.asyncProperty(calls(known, target.h), async (call) => {
          const answer = await raw(target.h.url, {
            method: call.method,
            path: call.path,
            headers: call.headers,
            body: call.body,
          });
          const what =
            `${call.method} ${call.path.slice(0, 300)} ${JSON.stringify(call.headers)} ` +
            `${call.body?.slice(0, 300) ?? ''} -> ${answer.status} ${answer.body.slice(0, 500)}`;
          assert.ok(answer.status < 500, what);
          assertNoLeak(answer.body, what);
          // 431: the server refuses oversized URLs and headers before any surface sees them (http/app-server.ts).
          if (answer.status < 400 || answer.status === 431) return;
          if (call.surface === 'page') {
            assert.match(String(answer.headers['content-type']), /^text\/html/, what);
            return;
          }
          let body: { error?: unknown; error_description?: unknown } = {};
          assert.doesNotThrow(() => (body = JSON.parse(answer.body)), what);
          assert.equal(typeof body.error, 'string', what);
          assert.equal(typeof body.error_description, 'string', what);
        }),
        fuzzRuns(RUNS),
      );
    },
  );

  it('still answers the authorization page afterwards', async () => {
    assert.equal((await fetch(`${target.h.url}/healthz`)).status, 200);
    const page = await fetch(`${target.h.url}/oauth2/mcp/authorize?${known.authorizationRequest}`, {
      headers: { cookie: known.browsers[0].cookie },
    });
    assert.equal(page.status, 200);
  });
});
