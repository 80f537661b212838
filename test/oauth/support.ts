/**
 * Test helpers for the OAuth flows: PKCE pairs, registration, and a cookie-keeping user agent that
 * signs in and answers the consent page with plain HTTP form posts, following the CSRF token as a
 * browser would.
 */
import crypto from 'node:crypto';
import type { TestHerald } from '../support/herald.js';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'http://127.0.0.1:53682/callback';

export async function registerClient(
  h: TestHerald,
  metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret?: string }> {
  const response = await h.api('POST', '/oauth2/mcp/register', {
    body: { redirect_uris: [REDIRECT_URI], client_name: 'Test client', ...metadata },
  });
  if (response.status !== 201)
    throw new Error(`registration failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export function authorizeUrl(h: TestHerald, params: Record<string, string | undefined>): string {
  const url = new URL(h.url + '/oauth2/mcp/authorize');
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name} in page:\n${html}`);
  return match[1]
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

export interface PageResponse {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

/** A user agent with a cookie jar, driving the sign-in and consent forms without JavaScript. */
export class FormUser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<PageResponse> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(new URL(url, this.origin), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return {
      status: response.status,
      location: response.headers.get('location'),
      html: await response.text(),
      headers: response.headers,
    };
  }

  async signIn(page: PageResponse, email: string, password: string): Promise<PageResponse> {
    return this.request('/oauth2/mcp/authorize/sign-in', {
      form: {
        csrf_token: hiddenField(page.html, 'csrf_token'),
        authorization_request: hiddenField(page.html, 'authorization_request'),
        email,
        password,
      },
    });
  }

  async decide(
    page: PageResponse,
    decision: 'approve' | 'deny',
    options: { manageTeam?: boolean } = {},
  ): Promise<PageResponse> {
    const form: Record<string, string> = {
      csrf_token: hiddenField(page.html, 'csrf_token'),
      authorization_request: hiddenField(page.html, 'authorization_request'),
      decision,
    };
    if (options.manageTeam) form.manage_team = 'yes';
    return this.request('/oauth2/mcp/authorize/decision', { form });
  }

  /** The whole interactive part: open the authorization URL, sign in, decide; returns where Herald redirects. */
  async authorize(
    url: string,
    account: { email: string; password: string },
    decision: 'approve' | 'deny' = 'approve',
    options: { manageTeam?: boolean } = {},
  ): Promise<URL> {
    let page = await this.request(url);
    if (page.status !== 200) throw new Error(`authorize answered ${page.status} ${page.location ?? ''}`);
    if (page.html.includes('name="password"')) {
      const signedIn = await this.signIn(page, account.email, account.password);
      if (signedIn.status !== 303 || !signedIn.location)
        throw new Error(`sign-in answered ${signedIn.status}:\n${signedIn.html}`);
      page = await this.request(signedIn.location);
    }
    const decided = await this.decide(page, decision, options);
    if (decided.status !== 303 || !decided.location)
      throw new Error(`decision answered ${decided.status}:\n${decided.html}`);
    return new URL(decided.location);
  }
}

export async function tokenRequest(h: TestHerald, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(h.url + '/oauth2/mcp/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}
