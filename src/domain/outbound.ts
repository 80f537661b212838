/**
 * The port through which the domain reaches URLs a person supplied (media import, webhook endpoints), owned by the
 * domain and implemented by src/net/safe-fetch.ts. Whatever implements it keeps these promises:
 * - no loopback, private, link-local (cloud metadata), CGNAT, multicast or reserved address is reached,
 *   unless the URL's host is in `allowHosts`; the connection goes to the address that was checked;
 * - redirects are followed by hand and each hop is checked again;
 * - bodies are cut off past `maxBytes`, and the whole exchange has a deadline;
 * - a refusal is an OutboundRequestError whose message says which rule and why.
 */
import { UnprocessableError } from './errors.js';
import type { Timers } from './timers.js';

export interface OutboundFetchOptions {
  /** Host names or IP literals that may be reached even when they resolve to non-public addresses. */
  allowHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  /** The deadline runs on these when given (the worker's, which tests move by hand); Node's timers otherwise. */
  timers?: Timers;
  maxRedirects?: number;
  /** Stop reading after this many bytes and return what arrived (a probe), instead of failing. */
  stopAfterBytes?: number;
  headers?: Record<string, string>;
  /** GET unless given; redirects are followed for GET only, other methods get the 3xx answer back. */
  method?: string;
  body?: Buffer | string;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** True when the body was cut at `stopAfterBytes`. */
  truncated: boolean;
}

export type OutboundRefusal =
  | 'invalid_url'
  | 'blocked_address'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'unreachable';

/** A user-supplied URL Herald will not or could not fetch; the message says which and why. */
export class OutboundRequestError extends UnprocessableError {
  constructor(
    readonly reason: OutboundRefusal,
    message: string,
  ) {
    super(reason === 'blocked_address' || reason === 'invalid_url' ? 'url_not_allowed' : 'url_fetch_failed', message);
  }
}

export type DirectMediaKind = 'image' | 'video';

export type MediaProbe =
  | { direct: true; kind: DirectMediaKind; mimeType: string; url: string }
  | { direct: false; reason: string; url: string };

export interface OutboundFetcher {
  fetch(url: string, options: OutboundFetchOptions): Promise<OutboundResponse>;
  /** Tells a direct image or video file from an HTML page by its first bytes and content type. */
  probeDirectMedia(url: string, options: Omit<OutboundFetchOptions, 'stopAfterBytes'>): Promise<MediaProbe>;
  /** Checks a URL's form and every address its host resolves to, without requesting it. */
  vetUrl(url: string, options: { allowHosts: readonly string[] }): Promise<void>;
}
