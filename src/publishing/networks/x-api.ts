import { NetworkError, type ConnectorChannel } from '../../domain/networks/connector.js';
import type { NetworkAnswer, NetworkHttp, NetworkRequest } from './network-http.js';

/**
 * How Herald speaks to X's API v2 (docs.x.com: fundamentals/rate-limits, response-codes-and-errors; NETWORKS.md),
 * and how its answers are classified.
 *
 * Rules kept here:
 * - every call carries the user's bearer token; errors are problem JSON (`title`, `detail`, `errors[]`), quoted in
 *   the message;
 * - 429 comes back at `x-rate-limit-reset` (Unix seconds), or at the 24-hour reset when the user's or the app's
 *   daily budget is what ran out; X sends no Retry-After. With no header at all, X's windows are 15 minutes;
 * - an answer saying the budget for posting is spent pauses the channel until its reset, so the next post waits
 *   instead of drawing a 429;
 * - 401 (an expired or revoked token, on any call, media uploads included) is refreshed where X granted a
 *   refresh token; the refresh itself, refused, asks for a reconnect;
 * - a 5xx or a lost answer to the call that makes a post may have made it: an unknown outcome; elsewhere retried;
 * - every other refusal is permanent with X's own words.
 */
export const API = 'https://api.x.com';
export const WWW = 'https://x.com';
const WINDOW_MS = 15 * 60_000;

export interface XCredentials {
  accessToken: string;
  /** Only when the person granted offline.access; rotated by every refresh. */
  refreshToken: string | null;
  userId: string;
  username: string;
  scopes: string[];
}

export function permalink(username: string, id: string): string {
  return `${WWW}/${username}/status/${id}`;
}

export class XApi {
  constructor(
    readonly http: NetworkHttp,
    private readonly now: () => number,
  ) {}

  async call(c: XCredentials, path: string, request: NetworkRequest = {}): Promise<NetworkAnswer> {
    return this.http.request(`${API}${path}`, {
      ...request,
      headers: { authorization: `Bearer ${c.accessToken}`, ...request.headers },
    });
  }

  /** Like call, but anything other than the expected status is thrown, classified. */
  async expect(
    c: XCredentials,
    path: string,
    request: NetworkRequest,
    ok: number[],
    creating = false,
  ): Promise<NetworkAnswer> {
    const answer = await this.call(c, path, request);
    if (!ok.includes(answer.status)) throw this.classify(answer, c, creating);
    return answer;
  }

  /** Pauses the channel when an answer says its posting budget is spent (15-minute or 24-hour). */
  async observeBudget(channel: ConnectorChannel, answer: NetworkAnswer): Promise<void> {
    const spent = this.spentUntil(answer);
    if (spent !== undefined && spent > this.now()) await channel.pauseUntil(spent);
  }

  classify(answer: NetworkAnswer, c: { refreshToken: string | null } | null, creating = false): NetworkError {
    const words = `X answered HTTP ${answer.status}: ${said(answer)}`;
    if (answer.status === 429)
      return new NetworkError(
        'retry_later',
        words,
        this.spentUntil(answer) ?? this.resetOf(answer, 'x-rate-limit') ?? this.now() + WINDOW_MS,
      );
    if (answer.status === 401) {
      return c?.refreshToken
        ? new NetworkError('refresh_and_retry', words)
        : new NetworkError(
            'reconnect_needed',
            `${words}; X granted no refresh token (offline.access), so the channel must be connected again`,
          );
    }
    if (answer.status >= 500) return new NetworkError(creating ? 'unknown_outcome' : 'retry_later', words);
    return new NetworkError('permanent', words);
  }

  private spentUntil(answer: NetworkAnswer): number | undefined {
    const resets = ['x-user-limit-24hour', 'x-app-limit-24hour', 'x-rate-limit']
      .filter((prefix) => answer.header(`${prefix}-remaining`) === '0')
      .map((prefix) => this.resetOf(answer, prefix))
      .filter((at): at is number => at !== undefined);
    return resets.length > 0 ? Math.max(...resets) : undefined;
  }

  private resetOf(answer: NetworkAnswer, prefix: string): number | undefined {
    const seconds = Number(answer.header(`${prefix}-reset`));
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  }
}

/** X's own words from a problem JSON or an OAuth error. */
export function said(answer: NetworkAnswer): string {
  const j = answer.json ?? {};
  const details = Array.isArray(j.errors)
    ? j.errors.map((e: { message?: string; detail?: string }) => e.message ?? e.detail).filter(Boolean)
    : [];
  const main = j.detail ?? j.error_description ?? j.title ?? j.error;
  return [main, ...details].filter(Boolean).join('; ') || `HTTP ${answer.status}`;
}

export function isDuplicate(answer: NetworkAnswer): boolean {
  return answer.status === 403 && /duplicate content/i.test(said(answer));
}
