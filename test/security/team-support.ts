/**
 * Real credentials for members of each role, made as a person makes them: a member added over REST with the
 * temporary password they are given, the app's session from its sign-in form, OAuth tokens from the consent
 * pages and the token endpoint.
 */
import assert from 'node:assert/strict';
import type { MemberRole } from '../../src/domain/members.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from '../oauth/support.js';
import type { ApiResponse, SeededAccount, TestHerald } from '../support/herald.js';

export interface Person {
  userId: string;
  email: string;
  password: string;
}

/** Adds a person with this role, with the owner's key; the account's owner is returned for 'owner' of the seed. */
export async function addPerson(t: TestHerald, a: SeededAccount, role: MemberRole, email: string): Promise<Person> {
  const added = await t.api('POST', '/v1/rest/members', { token: a.apiKey, body: { email, name: email, role } });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  return { userId: added.body.data.userId, email: added.body.data.email, password: added.body.data.temporaryPassword };
}

/** Signs in to the web app; the calls it makes carry the session cookie and the CSRF header, as the app's do. */
export async function appSession(t: TestHerald, person: { email: string; password: string }) {
  const page = await fetch(`${t.url}/app/sign-in`);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1];
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const c of response.headers.getSetCookie()) {
      const [pair] = c.split(';');
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
  };
  keep(page);
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const signedIn = await fetch(`${t.url}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: csrf, email: person.email, password: person.password }),
  });
  keep(signedIn);
  return {
    signedIn: signedIn.status === 303,
    cookie: cookie(),
    call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
      return t.api(method, path, {
        body,
        headers: { cookie: cookie(), 'x-csrf-token': jar.get('herald_web_csrf') ?? '' },
      });
    },
  };
}

/** Consents as the person (ticking manage_team when asked) and exchanges the code: the client's tokens. */
export async function oauthTokens(
  t: TestHerald,
  person: { email: string; password: string },
  options: { manageTeam?: boolean; clientId?: string } = {},
) {
  const clientId = options.clientId ?? (await registerClient(t, { client_name: 'Assistant' })).client_id;
  const { verifier, challenge } = pkcePair();
  const redirect = await new FormUser(t.url).authorize(
    authorizeUrl(t, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: t.url + '/mcp',
      scope: options.manageTeam ? 'read_profile manage_post manage_team' : undefined,
    }),
    person,
    'approve',
    { manageTeam: options.manageTeam },
  );
  const tokens = await tokenRequest(t, {
    grant_type: 'authorization_code',
    code: redirect.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    resource: t.url + '/mcp',
  });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  return {
    clientId,
    accessToken: tokens.body.access_token as string,
    refreshToken: tokens.body.refresh_token as string,
    scope: tokens.body.scope as string,
  };
}
