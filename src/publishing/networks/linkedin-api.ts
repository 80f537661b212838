import { NetworkError } from '../../domain/networks/connector.js';
import { retryAtFrom, type NetworkAnswer, type NetworkHttp, type NetworkRequest } from './network-http.js';

/**
 * How Herald speaks to LinkedIn's API (learn.microsoft.com/linkedin: api-guide/concepts/versioning,
 * error-handling, rate-limits; NETWORKS.md), and how its answers are classified.
 *
 * Rules kept here:
 * - every API call carries the bearer token, `LinkedIn-Version` from configuration (LINKEDIN_VERSION) and
 *   `X-Restli-Protocol-Version: 2.0.0`; URNs in paths and List(...) parameters are URL-encoded (Rest.li 2.0);
 * - 426 NONEXISTENT_VERSION is permanent and says the operator must move LINKEDIN_VERSION forward;
 * - 429 carries no reset header: LinkedIn's daily limits reset at midnight UTC, so that is when to come back
 *   (a Retry-After, if one is ever sent, wins);
 * - 401 EXPIRED_ACCESS_TOKEN is refreshed where LinkedIn granted a refresh token, else needs a reconnect;
 *   any other 401 (revoked, invalid) needs a reconnect;
 * - a 5xx to the call that makes a post (other than 503, which LinkedIn sends before doing anything) may have
 *   made it: an unknown outcome, never a blind retry; elsewhere 5xx is retried later;
 * - every other refusal is permanent with LinkedIn's own message.
 */
export const API = 'https://api.linkedin.com';
export const WWW = 'https://www.linkedin.com';

export interface LinkedInCredentials {
  accessToken: string;
  /** Only approved partner apps get one (365 days, not extended by use). */
  refreshToken: string | null;
  refreshExpiresAt: number | null;
  /** urn:li:person:{sub} or urn:li:organization:{id}: who this channel posts as. */
  author: string;
  scopes: string[];
}

export function isOrganization(author: string): boolean {
  return author.startsWith('urn:li:organization:');
}

export function permalink(urn: string): string {
  return `${WWW}/feed/update/${urn}/`;
}

/** The start of the next UTC day, when LinkedIn's daily call limits reset. */
export function nextUtcMidnight(now: number): number {
  const day = new Date(now);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
}

export class LinkedInApi {
  constructor(
    readonly http: NetworkHttp,
    readonly version: string,
    private readonly now: () => number,
  ) {}

  /** One versioned call with the channel's current token; the answer is returned whatever its status. */
  async call(c: LinkedInCredentials, path: string, request: NetworkRequest = {}): Promise<NetworkAnswer> {
    return this.http.request(path.startsWith('https://') ? path : `${API}${path}`, {
      ...request,
      headers: {
        authorization: `Bearer ${c.accessToken}`,
        'linkedin-version': this.version,
        'x-restli-protocol-version': '2.0.0',
        ...request.headers,
      },
    });
  }

  /** Like call, but anything other than the expected status is thrown, classified. */
  async expect(
    c: LinkedInCredentials,
    path: string,
    request: NetworkRequest,
    ok: number[],
    creating = false,
  ): Promise<NetworkAnswer> {
    const answer = await this.call(c, path, request);
    if (!ok.includes(answer.status)) throw this.classify(answer, c, creating);
    return answer;
  }

  classify(answer: NetworkAnswer, c: { refreshToken: string | null } | null, creating = false): NetworkError {
    const code: string | undefined = typeof answer.json?.code === 'string' ? answer.json.code : undefined;
    const said = typeof answer.json?.message === 'string' ? answer.json.message : `HTTP ${answer.status}`;
    const words = `LinkedIn answered HTTP ${answer.status}${code ? ` ${code}` : ''}: ${said}`;
    if (answer.status === 426) {
      return new NetworkError(
        'permanent',
        `LinkedIn no longer serves API version ${this.version} (${said}): the operator must set LINKEDIN_VERSION to ` +
          'a current version (YYYYMM) and restart Herald',
      );
    }
    if (answer.status === 429)
      return new NetworkError('retry_later', words, retryAtFrom(answer, this.now()) ?? nextUtcMidnight(this.now()));
    if (answer.status === 401) {
      if (code === 'EXPIRED_ACCESS_TOKEN') {
        return c?.refreshToken
          ? new NetworkError('refresh_and_retry', words)
          : new NetworkError(
              'reconnect_needed',
              `${words}; LinkedIn grants this app no refresh token, so the member must connect the channel again`,
            );
      }
      return new NetworkError('reconnect_needed', words);
    }
    if (answer.status >= 500)
      return new NetworkError(creating && answer.status !== 503 ? 'unknown_outcome' : 'retry_later', words);
    return new NetworkError('permanent', words);
  }
}
