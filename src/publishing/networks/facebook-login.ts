import { graphFailure, graphRequest, graphTokenRefusal, type GraphToken } from './meta-graph.js';
import type { NetworkHttp } from './network-http.js';
import { OAuth2Client } from './oauth2-client.js';

/**
 * Facebook Login, the server-side flow (developers.facebook.com/documentation/facebook-login/guides/advanced/
 * manual-flow, access-tokens/get-long-lived; NETWORKS.md, connecting an account):
 * - the dialog is www.facebook.com/{version}/dialog/oauth with response_type=code; its origin follows
 *   NETWORK_ORIGIN_OVERRIDES like every call, so a private deployment or a test's fake plays Facebook for the browser;
 * - the code is exchanged at graph.facebook.com/{version}/oauth/access_token for a short-lived user token, which
 *   is exchanged again (grant_type=fb_exchange_token) for a long-lived one (about 60 days); both are GETs with
 *   the app in the query (the shared OAuth 2 client's Meta quirk), the first without a grant_type;
 * - /me/accounts, paged, lists the Pages the person granted, each with its own Page token; a Page token
 *   obtained from a long-lived user token does not expire.
 */

/** The operator's Meta app (config.networks.apps.facebook). */
export interface MetaApp {
  clientId: string;
  clientSecret: string;
  graphVersion: string;
}

export interface GrantedPage {
  id: string;
  name: string;
  accessToken: string;
  pictureUrl: string | null;
}

export function graphBase(app: MetaApp): string {
  return `https://graph.facebook.com/${app.graphVersion}`;
}

/** Facebook Login's consent dialog, for Pages or for Instagram accounts linked to them. */
export function facebookDialog(
  http: NetworkHttp,
  app: MetaApp,
  redirectUri: string,
  state: string,
  scopes: readonly string[],
): string {
  const query = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: redirectUri,
    state,
    response_type: 'code',
    scope: scopes.join(','),
  });
  return http.rewrite(`https://www.facebook.com/${app.graphVersion}/dialog/oauth?${query}`);
}

/** The code's user token, exchanged for a long-lived one. */
export async function facebookLongLivedToken(
  http: NetworkHttp,
  app: MetaApp,
  code: string,
  redirectUri: string,
  now: () => number,
): Promise<string> {
  const oauth = new OAuth2Client(
    http,
    {
      name: 'Facebook',
      tokenUrl: `${graphBase(app)}/oauth/access_token`,
      method: 'GET',
      clientAuth: 'body',
      appSettings: 'FACEBOOK_APP_ID and FACEBOOK_APP_SECRET',
      refusal: graphTokenRefusal('Facebook'),
    },
    () => app,
    now,
  );
  const short = await oauth.grant('exchange', { redirect_uri: redirectUri, code });
  const long = await oauth.grant('exchange', { grant_type: 'fb_exchange_token', fb_exchange_token: short.accessToken });
  return long.accessToken;
}

/** The code's long-lived user token, with the user's id. */
export async function facebookUserToken(
  http: NetworkHttp,
  app: MetaApp,
  code: string,
  redirectUri: string,
  now: number,
): Promise<{ userId: string; token: GraphToken }> {
  const accessToken = await facebookLongLivedToken(http, app, code, redirectUri, () => now);
  const token = { accessToken, appSecret: app.clientSecret };
  const me = await graphRequest(http, `${graphBase(app)}/me?fields=id,name`, token);
  if (me.status !== 200) throw graphFailure(me, now, { network: 'Facebook' });
  return { userId: String(me.json.id), token };
}

/** Every Page the person granted, with its Page token. */
export async function grantedPages(
  http: NetworkHttp,
  app: MetaApp,
  user: GraphToken,
  now: number,
): Promise<GrantedPage[]> {
  const pages: GrantedPage[] = [];
  let after: string | undefined;
  do {
    const query = new URLSearchParams({
      fields: 'id,name,access_token,picture{url}',
      limit: '100',
      ...(after ? { after } : {}),
    });
    const answer = await graphRequest(http, `${graphBase(app)}/me/accounts?${query}`, user);
    if (answer.status !== 200) throw graphFailure(answer, now, { network: 'Facebook' });
    for (const page of (answer.json?.data ?? []) as any[]) {
      if (typeof page.access_token !== 'string') continue;
      pages.push({
        id: String(page.id),
        name: String(page.name ?? page.id),
        accessToken: page.access_token,
        pictureUrl: page.picture?.data?.url ?? null,
      });
    }
    after = answer.json?.paging?.next ? answer.json.paging.cursors?.after : undefined;
  } while (after);
  return pages;
}
