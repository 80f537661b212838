import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockedAddressReason } from '../../src/net/outbound-address.js';
import { OutboundRequestError } from '../../src/domain/outbound.js';
import { probeDirectMedia, safeFetch, type SafeFetchOptions } from '../../src/net/safe-fetch.js';

const png = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489' +
    '0000000d4944415478da63f8cfc0f01f0005000200d1a1d3c50000000049454e44ae426082',
  'hex',
);

/** A local origin standing in for the internet; reached through the allow-list. */
async function startOrigin(): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/image.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    } else if (url.pathname === '/page') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><html><title>Watch</title></html>');
    } else if (url.pathname === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(64 * 1024));
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    } else if (url.pathname === '/loop') {
      res.writeHead(302, { location: '/loop' }).end();
    } else if (url.pathname === '/slow') {
      setTimeout(() => res.end('late'), 2000).unref();
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function refusal(promise: Promise<unknown>): Promise<OutboundRequestError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutboundRequestError, `expected OutboundRequestError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to be refused');
}

describe('safe-fetch (SSRF guard for user-supplied URLs)', () => {
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  const allowed: SafeFetchOptions = { allowHosts: ['127.0.0.1'], maxBytes: 16 * 1024, timeoutMs: 1000 };
  const strict: SafeFetchOptions = { ...allowed, allowHosts: [] };

  before(async () => {
    origin = await startOrigin();
  });
  after(() => origin.close());

  it('classifies addresses: loopback, private, link-local, CGNAT, multicast and mapped forms are blocked', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      '2002:7f00:1::',
    ]) {
      assert.ok(blockedAddressReason(address), `${address} should be blocked`);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(blockedAddressReason(address), undefined, `${address} should be allowed`);
    }
  });

  it('refuses every IPv6 form that embeds or tunnels to a private or loopback IPv4 address', () => {
    const blocked = [
      '::ffff:0:7f00:1',
      '::ffff:0:127.0.0.1',
      '::ffff:0:a00:1', // SIIT (IPv4-translated)
      '64:ff9b:1::a00:1',
      '64:ff9b:1::808:808',
      '64:ff9b:1:ffff::1', // local-use NAT64, whole
      '64:ff9b::127.0.0.1',
      '64:ff9b::c0a8:101', // well-known NAT64 with a private address
      '2002:a00:1::1',
      '2002:c0a8:101::', // 6to4 carrying 10.0.0.1 and 192.168.1.1
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '2001::1', // Teredo
      '::127.0.0.1',
      '::10.1.2.3', // IPv4-compatible
    ];
    for (const address of blocked) assert.ok(blockedAddressReason(address), `${address} should be blocked`);
    assert.match(
      blockedAddressReason('2001:0:4136:e378:8000:63bf:f5ff:fffe') ?? '',
      /Teredo tunnel address \(to 10\.0\.0\.1\)/,
    );
    assert.match(
      blockedAddressReason('2001:0:4136:e378:8000:63bf:3fff:fdd2') ?? '',
      /Teredo tunnel address \(to 192\.0\.2\.45\)/,
    );
    assert.match(blockedAddressReason('64:ff9b:1::808:808') ?? '', /local-use NAT64/);
    for (const address of ['64:ff9b::808:808', '2002:808:808::1', '::ffff:0:808:808']) {
      assert.equal(blockedAddressReason(address), undefined, `${address} carries a public address`);
    }
  });

  /** Every IPv6 form that embeds or tunnels to a non-public IPv4 address, with the address it carries. */
  const embeddingForms: [form: string, address: string][] = [
    ['IPv4-mapped', '::ffff:10.0.0.1'],
    ['IPv4-translated (SIIT)', '::ffff:0:7f00:1'],
    ['IPv4-compatible', '::169.254.169.254'],
    ['NAT64 with a private address', '64:ff9b::c0a8:101'],
    ['local-use NAT64, even with a public address', '64:ff9b:1::808:808'],
    ['6to4 carrying 127.0.0.1', '2002:7f00:1::1'],
    ['Teredo (client 10.0.0.1)', '2001:0:4136:e378:8000:63bf:f5ff:fffe'],
  ];

  it('refuses each embedding IPv6 form written as the URL host, without connecting', async () => {
    for (const [form, address] of embeddingForms) {
      const error = await refusal(safeFetch(`http://[${address}]/x.png`, strict));
      assert.equal(error.reason, 'blocked_address', form);
      assert.match(error.message, /is not an address Herald may fetch from; use a URL on the public internet\./, form);
    }
  });

  it(
    'refuses a host name whose DNS answers hold an embedding IPv6 form, ' + 'alone or beside a public address',
    async () => {
      for (const [form, address] of embeddingForms) {
        const alone = { ...strict, resolve: async () => [{ address, family: 6 }] };
        const error = await refusal(safeFetch('http://media.example/x.png', alone));
        assert.equal(error.reason, 'blocked_address', form);
        assert.equal(
          error.message,
          'http://media.example is not an address Herald may fetch from; use a URL on the public internet.',
          form,
        );
        const mixed = {
          ...strict,
          resolve: async () => [
            { address: '93.184.216.34', family: 4 },
            { address, family: 6 },
          ],
        };
        assert.equal(
          (await refusal(safeFetch('http://media.example/x.png', mixed))).reason,
          'blocked_address',
          `${form} beside a public address`,
        );
      }
    },
  );

  it('fetches an allow-listed host', async () => {
    const response = await safeFetch(`${origin.base}/image.png`, allowed);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, png);
  });

  it('refuses 127.0.0.1 without the allow-list', async () => {
    const error = await refusal(safeFetch(`${origin.base}/image.png`, strict));
    assert.equal(error.reason, 'blocked_address');
    assert.equal(
      error.message,
      `${origin.base} is not an address Herald may fetch from; use a URL on the public internet.`,
    );
  });

  it('refuses private and metadata addresses without connecting', async () => {
    for (const url of [
      'http://10.0.0.1/x.png',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::1]/',
    ]) {
      const error = await refusal(safeFetch(url, strict));
      assert.equal(error.reason, 'blocked_address', url);
    }
  });

  it('refuses a DNS name that resolves to loopback, even when the loopback IP is allow-listed', async () => {
    const port = new URL(origin.base).port;
    const error = await refusal(safeFetch(`http://localhost:${port}/image.png`, allowed));
    assert.equal(error.reason, 'blocked_address');
    assert.equal(
      error.message,
      `http://localhost:${port} is not an address Herald may fetch from; use a URL on the public internet.`,
    );
    assert.doesNotMatch(
      error.message,
      /127\.0\.0\.1|::1|loopback|resolves/,
      'says nothing of what the name resolves to',
    );
  });

  it('re-checks every redirect hop: an allowed host redirecting to a private address is refused', async () => {
    const error = await refusal(
      safeFetch(
        `${origin.base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
        allowed,
      ),
    );
    assert.equal(error.reason, 'blocked_address');
    const toLocalhost = await refusal(
      safeFetch(
        `${origin.base}/redirect?to=${encodeURIComponent(`http://localhost:${new URL(origin.base).port}/image.png`)}`,
        allowed,
      ),
    );
    assert.equal(toLocalhost.reason, 'blocked_address');
  });

  it('follows an allowed redirect, and stops after five', async () => {
    const response = await safeFetch(`${origin.base}/redirect?to=/image.png`, allowed);
    assert.equal(response.url, `${origin.base}/image.png`);
    assert.deepEqual(response.body, png);
    assert.equal((await refusal(safeFetch(`${origin.base}/loop`, allowed))).reason, 'too_many_redirects');
  });

  it('refuses other schemes, credentials, oversized bodies and slow origins', async () => {
    assert.equal((await refusal(safeFetch('file:///etc/passwd', allowed))).reason, 'invalid_url');
    assert.equal((await refusal(safeFetch('ftp://example.com/x', allowed))).reason, 'invalid_url');
    assert.equal((await refusal(safeFetch(`http://user:pw@127.0.0.1:1/`, allowed))).reason, 'invalid_url');
    assert.equal((await refusal(safeFetch(`${origin.base}/big`, allowed))).reason, 'too_large');
    assert.equal((await refusal(safeFetch(`${origin.base}/slow`, { ...allowed, timeoutMs: 200 }))).reason, 'timeout');
  });

  it('probeDirectMedia tells a direct image from an HTML page', async () => {
    const image = await probeDirectMedia(`${origin.base}/image.png`, allowed);
    assert.deepEqual(image, { direct: true, kind: 'image', mimeType: 'image/png', url: `${origin.base}/image.png` });
    const page = await probeDirectMedia(`${origin.base}/page`, allowed);
    assert.equal(page.direct, false);
    assert.match(page.direct ? '' : page.reason, /web page \(HTML\)/);
    const missing = await probeDirectMedia(`${origin.base}/nope`, allowed);
    assert.equal(missing.direct, false);
    await refusal(probeDirectMedia('http://10.0.0.1/image.png', strict));
  });
});
