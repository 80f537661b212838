/**
 * Request bodies cannot be made to hold the server (src/http/request-body.ts): REST reads none before it knows the
 * caller; a body is decoded as it arrives against the limit; the bodies in flight are bounded for the process and
 * per client address; a trickle is cut off; and a flood of held, compressed bodies leaves /healthz answering and
 * the heap within a bound.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { loadConfig, type BodiesInFlightConfig } from '../../src/config.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { heldRequest, raw, type HeldRequest, type HeldRequestOptions } from '../support/raw-http.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Resolves with `promise`'s value, or fails naming `what` once `ms` have passed. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>(
    (_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** What a refusal must be: the status, in the REST error shape, and the connection closed rather than read on. */
async function assertRefusedAndClosed(held: HeldRequest, status: number, ms = 3_000): Promise<Record<string, any>> {
  const answer = await within(ms, `the ${status}`, held.answer);
  assert.ok(answer, `no answer before the connection closed (expected ${status})`);
  assert.equal(answer.status, status, answer.body);
  assert.equal(answer.headers.connection, 'close');
  await within(ms, 'the server closing the connection', held.closed);
  return JSON.parse(answer.body);
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('the settings of bodies in flight', () => {
  it('default to 64 MiB, 8 MiB per address and 10 s, and refuse budgets too small for the largest body', () => {
    assert.deepEqual(loadConfig({}).bodiesInFlight, { bytes: 64 * MiB, bytesPerAddress: 8 * MiB, timeoutMs: 10_000 });
    const set = { MAX_BODY_BYTES: '100', BODY_BYTES_IN_FLIGHT: '1000', BODY_BYTES_IN_FLIGHT_PER_ADDRESS: '500' };
    const config = loadConfig({ ...set, BODY_TIMEOUT_MS: '2000' });
    assert.deepEqual(config.bodiesInFlight, { bytes: 1000, bytesPerAddress: 500, timeoutMs: 2000 });
    assert.throws(
      () => loadConfig({ BODY_BYTES_IN_FLIGHT_PER_ADDRESS: '1000' }),
      /at least MAX_BODY_BYTES \(1048576\)/,
    );
    assert.throws(() => loadConfig({ BODY_BYTES_IN_FLIGHT: String(MiB) }), /at least BODY_BYTES_IN_FLIGHT_PER_ADDRESS/);
  });
});

describe(`request bodies (${TEST_DB})`, function () {
  this.timeout(60_000);
  // Small enough that a few held requests reach them; an address's budget still takes a body of the largest size.
  const maxBodyBytes = 384 * KiB;
  const limits: BodiesInFlightConfig = { bytes: 768 * KiB, bytesPerAddress: 512 * KiB, timeoutMs: 1_500 };
  let h: TestHerald;
  let account: SeededAccount;
  const held: HeldRequest[] = [];

  before(async () => {
    h = await startTestHerald({ maxBodyBytes, bodiesInFlight: limits });
    account = await h.seedAccount();
  });
  afterEach(() => {
    for (const request of held.splice(0)) request.socket.destroy();
  });
  after(async () => {
    await h?.close();
  });

  const hold = (options: HeldRequestOptions) => {
    const request = heldRequest(h.url, options);
    held.push(request);
    return request;
  };
  const authorized = () => ({ ...JSON_TYPE, authorization: `Bearer ${account.apiKey}` });

  it('answers a REST or MCP call without valid credentials with a 401 before reading its body', async () => {
    const callers: [string, Record<string, string>][] = [
      ['/v1/rest/posts', {}],
      ['/v1/rest/posts', { authorization: 'Bearer not-a-key' }],
      ['/v1/rest/posts', { cookie: 'herald_web_sign_in=ended-long-ago', 'x-csrf-token': 'x' }],
      ['/mcp', { accept: 'application/json' }],
    ];
    for (const [path, credentials] of callers) {
      // Within the limit: a reader that waited for it would wait for ever.
      const headers = { ...JSON_TYPE, ...credentials, 'content-length': String(300 * KiB) };
      const body = await assertRefusedAndClosed(hold({ path, headers, sent: `{"text":"${'a'.repeat(KiB)}` }), 401);
      if (path === '/mcp') assert.equal(body.error.code, -32001, JSON.stringify(body));
      else assert.equal(body.code, 'unauthorized', JSON.stringify(body));
    }
  });

  it('stops a compressed body at the limit as it decodes: a gzip bomb is a 413 before the rest is sent', async () => {
    // 64 MiB of spaces: 64 KB compressed; the first half already decodes to 32 MiB, far over the limit.
    const bomb = zlib.gzipSync(Buffer.alloc(64 * MiB, 32), { level: 9 });
    const request = hold({
      path: '/v1/rest/posts',
      headers: { ...authorized(), 'content-encoding': 'gzip', 'content-length': String(bomb.length) },
      sent: bomb.subarray(0, bomb.length / 2),
    });
    const body = await assertRefusedAndClosed(request, 413);
    assert.equal(body.code, 'payload_too_large');
    assert.match(
      String(body.message),
      new RegExp(`larger than the ${maxBodyBytes} bytes accepted \\(counted uncompressed\\)`),
    );
  });

  it('still reads a compressed body within the limit', async () => {
    const post = { text: 'gzip works', channelIds: [account.channelIds[0]], saveAsDraft: true };
    for (const [encoding, encode] of [
      ['gzip', zlib.gzipSync],
      ['deflate', zlib.deflateSync],
      ['br', zlib.brotliCompressSync],
    ] as const) {
      const answer = await raw(`${h.url}/v1/rest/posts`, {
        method: 'POST',
        body: encode(JSON.stringify(post)),
        headers: { ...authorized(), 'content-encoding': encoding },
      });
      assert.equal(answer.status, 201, `${encoding}: ${answer.body}`);
    }
  });

  it('refuses an unknown Content-Encoding on every surface with a 415 in its shape, reading no body', async () => {
    const surfaces: [string, Record<string, string>, (body: any) => void][] = [
      ['/v1/rest/posts', authorized(), (body) => assert.equal(body.code, 'unsupported_media_type')],
      ['/mcp', { ...authorized(), accept: 'application/json' }, (body) => assert.equal(body.error.code, -32600)],
      ['/oauth2/mcp/register', JSON_TYPE, (body) => assert.equal(body.error, 'invalid_client_metadata')],
      [
        '/oauth2/mcp/token',
        { 'content-type': 'application/x-www-form-urlencoded' },
        (body) => assert.equal(body.error, 'invalid_request'),
      ],
    ];
    for (const [path, headers, shape] of surfaces) {
      const request = hold({
        path,
        headers: { ...headers, 'content-encoding': 'compress', 'content-length': String(10 * KiB) },
        sent: 'x'.repeat(KiB),
      });
      const answer = await within(3_000, path, request.answer);
      assert.equal(answer?.status, 415, `${path}: ${answer?.body}`);
      assert.match(answer.body, /uncompressed or as gzip, deflate or br/, path);
      shape(JSON.parse(answer.body));
      assert.equal(answer.headers.connection, 'close', path);
      await within(3_000, `${path} closing`, request.closed);
    }
  });

  it('answers a body that trickles with a 408 once the body timeout passes, and closes its connection', async () => {
    const started = Date.now();
    const request = hold({
      path: '/v1/rest/posts',
      headers: { ...authorized(), 'content-length': '100' },
      sent: '{"text":',
    });
    const body = await assertRefusedAndClosed(request, 408, limits.timeoutMs + 3_000);
    assert.equal(body.code, 'request_timeout');
    assert.ok(Date.now() - started >= limits.timeoutMs - 100, `answered after ${Date.now() - started} ms`);
  });

  it('holds bodies within the budgets: 429 per address, 503 for the process, given back as requests end', async () => {
    // 300 KiB each, declared: held before a byte is read. Of two sent at once, whichever comes second is refused.
    const headers = { ...authorized(), 'content-length': String(300 * KiB) };
    const send = (localAddress: string) => hold({ path: '/v1/rest/posts', headers, sent: '{"text":"', localAddress });
    const oneRefused = async (pair: HeldRequest[], status: number) => {
      const refused = await within(3_000, `a ${status}`, Promise.race(pair.map((r) => r.answer.then(() => r))));
      const body = await assertRefusedAndClosed(refused, status);
      assert.equal((await refused.answer)!.headers['retry-after'], String(Math.ceil(limits.timeoutMs / 1000)));
      return [body, pair.find((r) => r !== refused)!] as const;
    };
    const [busyAddress, first] = await oneRefused([send('127.0.0.5'), send('127.0.0.5')], 429);
    assert.equal(busyAddress.code, 'rate_limited');
    assert.match(String(busyAddress.message), /from your address/);
    const [busy, second] = await oneRefused([send('127.0.0.6'), send('127.0.0.7')], 503);
    assert.equal(busy.code, 'service_unavailable');
    // The two held requests had no answer: they were being read.
    for (const request of [first, second]) assert.equal(request.socket.destroyed, false);

    first.socket.destroy();
    second.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const post = JSON.stringify({
      text: 'after the budget came back',
      channelIds: [account.channelIds[0]],
      saveAsDraft: true,
    });
    // 300 KiB each, one after another from one address: each gives back what it held once answered.
    for (let i = 0; i < 3; i++) {
      const body = post + ' '.repeat(300 * KiB);
      const answer = await raw(`${h.url}/v1/rest/posts`, { method: 'POST', body, headers: authorized() });
      assert.equal(answer.status, 201, answer.body);
    }
  });

  it('keeps the OAuth registration body small: 413 beyond 64 KiB', async () => {
    const body = JSON.stringify({ redirect_uris: ['http://localhost/cb'], client_name: 'x'.repeat(70 * KiB) });
    const answer = await raw(`${h.url}/oauth2/mcp/register`, { method: 'POST', body, headers: JSON_TYPE });
    assert.equal(answer.status, 413, answer.body);
    assert.equal(JSON.parse(answer.body).error, 'invalid_client_metadata');
  });
});

describe(`a flood of held, compressed bodies (${TEST_DB})`, function () {
  this.timeout(90_000);
  // Budgets smaller than the defaults so the bound below is tight; the timeout short so the flood ends soon.
  const limits: BodiesInFlightConfig = { bytes: 16 * MiB, bytesPerAddress: 2 * MiB, timeoutMs: 3_000 };
  const SOCKETS = 400;
  const ADDRESSES = 20;
  /**
   * What the heap and the Buffers beside it may grow by: the 16 MiB held; the 64 MiB of Buffers V8 lets pile up
   * outside the heap before it collects (bodies refused midway are garbage until then); 48 MiB for the sockets,
   * parsers and decoders of 400 connections. Herald's reader before held each body whole: 400 MiB here.
   */
  const HEAP_GROWTH_BOUND = limits.bytes + 64 * MiB + 48 * MiB;
  let h: TestHerald;
  let account: SeededAccount;

  before(async () => {
    h = await startTestHerald({ bodiesInFlight: limits });
    account = await h.seedAccount();
  });
  after(async () => {
    await h?.close();
  });

  it('answers /healthz throughout, holds the heap within its bound, and ends every connection by itself', async () => {
    // 1 MB of JSON gzips to about 1 KB, whose first 1,024 bytes already decode to all of it; the rest never comes.
    const gzipped = zlib.gzipSync(
      JSON.stringify({ text: 'a'.repeat(1_000_000), channelIds: [account.channelIds[0]] }),
      { level: 9 },
    );
    const sent = gzipped.subarray(0, Math.min(1024, gzipped.length - 8));
    const compressed = { ...JSON_TYPE, 'content-encoding': 'gzip', 'content-length': String(gzipped.length) };
    const targets: [string, Record<string, string>][] = [
      ['/v1/rest/posts', compressed],
      ['/oauth2/mcp/register', compressed],
      ['/v1/rest/posts', { ...compressed, authorization: `Bearer ${account.apiKey}` }],
      ['/mcp', { ...compressed, authorization: `Bearer ${account.apiKey}`, accept: 'application/json' }],
    ];

    const memory = () => {
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    await fetch(`${h.url}/healthz`);
    const baseline = memory();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, memory())), 20);

    const health: { status: number | string; ms: number }[] = [];
    let flooding = true;
    const polling = (async () => {
      while (flooding) {
        const started = Date.now();
        const status = await fetch(`${h.url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
          (r) => r.status,
          (e: Error) => e.name,
        );
        health.push({ status, ms: Date.now() - started });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const flood: HeldRequest[] = [];
    try {
      const started = Date.now();
      for (let i = 0; i < SOCKETS; i++) {
        const [path, headers] = targets[i % targets.length];
        flood.push(heldRequest(h.url, { path, headers, sent, localAddress: `127.0.1.${1 + (i % ADDRESSES)}` }));
      }
      // Every connection is answered and closed by the server: the body timeout, and some seconds to spare.
      const allowedMs = limits.timeoutMs + 10_000;
      const ended = await within(allowedMs, 'the flood ending', Promise.all(flood.map((r) => r.closed))).then(
        () => true,
        () => false,
      );
      const endedAfter = Date.now() - started;
      flooding = false;
      await polling;

      const growth = peak - baseline;
      assert.ok(
        growth < HEAP_GROWTH_BOUND,
        `the heap grew by ${(growth / MiB).toFixed(1)} MiB (bound ${HEAP_GROWTH_BOUND / MiB} MiB)`,
      );
      assert.ok(health.length >= 10, `only ${health.length} health checks`);
      const slow = health.filter((c) => c.status !== 200 || c.ms > 1_000);
      assert.deepEqual(slow, [], 'every /healthz answered 200 within 1 s');
      assert.ok(ended, `the flood had not ended after ${endedAfter} ms`);

      const answers = await Promise.all(flood.map((r) => r.answer));
      const statuses = new Map<number | undefined, number>();
      for (const answer of answers) statuses.set(answer?.status, (statuses.get(answer?.status) ?? 0) + 1);
      const seen = JSON.stringify([...statuses]);
      for (const status of [401, 413, 429, 503]) assert.ok(statuses.has(status), `no ${status} among ${seen}`);
      assert.ok(
        [...statuses.keys()].every((s) => s !== undefined && [401, 408, 413, 429, 503].includes(s)),
        seen,
      );
    } finally {
      flooding = false;
      clearInterval(sampler);
      for (const request of flood) request.socket.destroy();
    }
  });
});
