import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import {
  OutboundRequestError,
  type DirectMediaKind,
  type MediaProbe,
  type OutboundFetcher,
  type OutboundFetchOptions,
  type OutboundResponse,
} from '../domain/outbound.js';
import { ACCEPTED_TYPES } from '../domain/media/accepted-types.js';
import { blockedAddressReason } from './outbound-address.js';

/**
 * Fetching a URL a user gave us, without letting it reach Herald's own network (SSRF): the domain's
 * OutboundFetcher port (src/domain/outbound.ts).
 *
 * Rules enforced:
 * - only http: and https: URLs, without credentials in them;
 * - the host name is resolved here (every address), and the request is refused when any address is
 *   loopback, private, link-local (cloud metadata), CGNAT, multicast, unspecified or reserved
 *   (see outbound-address.ts) — unless the URL's host is named in the allow-list (OUTBOUND_ALLOW_HOSTS);
 *   the refusal never says what the host resolved to;
 * - the connection goes to the address that was vetted (a custom `lookup`), so a DNS answer that changes
 *   between the check and the connect (rebinding) cannot swap it;
 * - redirects are followed by hand (at most `maxRedirects`), and every hop is checked again; a Location
 *   that is not a URL refuses the fetch;
 * - the body is streamed and cut off past `maxBytes`; the whole exchange has a deadline.
 */
export interface SafeFetchOptions extends OutboundFetchOptions {
  /** Every address a host name resolves to; the system resolver unless given (tests play a hostile DNS). */
  resolve?: (host: string) => Promise<VettedAddress[]>;
}
export type SafeFetchResponse = OutboundResponse;

