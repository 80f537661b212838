/**
 * The server Herald listens with makes its requests and responses with the app's prototypes, so Express's
 * per-request setPrototypeOf changes nothing (src/http/app-server.ts); everything else about them stays Node's.
 * Before it stops, it answers what it took (`drain`); it cuts off headers and requests that do not arrive in time.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../../src/http/app-server.js';
import { answerClientError } from '../../src/http/client-error.js';
import type { Logger } from '../../src/logger.js';
import { startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';

describe('the app server', () => {
  let server: http.Server;
  let url: string;
  let app: express.Express;
  const seen: { request: boolean; response: boolean }[] = [];

  before(async () => {
    const created = createAppServer();
    server = created.server;
    app = express();
    app.post('/echo', express.text({ type: () => true }), (req, res) => {
      res
        .status(201)
        .type('text')
        .send(
          `${req.method} ${req.body as string} ${req instanceof http.IncomingMessage} ` +
            `${res instanceof http.ServerResponse}`,
        );
    });
    app.get('/keep', (req, res) => res.json({ host: req.hostname, query: req.query }));
    // Before Express sees them: what the server itself made.
    server.prependListener('request', (req, res) => {
      seen.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
      });
    });
    created.serve(app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('makes requests and responses with the app’s prototypes, before Express takes them', async () => {
    seen.length = 0;
    await (await fetch(`${url}/keep`)).arrayBuffer();
    assert.deepEqual(seen, [{ request: true, response: true }]);
  });

  it('reads bodies, answers and keeps connections alive as Node does', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const call = (path: string, body?: string) =>
      new Promise<{ status: number; text: string; socket: unknown }>((resolve, reject) => {
        const req = http.request(`${url}${path}`, { method: body === undefined ? 'GET' : 'POST', agent }, (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (text += c))
            .on('end', () => resolve({ status: res.statusCode!, text, socket: req.socket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const first = await call('/echo', 'hello');
    assert.equal(first.status, 201);
    assert.equal(first.text, 'POST hello true true');
    const second = await call('/keep?a=1');
    assert.equal(second.status, 200);
    assert.deepEqual(JSON.parse(second.text), { host: '127.0.0.1', query: { a: '1' } });
    assert.equal(second.socket, first.socket, 'the second request went over the first one’s connection');
    agent.destroy();
  });
});

describe('the app server draining before it stops', function () {
  this.timeout(20_000);
  let server: http.Server;
  let drain: (graceMs: number) => Promise<void>;
  let url: string;
  let release: () => void;
  /** Resolves once a request to /never has reached the app: a loaded machine may take longer than any fixed wait. */
  let neverArrived: Promise<void>;

  beforeEach(async () => {
    const created = createAppServer();
    server = created.server;
    drain = created.drain;
    const held = new Promise<void>((resolve) => (release = resolve));
    const app = express();
    app.get('/slow', async (_req, res) => {
      await held;
      res.json({ answered: true });
    });
    let arrived: () => void;
    neverArrived = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/never', () => arrived());
    app.get('/fast', (_req, res) => res.json({ fast: true }));
    created.serve(app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    release();
    server.closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  });

  /** Settles to how long `promise` took, or to undefined when it has not settled within `ms`. */
  const within = async (promise: Promise<unknown>, ms: number) => {
    const started = Date.now();
    return Promise.race([
      promise.then(() => Date.now() - started),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms)),
    ]);
  };

  it('answers a request in flight, and only then is done; a new connection is refused', async () => {
    const inFlight = fetch(`${url}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const drained = drain(5_000);
    assert.equal(await within(drained, 300), undefined, 'still draining while the request is unanswered');
    await assert.rejects(fetch(`${url}/fast`), 'a new connection is refused');
    release();
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { answered: true });
    assert.ok((await within(drained, 2_000)) !== undefined, 'done once it answered');
  });

  it('tells a client that sends another request on its connection while draining to close it', async () => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const drained = drain(5_000);
    socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await once(socket, 'close');
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    assert.match(first, /^HTTP\/1\.1 200[\s\S]*\{"answered":true\}$/);
    assert.match(second, /^HTTP\/1\.1 200[\s\S]*\r\nConnection: close\r\n[\s\S]*\{"fast":true\}$/i);
    assert.ok((await within(drained, 2_000)) !== undefined);
  });

  it('does not wait for a kept-alive connection that is idle', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get(`${url}/fast`, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode!)))
        .on('error', reject);
    });
    assert.equal(status, 200);
    assert.equal(Object.values(agent.freeSockets).flat().length, 1, 'the connection is kept, idle');
    const took = await within(drain(5_000), 2_000);
    assert.ok(took !== undefined && took < 1_000, `drained in ${took} ms`);
    agent.destroy();
  });

  it(
    'under keep-alive load, answers every request sent ' + 'on a reused connection while draining: none is reset',
    async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
      const resets: string[] = [];
      let answered = 0;
      let stopping = false;
      const client = async () => {
        while (!stopping) {
          const outcome = await new Promise<'again' | 'done'>((resolve) => {
            const req = http.get(`${url}/fast`, { agent }, (res) => {
              res.resume().on('end', () => {
                answered++;
                // Told to close: this client's connection is done, and a new one would be refused.
                resolve(res.headers.connection === 'close' ? 'done' : 'again');
              });
            });
            req.on('error', (error: NodeJS.ErrnoException) => {
              // A new connection refused once the server stopped listening is expected; a reused one cut off is not.
              if (req.reusedSocket) resets.push(`${error.code}: ${error.message}`);
              resolve('done');
            });
          });
          if (outcome === 'done') return;
        }
      };
      const clients = Array.from({ length: 16 }, client);
      // Load first (at most 10 s on a loaded machine), so the drain meets connections in use and reused.
      for (const started = Date.now(); answered <= 32 && Date.now() - started < 10_000; )
        await new Promise((resolve) => setTimeout(resolve, 20));
      const before = answered;
      await drain(5_000);
      stopping = true;
      await Promise.all(clients);
      agent.destroy();
      assert.ok(before > 32, `load before the drain: ${before} requests, most on reused connections`);
      assert.deepEqual(resets, [], `${resets.length} of ${answered} requests were cut off on a reused connection`);
    },
  );

  it('closes what is left when the grace period is over', async () => {
    const inFlight = fetch(`${url}/never`).then(
      () => 'answered',
      () => 'cut off',
    );
    await neverArrived;
    const took = await within(drain(400), 3_000);
    assert.ok(took !== undefined && took >= 390, `stopped waiting after ${took} ms`);
    assert.equal(await inFlight, 'cut off');
  });
});

describe('the app server’s timeouts', function () {
  this.timeout(20_000);
  let server: http.Server;
  let port: number;

  before(async () => {
    // Short timeouts, as a backstop of Node's; Herald's own are 20 s and 5 minutes.
    const created = createAppServer({ headersTimeoutMs: 500, requestTimeoutMs: 1_500 });
    server = created.server;
    server.on('clientError', answerClientError);
    const app = express();
    // Reads nothing: the body is left to the server's request timeout.
    app.post('/ignore', (_req, _res) => undefined);
    created.serve(app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Sends `text`, holds the connection, and resolves with what came back once the server closed it, and when. */
  const held = async (text: string) => {
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const started = Date.now();
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.write(text);
    await once(socket, 'close');
    return { received, ms: Date.now() - started };
  };

  it('answers headers that do not arrive whole in time with a 408 and closes the connection', async () => {
    const { received, ms } = await held('GET /ignore HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    assert.match(received, /^HTTP\/1\.1 408 /);
    assert.equal(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)).code, 'request_timeout');
    assert.ok(ms >= 450 && ms < 5_000, `closed after ${ms} ms`);
  });

  it('cuts off a request whose body does not arrive whole in time, though its handler has taken it', async () => {
    const { received, ms } = await held('POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":');
    // The response belongs to the handler by then: nothing is written beside it.
    assert.equal(received, '');
    assert.ok(ms >= 1_400 && ms < 6_000, `closed after ${ms} ms`);
  });
});

describe(`Herald listens with the app server (${TEST_DB})`, function () {
  this.timeout(30_000);
  let h: TestHerald;

  before(async () => {
    h = await startTestHerald();
  });

  after(async () => {
    await h.close();
  });

  it('hands Express requests that already have its prototype', async () => {
    const prototypes: boolean[] = [];
    const listener = (req: http.IncomingMessage) =>
      prototypes.push(Object.getPrototypeOf(Object.getPrototypeOf(req)) === express.request);
    h.herald.server.prependListener('request', listener);
    try {
      const res = await fetch(`${h.url}/healthz`);
      assert.equal(res.status, 200);
    } finally {
      h.herald.server.off('request', listener);
    }
    assert.deepEqual(prototypes, [true]);
  });

  it('answers the requests it took before it stops, none failing against a closed database', async () => {
    const errors: string[] = [];
    const logger: Logger = { info: () => undefined, warn: () => undefined, error: (message) => errors.push(message) };
    const other = await startTestHerald({}, logger);
    const a = await other.seedAccount();
    const paths = ['/channels', '/posts?limit=5', '/members', '/webhooks', '/workspaces', '/approvals'];
    let taken = 0;
    const allTaken = new Promise<void>((resolve) =>
      other.herald.server.prependListener('request', () => ++taken === 24 && resolve()),
    );
    const calls = Array.from({ length: 24 }, (_, i) =>
      fetch(`${other.url}/v1/rest${paths[i % paths.length]}`, {
        headers: { authorization: `Bearer ${a.apiKey}` },
      }).then(
        (res) => res.status,
        (error: Error) => String(error.cause ?? error),
      ),
    );
    // A connection still in the system's queue, not yet accepted, is the load balancer's to move elsewhere.
    await allTaken;
    await other.close();
    assert.deepEqual([...new Set(await Promise.all(calls))], [200]);
    assert.deepEqual(errors, []);
  });
});
