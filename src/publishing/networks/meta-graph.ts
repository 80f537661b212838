import crypto from 'node:crypto';
import { NetworkError, type ConnectorChannel } from '../../domain/networks/connector.js';
import type { NetworkAnswer, NetworkHttp, NetworkRequest } from './network-http.js';
import type { OAuth2Network, TokenRefusal } from './oauth2-client.js';

/**
 * What Facebook Pages and Instagram share: Meta's Graph API (developers.facebook.com/docs/graph-api: using the
 * Graph API, error handling, rate limiting, securing requests; NETWORKS.md, failure signals).
 *
 * Rules kept here:
 * - every call names the configured Graph version, sends its token as a bearer header (never in a URL Herald might
 *   log) and the token's appsecret_proof, so an app that requires the proof is served;
 * - a failure is classified once, from Meta's `error` object:
 *   - codes 4, 17, 32, 613 and 80001-80014 are throttling: retry when `X-Business-Use-Case-Usage` says access
 *     returns (estimated_time_to_regain_access, minutes), or after Meta's rolling hour when only `X-App-Usage`
 *     says the app's budget is spent; an answer that reports a spent budget pauses the channel until then;
 *   - 190 is the token: expired (subcode 463) is refreshed where the network can refresh, anything else (password
 *     changed, app removed, invalid) needs a person to reconnect; 10 and 200-299 are a permission not granted,
 *     which only a reconnect granting it mends;
 *   - 368 (blocked for policy reasons) and 506 (duplicate post) are permanent: retrying would not help;
 *   - Instagram: 2207042 is the account's daily publishing cap (retry later), 2207003 a media download that timed
 *     out (retry later: Herald serves the file itself), 9007 and 2207027 a container not ready yet (retry later);
 *     Instagram sends these as the `error_subcode` under a generic code (9, -2), so either field is matched;
 *   - Threads: 4279009 (code 24, "Media Not Found") from threads_publish is a container Threads has not finished
 *     creating, though its status may already say FINISHED (retry later, with new containers);
 *   - codes 1 and 2, `is_transient`, a 5xx, and code 33 on a read of a status are transient: a read retries later;
 *     the one call that can make the post answers an unknown outcome instead, settled by looking the post up, so
 *     a post that went live is never marked failed (postiz-app #1562, #1568);
 *   - any other refusal is permanent, with Meta's own message;
 * - the token endpoints (code exchange, long-lived exchange, refresh) are refused in the same terms, or in the
 *   OAuth endpoints' {error_type, code, error_message}: a token Meta no longer takes (190, 401) or a permission
 *   withdrawn is a grant only a reconnect renews; throttling and transient codes retry later.
 */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);
const TOKEN_EXPIRED_SUBCODE = 463;
const TRANSIENT_CODES = new Set([1, 2]);
const RETRY_LATER_CODES = new Set([2207042, 2207003, 9007, 2207027, 4279009]);
const PERMISSION_CODES = new Set([10]);
/** Meta's application-level limit is a rolling hour: when X-App-Usage says 100 %, the hour must pass. */
const APP_USAGE_WINDOW_MS = 60 * 60_000;

export interface GraphCall {
  /** The network's display name, for messages. */
  network: string;
  /** This call can make the post (a feed post, media_publish): a transient failure is an unknown outcome. */
  makesPost?: boolean;
  /** This call only reads a status (a permalink, a container): Meta's code 33 there is transient. */
  statusRead?: boolean;
  /** The connector can refresh an expired token (Instagram Login; a Page token from its user token). */
  refreshable?: boolean;
}

export interface GraphToken {
  accessToken: string;
  /** The app's secret, for the appsecret_proof. */
  appSecret: string;
}

/** HMAC-SHA256 of the access token under the app secret, as Meta's "Require App Secret" setting asks. */
export function appSecretProof(token: GraphToken): string {
  return crypto.createHmac('sha256', token.appSecret).update(token.accessToken).digest('hex');
}

/** Calls the Graph API with a token: bearer header and appsecret_proof; any status is returned, not thrown. */
export async function graphRequest(
  http: NetworkHttp,
  url: string,
  token: GraphToken,
  request: NetworkRequest = {},
): Promise<NetworkAnswer> {
  const target = new URL(url);
  target.searchParams.set('appsecret_proof', appSecretProof(token));
  return http.request(target.toString(), {
    ...request,
    headers: { ...request.headers, authorization: `Bearer ${token.accessToken}` },
  });
}