/** Host names compare lower-cased and IPv6 literals without brackets, as OUTBOUND_ALLOW_HOSTS is read. */
function normalHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRequestError('invalid_url', `"${raw}" is not an absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundRequestError('invalid_url', `Only http and https URLs can be fetched, not ${url.protocol}.`);
  }
  if (url.username || url.password) {
    throw new OutboundRequestError('invalid_url', 'URLs with a user name or password in them are not fetched.');
  }
  return url;
}

/** A redirect's Location resolved against the URL that sent it; one that is not a URL refuses the fetch. */
function redirectTarget(location: string, from: URL): string {
  try {
    return new URL(location, from).toString();
  } catch {
    throw new OutboundRequestError(
      'invalid_url',
      `${from.origin}${from.pathname} redirects to "${location}", which is not a valid URL.`,
    );
  }
}

interface VettedAddress {
  address: string;
  family: number;
}

/** Resolves the URL's host and returns the address to connect to, or throws when any answer is not public. */
function systemResolve(host: string): Promise<VettedAddress[]> {
  return dns.promises.lookup(host, { all: true, verbatim: true });
}

async function vetHost(url: URL, options: SafeFetchOptions): Promise<VettedAddress> {
  const host = normalHost(url.hostname);
  const allowed = options.allowHosts.includes(host);
  let addresses: VettedAddress[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch {
      throw new OutboundRequestError('unreachable', `The host ${host} could not be resolved.`);
    }
    if (addresses.length === 0) throw new OutboundRequestError('unreachable', `The host ${host} has no address.`);
  }
  // The refusal says only that the address is not allowed: naming what a host resolves to would let a caller
  // map Herald's internal network one name at a time.
  if (!allowed && addresses.some(({ address }) => blockedAddressReason(address) !== undefined)) {
    throw new OutboundRequestError(
      'blocked_address',
      `${url.origin} is not an address Herald may fetch from; use a URL on the public internet.`,
    );
  }
  return addresses[0];
}

function pinnedLookup(vetted: VettedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      (callback as unknown as (err: null, addresses: VettedAddress[]) => void)(null, [vetted]);
    } else {
      callback(null, vetted.address, vetted.family);
    }
  };
}

interface Hop {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

function requestOnce(url: URL, vetted: VettedAddress, options: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<Hop>((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: options.method ?? 'GET',
        lookup: pinnedLookup(vetted),
        agent: false,
        signal,
        headers: {
          'user-agent': 'Herald (+media import)',
          accept: '*/*',
          ...options.headers,
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location && (options.method ?? 'GET') === 'GET') {
          response.resume();
          resolve({ status, headers: response.headers, body: Buffer.alloc(0), truncated: false });
          return;
        }
        const declared = Number(response.headers['content-length']);
        if (options.stopAfterBytes === undefined && Number.isFinite(declared) && declared > options.maxBytes) {
          response.destroy();
          reject(tooLarge(url, options.maxBytes));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        let settled = false;
        response.on('data', (chunk: Buffer) => {
          if (settled) return;
          chunks.push(chunk);
          received += chunk.length;
          if (options.stopAfterBytes !== undefined && received >= options.stopAfterBytes) {
            settled = true;
            response.destroy();
            resolve({
              status,
              headers: response.headers,
              body: Buffer.concat(chunks).subarray(0, options.stopAfterBytes),
              truncated: true,
            });
          } else if (received > options.maxBytes) {
            settled = true;
            response.destroy();
            reject(tooLarge(url, options.maxBytes));
          }
        });
        response.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({ status, headers: response.headers, body: Buffer.concat(chunks), truncated: false });
        });
        response.on('error', (error) => {
          if (!settled) reject(error);
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

function tooLarge(url: URL, maxBytes: number): OutboundRequestError {
  return new OutboundRequestError(
    'too_large',
    `${url.origin}${url.pathname} is larger than the ${maxBytes} byte limit.`,
  );
}

/**
 * Checks a user-supplied URL under the rules above (its form and every address it resolves to) without requesting it.
 */
export async function vetUrl(rawUrl: string, options: Pick<SafeFetchOptions, 'allowHosts' | 'resolve'>): Promise<void> {
  await vetHost(checkUrl(rawUrl), { ...options, maxBytes: 0, timeoutMs: 0 });
}

/**
 * Checks a user-supplied URL under the rules above and answers the lookup that pins a connection to the address
 * checked, for a client other than this module's (a Nostr relay's WebSocket, wss: checked as https:).
 */
export async function pinnedLookupFor(
  rawUrl: string,
  options: Pick<SafeFetchOptions, 'allowHosts' | 'resolve'>,
): Promise<LookupFunction> {
  return pinnedLookup(await vetHost(checkUrl(rawUrl), { ...options, maxBytes: 0, timeoutMs: 0 }));
}

/** Requests a user-supplied URL under the rules above (GET unless told). Non-2xx answers are returned, not thrown. */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResponse> {
  const maxRedirects = options.maxRedirects ?? 5;
  const { signal, cancel } = deadline(options);
  try {
    return await fetchHops(rawUrl, options, maxRedirects, signal);
  } finally {
    cancel();
  }
}

/** The whole exchange's deadline, on the caller's timers when given. */
function deadline(options: SafeFetchOptions): { signal: AbortSignal; cancel(): void } {
  if (!options.timers) return { signal: AbortSignal.timeout(options.timeoutMs), cancel: () => {} };
  const controller = new AbortController();
  const timer = options.timers.after(options.timeoutMs, () => controller.abort());
  return { signal: controller.signal, cancel: () => timer.cancel() };
}

async function fetchHops(
  rawUrl: string,
  options: SafeFetchOptions,
  maxRedirects: number,
  signal: AbortSignal,
): Promise<SafeFetchResponse> {
  let url = checkUrl(rawUrl);
  for (let hop = 0; ; hop++) {
    const vetted = await vetHost(url, options);
    let answer: Hop;
    try {
      answer = await requestOnce(url, vetted, options, signal);
    } catch (error) {
      if (error instanceof OutboundRequestError) throw error;
      if (signal.aborted) {
        throw new OutboundRequestError('timeout', `${url.origin} did not answer within ${options.timeoutMs} ms.`);
      }
      throw new OutboundRequestError(
        'unreachable',
        `${url.origin} could not be fetched (${(error as Error).message}).`,
      );
    }
    const location = answer.headers.location;
    if (answer.status >= 300 && answer.status < 400 && location && (options.method ?? 'GET') === 'GET') {
      if (hop >= maxRedirects) {
        throw new OutboundRequestError('too_many_redirects', `${rawUrl} redirects more than ${maxRedirects} times.`);
      }
      url = checkUrl(redirectTarget(location, url));
      continue;
    }
    return {
      url: url.toString(),
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
      truncated: answer.truncated,
    };
  }
}

/** Leading bytes of the image and video formats networks accept. */
/** How each accepted format's file begins (the formats themselves are the domain's ACCEPTED_TYPES). */
const signatures: { mimeType: string; test: (b: Buffer) => boolean }[] = [
  { mimeType: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  {
    mimeType: 'image/png',
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { mimeType: 'image/gif', test: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  {
    mimeType: 'image/webp',
    test: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
  { mimeType: 'video/quicktime', test: (b) => b.subarray(4, 12).toString('latin1') === 'ftypqt  ' },
  { mimeType: 'video/mp4', test: (b) => b.subarray(4, 8).toString('latin1') === 'ftyp' },
  { mimeType: 'video/webm', test: (b) => b.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])) },
];

/** The image or video format the bytes start with, if any. */
function sniffMedia(bytes: Buffer): { mimeType: string; kind: DirectMediaKind } | undefined {
  const match = signatures.find((signature) => ACCEPTED_TYPES[signature.mimeType] && signature.test(bytes));
  return match && { mimeType: match.mimeType, kind: ACCEPTED_TYPES[match.mimeType].kind };
}

/**
 * Tells a direct image or video file from an HTML page (a video site's watch page, a storage preview page)
 * by the first bytes and the content type, through safeFetch's rules. Used before publishing a media URL
 * and before importing one.
 */
export async function probeDirectMedia(
  url: string,
  options: Omit<SafeFetchOptions, 'stopAfterBytes'>,
): Promise<MediaProbe> {
  const response = await safeFetch(url, { ...options, stopAfterBytes: 64 });
  const contentType = String(response.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (response.status < 200 || response.status >= 300) {
    return {
      direct: false,
      url: response.url,
      reason: `${response.url} answered HTTP ${response.status}, not a file.`,
    };
  }
  const sniffed = sniffMedia(response.body);
  const head = response.body.toString('utf8').trimStart().toLowerCase();
  if (
    contentType === 'text/html' ||
    contentType === 'application/xhtml+xml' ||
    head.startsWith('<!doctype html') ||
    head.startsWith('<html')
  ) {
    return {
      direct: false,
      url: response.url,
      reason:
        `${response.url} is a web page (HTML), not an image or video file. Video-site watch pages and storage ` +
        'preview pages cannot be published; use the direct link to the file (it usually ends in .jpg, .png or .mp4).',
    };
  }
  if (sniffed === undefined) {
    return {
      direct: false,
      url: response.url,
      reason:
        `${response.url} is not a JPEG, PNG, GIF, WebP, MP4, QuickTime or WebM file (content type ` +
        `"${contentType || 'none'}").`,
    };
  }
  return { direct: true, url: response.url, kind: sniffed.kind, mimeType: sniffed.mimeType };
}

export const safeFetcher: OutboundFetcher = { fetch: safeFetch, probeDirectMedia, vetUrl };
