/**
 * How connectors reach the networks: one outbound layer for every call.
 *
 * Rules kept here:
 * - every call goes through the domain's outbound fetcher (src/net/safe-fetch.ts): a host a person named (a
 *   Mastodon instance, a Bluesky PDS) is checked against private addresses like any user URL; timeouts and
 *   size caps apply to every call;
 * - connectors name the networks' real URLs; NETWORK_ORIGIN_OVERRIDES rewrites an origin to another (a local
 *   fake in tests, a proxy in a private deployment), and the operator's override targets may be loopback;
 * - a post's media file of Herald's own library is read from storage (downloadMedia), never fetched back from
 *   Herald's own address;
 * - nothing of a request (headers, bodies, tokens) is logged here or put in an error message;
 * - a refusal or a failure to reach the network is a NetworkError: a blocked address is permanent (the
 *   person must name another host); a timeout or a broken connection after a write is an unknown outcome,
 *   before anything could have been done (a read) a retry later.
 */
import { NetworkError, type ConnectorChannel } from '../../domain/networks/connector.js';
import type { LibraryFile, LibraryFiles } from '../../domain/media/media-storage.js';
import { OutboundRequestError, type OutboundFetcher } from '../../domain/outbound.js';
import { setTimeout as delay } from 'node:timers/promises';
import WebSocket from 'ws';
import { pinnedLookupFor } from '../../net/safe-fetch.js';

export interface NetworkHttpOptions {
  fetcher: OutboundFetcher;
  /** Real origin -> replacement origin (NETWORK_ORIGIN_OVERRIDES). */
  overrides: Record<string, string>;
  /** Hosts a person may name even on non-public addresses (OUTBOUND_ALLOW_HOSTS). */
  allowHosts: readonly string[];
  timeoutMs: number;
  maxBytes: number;
  /** Herald's own media library, read from storage rather than fetched back from Herald's address. */
  library: LibraryFiles;
  /** Scales the waits between a connector's status polls (networks.pollWaitScale); 1 keeps each network's own. */
  pollWaitScale?: number;
}

export interface NetworkRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  headers?: Record<string, string>;
  /** Sent as JSON with its content type. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Raw bytes with their own content type in headers. */
  body?: Buffer;
}

export interface NetworkAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
  header(name: string): string | undefined;
}

export class NetworkHttp {
  private readonly overrideHosts: string[];

  constructor(private readonly options: NetworkHttpOptions) {
    this.overrideHosts = Object.values(options.overrides).map((origin) =>
      new URL(origin).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase(),
    );
  }

  /** The URL actually called for a real one. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    const replacement = this.options.overrides[parsed.origin];
    return replacement ? replacement + url.slice(parsed.origin.length) : url;
  }

  /**
   * Waits between two status polls (a video processing, an upload settling): the network's own interval, scaled
   * by the setting so that tests against fakes, which finish after a number of polls, need not wait real seconds.
   */
  pause(ms: number): Promise<void> {
    return delay(ms * (this.options.pollWaitScale ?? 1));
  }