/** When Meta's usage headers say access returns (epoch ms), if they say the budget is spent. */
export function usageRetryAt(answer: NetworkAnswer, now: number): number | undefined {
  let minutes = 0;
  const business = parseHeader(answer.header('x-business-use-case-usage'));
  if (business && typeof business === 'object') {
    for (const entries of Object.values(business)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) minutes = Math.max(minutes, Number(entry?.estimated_time_to_regain_access) || 0);
    }
  }
  if (minutes > 0) return now + minutes * 60_000;
  for (const name of ['x-app-usage', 'x-ad-account-usage']) {
    const usage = parseHeader(answer.header(name));
    if (usage && typeof usage === 'object' && Object.values(usage).some((value) => Number(value) >= 100))
      return now + APP_USAGE_WINDOW_MS;
  }
  return undefined;
}

/** An answer whose usage headers say the budget is spent pauses the channel until access returns. */
export async function observeGraphBudget(channel: ConnectorChannel, answer: NetworkAnswer, now: number): Promise<void> {
  const at = usageRetryAt(answer, now);
  if (at && at > now) await channel.pauseUntil(at);
}

function parseHeader(value: string | undefined): any {
  if (!value) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** Meta's error object of a failed answer, classified (see the rules above). */
export function graphFailure(answer: NetworkAnswer, now: number, call: GraphCall): NetworkError {
  const error = answer.json?.error ?? {};
  const code = Number(error.code);
  const subcode = Number(error.error_subcode);
  const said = typeof error.message === 'string' ? error.message : `HTTP ${answer.status}`;
  const userWords =
    typeof error.error_user_msg === 'string' && error.error_user_msg !== said ? ` ${error.error_user_msg}` : '';
  const words =
    `${call.network} answered: ${said}${userWords} (code ${Number.isFinite(code) ? code : 'none'}` +
    `${Number.isFinite(subcode) ? `, subcode ${subcode}` : ''})`;
  const transient = call.makesPost
    ? new NetworkError('unknown_outcome', words)
    : new NetworkError('retry_later', words, usageRetryAt(answer, now));

  if (RATE_LIMIT_CODES.has(code) || (code >= 80001 && code <= 80014))
    return new NetworkError('retry_later', words, usageRetryAt(answer, now));
  if (code === 190) {
    if (subcode === TOKEN_EXPIRED_SUBCODE && call.refreshable) return new NetworkError('refresh_and_retry', words);
    return new NetworkError('reconnect_needed', words);
  }
  if (PERMISSION_CODES.has(code) || (code >= 200 && code <= 299)) {
    return new NetworkError(
      'reconnect_needed',
      `${words}; reconnect the channel and grant the permission Herald asks for`,
    );
  }
  if (RETRY_LATER_CODES.has(code) || RETRY_LATER_CODES.has(subcode))
    return new NetworkError('retry_later', words, usageRetryAt(answer, now));
  if (TRANSIENT_CODES.has(code) || error.is_transient === true || answer.status >= 500) return transient;
  if (code === 33 && call.statusRead) return transient;
  if (answer.status === 401) return new NetworkError('reconnect_needed', words);
  return new NetworkError('permanent', words);
}

/** How Meta's token endpoints refuse, for the shared OAuth 2 client. */
export function graphTokenRefusal(network: string): NonNullable<OAuth2Network['refusal']> {
  return (answer: NetworkAnswer, now: number): TokenRefusal => {
    const json = answer.json;
    const graphed =
      !json?.error && typeof json?.error_message === 'string'
        ? { ...answer, json: { error: { message: json.error_message, type: json.error_type, code: json.code } } }
        : answer;
    const failure = graphFailure(graphed, now, { network });
    return {
      error: failure.kind === 'reconnect_needed' ? 'invalid_grant' : undefined,
      said: failure.message,
      transient: failure.kind === 'retry_later' || failure.kind === 'unknown_outcome',
      retryAt: failure.retryAt,
    };
  };
}
