/**
 * Request bodies, read one way for REST, MCP, OAuth and the pages (`bodyReader`), and what every request must be
 * before a router sees it:
 * - a body is read only once the caller is known where the surface has callers (REST and MCP mount the reader after
 *   authentication); the anonymous endpoints (OAuth registration, token and revocation, the sign-in forms) read
 *   small bodies only;
 * - a body is read as a stream and decoded (gzip, deflate, br) as it arrives, its limit counted on the decoded
 *   bytes and the reading stopped the moment it is passed (413), so a small compressed body cannot unfold into a
 *   large one; any other Content-Encoding, and any charset but UTF-8, is a 415;
 * - the bytes of the bodies being read are held against two budgets, the process's and the client address's
 *   (req.ip, so TRUST_PROXY's word): a body that would go over either is answered at once, 503 or 429 with
 *   Retry-After, and its connection closed; what a request held is given back when it ends, however it ends;
 * - a body not whole within the body timeout is a 408 and its connection closed, so a trickle holds nothing long;
 * - a refusal answered before the body was read whole closes the connection (closeIfBodyUnread) rather than
 *   reading the rest;
 * - JSON nested deeper than MAX_JSON_DEPTH is a 400 (checked without recursion, before validators, canonical
 *   JSON for idempotency or tool arguments walk the value and could overflow the stack);
 * - no text anywhere (URL, JSON string, form field) may hold U+0000: Postgres cannot store it, and no person
 *   means it; it is a 400 that says so rather than a database error.
 * Express's own body parsers (body-parser on raw-body) limit and decode the same way, but hold each body without
 * asking anything shared and wait for a trickle for ever, so the reading here is Herald's own, on node:zlib.
 */
import querystring from 'node:querystring';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import { HeraldError, ValidationError } from '../domain/errors.js';

const MAX_JSON_DEPTH = 64;

