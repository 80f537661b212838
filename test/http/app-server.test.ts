/**
 * The server Herald listens with makes its requests and responses with the app's prototypes, so Express's
 * per-request setPrototypeOf changes nothing (src/http/app-server.ts); everything else about them stays Node's.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../../src/http/app-server.js';
import { startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';

describe('the app server', function () {
  let server: http.Server;
  let url: string;
  let app: express.Express;
  const seen: { request: boolean; response: boolean }[] = [];

  before(async () => {
    const created = createAppServer();
    server = created.server;
    app = express();
    app.post('/echo', express.text({ type: () => true }), (req, res) => {
      res.status(201).type('text').send(`${req.method} ${req.body as string} ${req instanceof http.IncomingMessage} ${res instanceof http.ServerResponse}`);
    });
    app.get('/keep', (req, res) => res.json({ host: req.hostname, query: req.query }));
    // Before Express sees them: what the server itself made.
    server.prependListener('request', (req, res) => {
      seen.push({ request: Object.getPrototypeOf(req) === app.request, response: Object.getPrototypeOf(res) === app.response });
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
          res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, text, socket: req.socket }));
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
    const listener = (req: http.IncomingMessage) => prototypes.push(Object.getPrototypeOf(Object.getPrototypeOf(req)) === express.request);
    h.herald.server.prependListener('request', listener);
    try {
      const res = await fetch(`${h.url}/healthz`);
      assert.equal(res.status, 200);
    } finally {
      h.herald.server.off('request', listener);
    }
    assert.deepEqual(prototypes, [true]);
  });
});