  /** Calls a network; any HTTP status is returned, not thrown. */
  async request(url: string, request: NetworkRequest = {}): Promise<NetworkAnswer> {
    const method = request.method ?? 'GET';
    const headers: Record<string, string> = { 'user-agent': 'Herald', accept: 'application/json', ...request.headers };
    let body: Buffer | string | undefined = request.body;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form !== undefined) {
      body = new URLSearchParams(request.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const target = this.rewrite(url);
    let answer;
    try {
      answer = await this.options.fetcher.fetch(target, {
        method,
        headers,
        body,
        allowHosts: [...this.options.allowHosts, ...this.overrideHosts],
        maxBytes: this.options.maxBytes,
        timeoutMs: this.options.timeoutMs,
        maxRedirects: 3,
      });
    } catch (error) {
      throw failure(error, new URL(url).host, method);
    }
    let parsed: unknown;
    try {
      parsed = answer.body.length > 0 ? JSON.parse(answer.body.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    return {
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
      json: parsed,
      header: (name) => {
        const value = answer.headers[name.toLowerCase()];
        return Array.isArray(value) ? value[0] : value;
      },
    };
  }

  /**
   * Opens a WebSocket (a Nostr relay) under the same rules as a request: the operator's override applied, the host
   * checked by the SSRF guard (wss: as https:) and the connection pinned to the address checked, frames capped at
   * maxBytes. A relay that cannot be reached or refuses the address is a NetworkError, permanent for a blocked one.
   */
  async socket(url: string): Promise<WebSocket> {
    const asHttp = url.replace(/^ws(s?):/i, 'http$1:');
    const target = this.rewrite(asHttp);
    const host = new URL(url).host;
    let lookup;
    try {
      lookup = await pinnedLookupFor(target, { allowHosts: [...this.options.allowHosts, ...this.overrideHosts] });
    } catch (error) {
      throw failure(error, host, 'GET');
    }
    const socket = new WebSocket(target.replace(/^http(s?):/i, 'ws$1:'), {
      lookup,
      handshakeTimeout: this.options.timeoutMs,
      maxPayload: this.options.maxBytes,
      headers: { 'user-agent': 'Herald' },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', () => reject(new NetworkError('retry_later', `${host} could not be reached`)));
    });
    return socket;
  }
}

/**
 * A post's media file, for upload: a file of Herald's own library is read from storage for the channel's account,
 * any other URL is fetched under the user-URL rules.
 */
export async function downloadMedia(
  options: NetworkHttpOptions,
  accountId: string,
  url: string,
  maxBytes: number,
): Promise<LibraryFile> {
  const own = await ownFile(options, accountId, url);
  if (own) {
    if (own.bytes.length > maxBytes)
      throw new NetworkError(
        'permanent',
        `the media file ${url} has more than the ${maxBytes} bytes this network takes`,
      );
    return own;
  }
  try {
    const answer = await options.fetcher.fetch(url, {
      allowHosts: options.allowHosts,
      maxBytes,
      timeoutMs: options.timeoutMs,
    });
    if (answer.status < 200 || answer.status >= 300)
      throw new NetworkError('retry_later', `the media file ${url} answered HTTP ${answer.status}`);
    const type = answer.headers['content-type'];
    return {
      bytes: answer.body,
      contentType: String(Array.isArray(type) ? type[0] : (type ?? 'application/octet-stream'))
        .split(';')[0]
        .trim(),
    };
  } catch (error) {
    if (error instanceof NetworkError) throw error;
    if (
      error instanceof OutboundRequestError &&
      (error.reason === 'too_large' || error.reason === 'blocked_address' || error.reason === 'invalid_url')
    ) {
      throw new NetworkError('permanent', error.message);
    }
    throw new NetworkError('retry_later', `the media file ${url} could not be fetched`);
  }
}

async function ownFile(options: NetworkHttpOptions, accountId: string, url: string): Promise<LibraryFile | undefined> {
  let file;
  try {
    file = await options.library.read(accountId, url);
  } catch {
    // Storage that cannot be reached now (S3 down) may answer later.
    throw new NetworkError('retry_later', `the media file ${url} could not be read from Herald's storage`);
  }
  if (file && 'missing' in file) throw new NetworkError('permanent', file.missing);
  return file;
}

function failure(error: unknown, host: string, method: string): NetworkError {
  if (error instanceof OutboundRequestError) {
    if (error.reason === 'blocked_address' || error.reason === 'invalid_url')
      return new NetworkError('permanent', error.message);
    if (error.reason === 'too_large')
      return new NetworkError('permanent', `${host} answered with more than Herald reads`);
    const words = error.reason === 'timeout' ? 'did not answer in time' : 'could not be reached';
    return method === 'GET'
      ? new NetworkError('retry_later', `${host} ${words}`)
      : new NetworkError('unknown_outcome', `${host} ${words}`);
  }
  return new NetworkError(method === 'GET' ? 'retry_later' : 'unknown_outcome', `${host} could not be reached`);
}

/**
 * Passes a spent budget on to the channel: an answer whose rate-limit headers say nothing remains pauses the
 * channel until their reset, so the next call waits instead of drawing a 429.
 */
export async function observeBudget(channel: ConnectorChannel, answer: NetworkAnswer, now: number): Promise<void> {
  const remaining = answer.header('ratelimit-remaining') ?? answer.header('x-ratelimit-remaining');
  if (remaining === undefined || Number(remaining) > 0) return;
  const resetAt = retryAtFrom(answer, now);
  if (resetAt && resetAt > now) await channel.pauseUntil(resetAt);
}

/** When a network said to come back: a Retry-After (seconds or a date), or a reset header (epoch seconds or ISO). */
export function retryAtFrom(answer: NetworkAnswer, now: number): number | undefined {
  const retryAfter = answer.header('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return now + seconds * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return at;
  }
  for (const name of ['ratelimit-reset', 'x-ratelimit-reset']) {
    const value = answer.header(name);
    if (!value) continue;
    const number = Number(value);
    if (Number.isFinite(number)) return number > 1e9 ? number * 1000 : now + number * 1000;
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return at;
  }
  return undefined;
}
