import { NetworkError, type ConnectorChannel } from '../../domain/networks/connector.js';
import { graphFailure, graphRequest, observeGraphBudget, type GraphCall } from './meta-graph.js';
import type { NetworkAnswer, NetworkHttp, NetworkRequest } from './network-http.js';

/**
 * How Herald speaks to Instagram's Graph hosts (developers.facebook.com/docs/instagram-platform: overview, ig-user
 * media, ig-container, content-publishing, error-codes), on top of meta-graph.ts.
 *
 * Rules kept here:
 * - an Instagram Login channel calls graph.instagram.com, a Facebook Login channel graph.facebook.com; both with the
 *   configured Graph version (FACEBOOK_GRAPH_VERSION), the bearer token and its appsecret_proof under the secret of
 *   the app that issued the token;
 * - any answer other than 200, or a 200 carrying Meta's `error` object, is thrown classified by meta-graph.ts; an
 *   answer whose usage headers say the budget is spent pauses the channel first.
 */
export const GRAPH_HOSTS = {
  instagram: 'https://graph.instagram.com',
  facebook: 'https://graph.facebook.com',
} as const;
export type InstagramLogin = keyof typeof GRAPH_HOSTS;

export interface InstagramCredentials {
  login: InstagramLogin;
  accessToken: string;
  /** The Instagram professional account's id, the `<IG_ID>` of every publishing path. */
  igUserId: string;
  username: string;
  /** Permissions the person granted at consent. */
  scopes: string[];
  /** When this long-lived token was issued (Instagram refreshes only tokens at least 24 h old). */
  issuedAt: number;
}

export class InstagramGraph {
  constructor(
    readonly http: NetworkHttp,
    private readonly now: () => number,
    private readonly version: () => string,
    private readonly appSecret: (login: InstagramLogin) => string,
  ) {}

  url(login: InstagramLogin, path: string): string {
    return `${GRAPH_HOSTS[login]}/${this.version()}/${path.replace(/^\//, '')}`;
  }

  /** One call with the channel's token; the answer is returned whatever its status. */
  async call(
    channel: ConnectorChannel | null,
    c: InstagramCredentials,
    path: string,
    request: NetworkRequest = {},
  ): Promise<NetworkAnswer> {
    const answer = await graphRequest(
      this.http,
      this.url(c.login, path),
      { accessToken: c.accessToken, appSecret: this.appSecret(c.login) },
      request,
    );
    if (channel) await observeGraphBudget(channel, answer, this.now());
    return answer;
  }

  /** Like call, but a refusal is thrown, classified. */
  async expect(
    channel: ConnectorChannel | null,
    c: InstagramCredentials,
    path: string,
    request: NetworkRequest = {},
    call: Partial<GraphCall> = {},
  ): Promise<any> {
    const answer = await this.call(channel, c, path, request);
    if (answer.status !== 200 || answer.json?.error || answer.json === undefined) throw this.failure(answer, c, call);
    return answer.json;
  }

  failure(answer: NetworkAnswer, c: InstagramCredentials | null, call: Partial<GraphCall> = {}): NetworkError {
    if (answer.status === 200 && answer.json === undefined) {
      return new NetworkError(
        call.makesPost ? 'unknown_outcome' : 'retry_later',
        'Instagram answered without a JSON body',
      );
    }
    return graphFailure(answer, this.now(), { network: 'Instagram', refreshable: c?.login === 'instagram', ...call });
  }
}

/** Instagram's timestamps are ISO 8601 with a "+0000" offset. */
export function instagramTime(value: unknown): number {
  const text = String(value ?? '').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const at = Date.parse(text);
  return Number.isNaN(at) ? 0 : at;
}