class TooDeeplyNestedError extends ValidationError {
  constructor() {
    super(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels; flatten it.`);
  }
}

class NulCharacterError extends ValidationError {
  constructor(where: string) {
    super(`The ${where} contains the NUL character (U+0000, %00); remove it.`);
  }
}

/** A body the reader stopped at: answered, and the connection closed rather than the rest read. */
class BodyRefusedError extends HeraldError {}

const tooLarge = (limit: number) =>
  new BodyRefusedError(
    'payload_too_large',
    413,
    `The body is larger than the ${limit} bytes accepted (counted uncompressed); send less.`,
  );
const unsupportedEncoding = () =>
  new BodyRefusedError(
    'unsupported_media_type',
    415,
    'Send the body uncompressed or as gzip, deflate or br (one of them), in UTF-8.',
  );
const unsupportedCharset = () => new BodyRefusedError('unsupported_media_type', 415, 'Send the body as UTF-8.');
const undecodable = () =>
  new BodyRefusedError(
    'invalid_request',
    400,
    'The body could not be decompressed as its Content-Encoding says; send it uncompressed or encoded correctly.',
  );
const tooSlow = (timeoutMs: number) =>
  new BodyRefusedError(
    'request_timeout',
    408,
    `The body did not arrive whole within ${timeoutMs / 1000} seconds; send it at once.`,
  );
const aborted = () => new BodyRefusedError('request_aborted', 400, 'The request body ended before it was complete.');
const invalidJson = () =>
  new HeraldError('invalid_json', 400, 'The body is not a valid JSON object; check quotes, commas and brackets.');

/** Over one of the budgets of bodies in flight: try again once the bodies being read now have ended. */
export class BodiesInFlightError extends BodyRefusedError {
  constructor(
    status: 429 | 503,
    readonly retryAfterSeconds: number,
  ) {
    super(
      status === 429 ? 'rate_limited' : 'service_unavailable',
      status,
      status === 429
        ? `Too many request bodies from your address are being read at once; wait ${retryAfterSeconds} seconds ` +
            'and send fewer at a time.'
        : `Herald is reading as many request bodies as it can hold right now; try again in ${retryAfterSeconds} ` +
            'seconds.',
    );
  }
}

/** What the bodies being read may hold (config.ts, bodiesInFlight). */
export interface BodiesInFlightLimits {
  bytes: number;
  bytesPerAddress: number;
  timeoutMs: number;
}

/** The bytes held by the bodies being read, in all and per client address. */
class BodiesInFlight {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: BodiesInFlightLimits) {}

  hold(address: string, bytes: number): BodiesInFlightError | undefined {
    const held = this.byAddress.get(address) ?? 0;
    const retryAfter = Math.ceil(this.limits.timeoutMs / 1000);
    if (held + bytes > this.limits.bytesPerAddress) return new BodiesInFlightError(429, retryAfter);
    if (this.total + bytes > this.limits.bytes) return new BodiesInFlightError(503, retryAfter);
    this.byAddress.set(address, held + bytes);
    this.total += bytes;
    return undefined;
  }

  release(address: string, bytes: number): void {
    const left = (this.byAddress.get(address) ?? 0) - bytes;
    if (left > 0) this.byAddress.set(address, left);
    else this.byAddress.delete(address);
    this.total -= bytes;
  }
}

export interface BodyReader {
  /** JSON of the JSON media types, or whatever the type when `anyType`. */
  json(options: { limit: number; anyType?: boolean }): RequestHandler[];
  /** application/x-www-form-urlencoded fields, one string each (an array for a repeated name). */
  form(options: { limit: number }): RequestHandler[];
}

/** One per app, whose surfaces all read their bodies with it: they are held against the same budgets. */
export function bodyReader(limits: BodiesInFlightLimits): BodyReader {
  const inFlight = new BodiesInFlight(limits);
  const parser =
    (limit: number, accepts: (type: string) => boolean, parse: (text: string) => unknown): RequestHandler =>
    (req, res, next) => {
      const [type, charset] = mediaType(req.headers['content-type']);
      if (!hasBody(req) || !accepts(type)) return next();
      const utf8 = charset === undefined || charset === 'utf-8' || charset === 'utf8';
      if (!utf8) return refuse(req, res, next, unsupportedCharset());
      readBody(req, res, limit, inFlight, limits.timeoutMs).then(
        (bytes) => {
          try {
            req.body = parse(bytes.toString('utf8'));
          } catch (error) {
            return next(error);
          }
          next();
        },
        (error: BodyRefusedError) => refuse(req, res, next, error),
      );
    };
  return {
    json: ({ limit, anyType }) => [parser(limit, anyType ? () => true : isJsonType, parseJson), checkBody],
    form: ({ limit }) => [parser(limit, (type) => type === 'application/x-www-form-urlencoded', parseForm), checkBody],
  };
}

/** Mounted before every router: a URL carrying %00 anywhere is refused. */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  next(/%00/i.test(req.originalUrl) ? new NulCharacterError('URL') : undefined);
};

/**
 * A request answered before its body arrived whole is told the connection closes, and it does once the answer is
 * out: reading the rest would hold the connection for as long as the client cares to send.
 */
export function closeIfBodyUnread(req: Request, res: Response): void {
  if (hasBody(req) && !req.complete && !res.headersSent) res.setHeader('Connection', 'close');
}

function refuse(req: Request, res: Response, next: (error: unknown) => void, error: HeraldError): void {
  closeIfBodyUnread(req, res);
  if (error instanceof BodiesInFlightError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  next(error);
}

/** Node's own test: a Content-Length (0 too) or chunked framing. */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || /^\d+$/.test(req.headers['content-length'] ?? '');
}

function mediaType(header: string | undefined): [type: string, charset: string | undefined] {
  const [type = '', ...parameters] = (header ?? '').toLowerCase().split(';');
  const charset = parameters.map((p) => p.trim()).find((p) => p.startsWith('charset='));
  return [type.trim(), charset?.slice('charset='.length).replace(/^"(.*)"$/, '$1')];
}

function isJsonType(type: string): boolean {
  return type === 'application/json' || /^application\/[^/]+\+json$/.test(type);
}

function decoderFor(encoding: string): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw unsupportedEncoding();
  }
}

/**
 * The decoded body, its bytes held against the budgets from the first one until the request ends. A plain body's
 * Content-Length is held before anything is read, so one that could not be held is refused unread.
 */
async function readBody(
  req: Request,
  res: Response,
  limit: number,
  inFlight: BodiesInFlight,
  timeoutMs: number,
): Promise<Buffer> {
  if (req.destroyed) throw aborted();
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const plain = encoding === 'identity';
  const declared = plain ? Number(req.headers['content-length'] ?? 0) : 0;
  if (declared > limit) throw tooLarge(limit);

  const address = req.ip ?? 'unknown';
  let held = 0;
  const holdUpTo = (bytes: number) => {
    if (bytes <= held) return undefined;
    const refused = inFlight.hold(address, bytes - held);
    if (!refused) held = bytes;
    return refused;
  };
  const release = () => {
    inFlight.release(address, held);
    held = 0;
  };
  res.once('close', release);
  const refusedAtOnce = holdUpTo(declared);
  if (refusedAtOnce) throw refusedAtOnce;
  const decoder = plain ? undefined : decoderFor(encoding);

  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const source = decoder ?? req;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return stop(tooLarge(limit));
      const refused = holdUpTo(received);
      if (refused) return stop(refused);
      chunks.push(chunk);
    };
    const onEnd = () => stop();
    const onDecodeError = () => stop(undecodable());
    const onRequestGone = () => {
      if (!req.complete) stop(aborted());
    };
    const timer = setTimeout(() => stop(tooSlow(timeoutMs)), timeoutMs);
    let settled = false;
    function stop(error?: HeraldError) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      source.off('data', onData).off('end', onEnd);
      req.off('error', onRequestGone).off('close', onRequestGone);
      if (decoder) {
        req.unpipe(decoder);
        decoder
          .off('error', onDecodeError)
          .on('error', () => undefined)
          .destroy();
      }
      if (!error) return resolve(Buffer.concat(chunks, received));
      // What is still coming is not wanted: it is read and dropped until the refusal closes the connection.
      chunks.length = 0;
      req.resume();
      reject(error);
    }
    source.on('data', onData).on('end', onEnd);
    req.on('error', onRequestGone).on('close', onRequestGone);
    if (decoder) req.pipe(decoder.on('error', onDecodeError));
  });
}

function parseJson(text: string): unknown {
  if (text.length === 0) return {};
  // Like Express's parser: only an object or an array is a body.
  if (!/^[ \t\n\r]*[{[]/.test(text)) throw invalidJson();
  try {
    return JSON.parse(text);
  } catch {
    throw invalidJson();
  }
}

function parseForm(text: string): Record<string, string | string[]> {
  // Spread into a plain object: a field named __proto__ stays a field.
  return { ...querystring.parse(text) } as Record<string, string | string[]>;
}

const checkBody: RequestHandler = (req, _res, next) => {
  const problem = bodyProblem(req.body, MAX_JSON_DEPTH);
  next(
    problem === 'depth' ? new TooDeeplyNestedError() : problem === 'nul' ? new NulCharacterError('body') : undefined,
  );
};

/** Walks a parsed body with an explicit stack: too deep, a string (or key) with U+0000, or fine. */
function bodyProblem(value: unknown, maxDepth: number): 'depth' | 'nul' | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return 'nul';
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth > maxDepth) return 'depth';
    for (const [key, child] of Object.entries(current)) {
      if (key.includes('\u0000')) return 'nul';
      stack.push([child, depth + 1]);
    }
  }
  return undefined;
}
