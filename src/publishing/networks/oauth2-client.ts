import { NetworkError } from '../../domain/networks/connector.js';
import { retryAtFrom, type NetworkAnswer, type NetworkHttp } from './network-http.js';

/**
 * The OAuth 2 token requests every connector makes (RFC 6749 sections 4.1.3, 5 and 6; RFC 7636 for PKCE), written
 * once; each connector names its token endpoint and its quirks as an OAuth2Network.
 *
 * Rules kept here:
 * - the operator's app is sent the way the network asks: HTTP Basic (X, Pinterest, with X's client_id in the body
 *   too), or in the body under the network's own names (TikTok's client_key); Meta's token calls are GETs with
 *   their parameters in the query, and its long-lived exchanges and refreshes send only what Meta asks;
 * - a token answer is read once: the access token, the refresh token if any, both lifetimes (expires_in,
 *   refresh_token_expires_in or TikTok's refresh_expires_in) as epoch ms, the scopes (space or comma separated),
 *   and the whole answer for a network's extra fields (TikTok's open_id, Threads' user_id);
 * - a refusal is classified once: 429 and 5xx (or what the network calls transient) retry later, as does a token
 *   endpoint that cannot be reached (a token request changes nothing a person sees); invalid_client and
 *   unauthorized_client are the operator's app, refused: permanent, saying which settings to check; on a refresh,
 *   invalid_grant and the network's documented equivalents (X's and LinkedIn's invalid_request, Pinterest's 400,
 *   Meta's code 190) need the person to reconnect; any other refusal is permanent, in the network's words;
 * - no token, code or secret is ever put in a message.
 */

/** The operator's app at a network. */
export interface OAuth2App {
  clientId: string;
  clientSecret: string;
}

/** A refusal in OAuth terms, read from a network's own error form. */
export interface TokenRefusal {
  /** RFC 6749's error code, or the network's equivalent mapped to it. */
  error?: string;
  /** The network's words for it. */
  said: string;
  /** The network calls this failure transient (Meta's throttling codes under a 400). */
  transient?: boolean;
  /** When the network said to come back, where its own headers say it. */
  retryAt?: number;
}

export interface OAuth2Network {
  /** The network's name in messages ("X", "Google"). */
  name: string;
  tokenUrl: string;
  /** How the app proves itself: HTTP Basic, or client id and secret in the body. */
  clientAuth: 'basic' | 'body';
  /** The body's name for the client id (TikTok: client_key). */
  clientIdField?: string;
  /** With Basic, the client id is sent in the body too (X). */
  clientIdInBody?: boolean;
  /** GET with the parameters in the query (Meta), instead of a form POST. */
  method?: 'GET' | 'POST';
  /** The operator's settings for the app, named when the network refuses it. */
  appSettings: string;
  /** Error codes this network answers to a refresh token it no longer takes, besides invalid_grant. */
  reconnectErrors?: readonly string[];
  /** Why a refresh token stops working at this network, for the person reconnecting. */
  reconnectHint?: string;
  /** The network's error form read as a refusal, where it is not RFC 6749's `error` and `error_description`. */
  refusal?(answer: NetworkAnswer, now: number): TokenRefusal;
  /** Headers every token request carries (Reddit's descriptive User-Agent). */
  headers?: Record<string, string>;
  /** The token in the answer, where the network wraps it (Instagram's data[0]). */
  unwrap?(json: any): any;
}

export interface TokenGrant {
  accessToken: string;
  refreshToken: string | null;
  /** Epoch ms, when the network said. */
  expiresAt: number | null;
  refreshExpiresAt: number | null;
  scopes: string[];
  /** The whole token answer, for a network's own fields. */
  answer: Record<string, any>;
}

/** Which of the app's credentials a grant sends: both (the default), the secret alone, or none (Meta's refreshes). */
export type ClientCredentials = 'both' | 'secret' | 'none';

export interface GrantOptions {
  /** Another endpoint of the same network (Meta's long-lived exchange and refresh). */
  url?: string;
  credentials?: ClientCredentials;
  /** Meta's code exchanges are form POSTs while its long-lived exchanges and refreshes are GETs. */
  method?: 'GET' | 'POST';
}

const CLIENT_ERRORS = new Set(['invalid_client', 'unauthorized_client']);

export class OAuth2Client {
  constructor(
    private readonly http: NetworkHttp,
    private readonly network: OAuth2Network,
    private readonly app: () => OAuth2App,
    private readonly now: () => number,
  ) {}

