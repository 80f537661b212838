import { NetworkError, type ConnectorChannel, type PublishRequest } from '../../domain/networks/connector.js';
import { graphFailure, observeGraphBudget, type GraphCall } from './meta-graph.js';
import type { NetworkAnswer, NetworkHttp, NetworkRequest } from './network-http.js';

/**
 * How Herald speaks to graph.threads.net (developers.facebook.com/docs/threads: posts, reference/publishing,
 * troubleshooting, overview rate limiting), on top of meta-graph.ts.
 *
 * Rules kept here:
 * - every call names the configured Threads API version (THREADS_GRAPH_VERSION) and sends the token as a bearer
 *   header, never in a URL Herald might log;
 * - only threads_publish can make a post: a call before it whose answer was lost is retried later (its container, if
 *   made, is left to expire unpublished), never left for a person to confirm;
 * - any answer other than 200, or a 200 carrying Meta's `error` object, is thrown classified by meta-graph.ts (an
 *   expired token, code 190 subcode 463, can be refreshed while it has not expired); an answer whose usage headers
 *   say the budget is spent pauses the channel first;
 * - a post is containers: TEXT, or one IMAGE or VIDEO, or a CAROUSEL of 2 to 20 item containers (is_carousel_item),
 *   each waited on until FINISHED; Threads downloads each file itself from the post's own URL; ERROR is permanent
 *   with Threads' error_message, EXPIRED (unpublished for 24 h) and still IN_PROGRESS after the wait are retried
 *   later with new containers.
 */
export const THREADS_GRAPH = 'https://graph.threads.net';
const POLL_MS = 1_000;
const POLLS = 120;

export interface ThreadsCredentials {
  accessToken: string;
  /** The Threads user id, the `{threads-user-id}` of every publishing path. */
  userId: string;
  username: string;
  /** Permissions the person granted, as debug_token reported them at connect. */
  scopes: string[];
  /** When this long-lived token was issued (Threads refreshes only tokens at least 24 h old). */
  issuedAt: number;
}

export class ThreadsGraph {
  constructor(
    private readonly http: NetworkHttp,
    private readonly now: () => number,
    private readonly version: () => string,
  ) {}

  /** One call with a token; the answer is returned whatever its status. */
  async call(
    channel: ConnectorChannel | null,
    accessToken: string,
    path: string,
    request: NetworkRequest = {},
  ): Promise<NetworkAnswer> {
    const url = `${THREADS_GRAPH}/${this.version()}/${path.replace(/^\//, '')}`;
    const answer = await this.http.request(url, {
      ...request,
      headers: { ...request.headers, authorization: `Bearer ${accessToken}` },
    });
    if (channel) await observeGraphBudget(channel, answer, this.now());
    return answer;
  }

  /** Like call, but a refusal is thrown, classified. */
  async expect(
    channel: ConnectorChannel | null,
    accessToken: string,
    path: string,
    request: NetworkRequest = {},
    call: Partial<GraphCall> = {},
  ): Promise<any> {
    let answer: NetworkAnswer;
    try {
      answer = await this.call(channel, accessToken, path, request);
    } catch (error) {
      // Only threads_publish makes a post: an answer lost anywhere else (a container made) leaves nothing to look up.
      if (error instanceof NetworkError && error.kind === 'unknown_outcome' && !call.makesPost)
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
    if (answer.status !== 200 || answer.json?.error || answer.json === undefined) throw this.failure(answer, call);
    return answer.json;
  }

  failure(answer: NetworkAnswer, call: Partial<GraphCall> = {}): NetworkError {
    if (answer.status === 200 && answer.json === undefined) {
      return new NetworkError(
        call.makesPost ? 'unknown_outcome' : 'retry_later',
        'Threads answered without a JSON body',
      );
    }
    // The OAuth endpoints answer {error_type, code, error_message} rather than Graph's error object.
    if (!answer.json?.error && typeof answer.json?.error_message === 'string') {
      const json = {
        error: { message: answer.json.error_message, type: answer.json.error_type, code: answer.json.code },
      };
      return graphFailure({ ...answer, json }, this.now(), { network: 'Threads', refreshable: true, ...call });
    }
    return graphFailure(answer, this.now(), { network: 'Threads', refreshable: true, ...call });
  }

  /** Creates the post's container (its items' first), waits until it can be published, and returns its id. */
  async buildContainer(
    channel: ConnectorChannel,
    c: ThreadsCredentials,
    request: PublishRequest,
    maxItems: number,
  ): Promise<string> {
    const items = [
      ...request.imageUrls.map((url) => ({ url, video: false })),
      ...request.videoUrls.map((url) => ({ url, video: true })),
    ];
    // A part of a thread replies to the part before it; a carousel's items are only its parts, so they do not.
    const reply: Record<string, string> = request.replyTo ? { reply_to_id: request.replyTo.parentNetworkPostId } : {};
    const create = async (fields: Record<string, string>) => {
      const made = await this.expect(channel, c.accessToken, `${c.userId}/threads`, { method: 'POST', form: fields });
      if (typeof made?.id !== 'string')
        throw new NetworkError('retry_later', 'Threads answered a container without its id');
      return made.id as string;
    };
    const media = (item: { url: string; video: boolean }): Record<string, string> =>
      item.video ? { media_type: 'VIDEO', video_url: item.url } : { media_type: 'IMAGE', image_url: item.url };

    let container: string;
    if (items.length === 0) {
      container = await create({ media_type: 'TEXT', text: request.text, ...reply });
    } else if (items.length === 1) {
      container = await create({ ...media(items[0]), ...(request.text ? { text: request.text } : {}), ...reply });
    } else {
      if (items.length > maxItems)
        throw new NetworkError(
          'permanent',
          `A Threads carousel takes at most ${maxItems} images and videos; this post has ${items.length}`,
        );
      const children: string[] = [];
      for (const item of items) children.push(await create({ ...media(item), is_carousel_item: 'true' }));
      for (const child of children) await this.finished(channel, c, child);
      container = await create({
        media_type: 'CAROUSEL',
        children: children.join(','),
        ...(request.text ? { text: request.text } : {}),
        ...reply,
      });
    }
    await this.finished(channel, c, container);
    return container;
  }

  /** A container's status (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED) and Threads' error_message. */
  async containerStatus(
    channel: ConnectorChannel,
    c: ThreadsCredentials,
    id: string,
  ): Promise<{ status: string; error: string }> {
    const answer = await this.expect(
      channel,
      c.accessToken,
      `${id}?fields=status,error_message`,
      {},
      { statusRead: true },
    );
    return { status: String(answer.status ?? ''), error: String(answer.error_message ?? '') };
  }

  private async finished(channel: ConnectorChannel, c: ThreadsCredentials, id: string): Promise<void> {
    for (let poll = 0; poll < POLLS; poll++) {
      const { status, error } = await this.containerStatus(channel, c, id);
      if (status === 'FINISHED') return;
      if (status === 'ERROR')
        throw new NetworkError('permanent', `Threads could not process the media (${error || 'ERROR'})`);
      if (status === 'EXPIRED')
        throw new NetworkError('retry_later', "Threads' media container expired before it was published");
      await this.http.pause(POLL_MS);
    }
    throw new NetworkError('retry_later', `Threads was still processing the media after ${(POLL_MS * POLLS) / 1000} s`);
  }
}

/** Threads' timestamps are ISO 8601 with a "+0000" offset. */
export function threadsTime(value: unknown): number {
  const text = String(value ?? '').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const at = Date.parse(text);
  return Number.isNaN(at) ? 0 : at;
}