  /** The authorization code's token (with the PKCE verifier where the consent sent a challenge). */
  exchangeCode(input: {
    code: string;
    redirectUri: string;
    codeVerifier?: string;
    extra?: Record<string, string>;
  }): Promise<TokenGrant> {
    return this.grant('exchange', {
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      ...(input.codeVerifier ? { code_verifier: input.codeVerifier } : {}),
      ...input.extra,
    });
  }

  /** A new access token for a refresh token. */
  refresh(refreshToken: string): Promise<TokenGrant> {
    return this.grant('refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /**
   * Any token request: `refresh` when the answer renews a channel's stored grant (a refusal may then need a
   * reconnect), `exchange` while connecting.
   */
  async grant(
    purpose: 'exchange' | 'refresh',
    params: Record<string, string>,
    options: GrantOptions = {},
  ): Promise<TokenGrant> {
    const { url, request } = this.request(params, options);
    let answer: NetworkAnswer;
    try {
      answer = await this.http.request(url, request);
    } catch (error) {
      // A token request changes nothing a person sees: one whose answer was lost is simply asked again.
      if (error instanceof NetworkError && error.kind === 'unknown_outcome') {
        throw new NetworkError('retry_later', error.message);
      }
      throw error;
    }
    const token = answer.status === 200 ? (this.network.unwrap?.(answer.json) ?? answer.json) : undefined;
    if (typeof token?.access_token !== 'string') throw this.classify(answer, purpose);
    return this.read(token);
  }

  private request(params: Record<string, string>, options: GrantOptions) {
    const network = this.network;
    const credentials = options.credentials ?? 'both';
    const fields: Record<string, string> = { ...params };
    const headers: Record<string, string> = { ...network.headers };
    if (credentials !== 'none') {
      const app = this.app();
      if (credentials === 'both' && network.clientAuth === 'basic') {
        const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`, 'utf8').toString('base64');
        headers.authorization = `Basic ${basic}`;
        if (network.clientIdInBody) fields[network.clientIdField ?? 'client_id'] = app.clientId;
      } else {
        if (credentials === 'both') fields[network.clientIdField ?? 'client_id'] = app.clientId;
        fields.client_secret = app.clientSecret;
      }
    }
    const target = options.url ?? network.tokenUrl;
    if ((options.method ?? network.method) === 'GET') {
      return { url: `${target}?${new URLSearchParams(fields)}`, request: { headers } };
    }
    return { url: target, request: { method: 'POST' as const, headers, form: fields } };
  }

  private read(token: Record<string, any>): TokenGrant {
    const now = this.now();
    const lifetime = (seconds: unknown) =>
      Number.isFinite(Number(seconds)) && Number(seconds) > 0 ? now + Number(seconds) * 1000 : null;
    return {
      accessToken: token.access_token,
      refreshToken: typeof token.refresh_token === 'string' ? token.refresh_token : null,
      expiresAt: lifetime(token.expires_in),
      refreshExpiresAt: lifetime(token.refresh_token_expires_in ?? token.refresh_expires_in),
      scopes: String(token.scope ?? '')
        .split(/[\s,]+/)
        .filter(Boolean),
      answer: token,
    };
  }

  private classify(answer: NetworkAnswer, purpose: 'exchange' | 'refresh'): NetworkError {
    const network = this.network;
    const refusal = network.refusal?.(answer, this.now()) ?? oauthRefusal(answer);
    const what = purpose === 'refresh' ? 'refused to refresh the access token' : 'did not grant a token';
    const words = `${network.name} ${what} (${refusal.said})`;
    if (answer.status === 429 || answer.status >= 500 || refusal.transient) {
      return new NetworkError('retry_later', words, refusal.retryAt ?? retryAtFrom(answer, this.now()));
    }
    if (refusal.error && CLIENT_ERRORS.has(refusal.error)) {
      return new NetworkError(
        'permanent',
        `${words}: it does not accept this Herald's app; the operator must check ${network.appSettings}`,
      );
    }
    const lapsed =
      refusal.error === 'invalid_grant' ||
      (refusal.error !== undefined && (network.reconnectErrors ?? []).includes(refusal.error));
    if (purpose === 'refresh' && lapsed) {
      return new NetworkError(
        'reconnect_needed',
        `${words}; reconnect the channel${network.reconnectHint ? ` (${network.reconnectHint})` : ''}`,
      );
    }
    return new NetworkError('permanent', words);
  }
}

/** RFC 6749 section 5.2's error answer, with the words networks put beside it. */
export function oauthRefusal(answer: NetworkAnswer): TokenRefusal {
  const json = answer.json ?? {};
  const error = typeof json.error === 'string' ? json.error : undefined;
  const said = json.error_description ?? json.error_message ?? json.message ?? error ?? `HTTP ${answer.status}`;
  return { error, said: String(said) };
}
