/**
 * A real webhook receiver on loopback (127.0.0.2, which the test Herald lets through OUTBOUND_ALLOW_HOSTS):
 * it records every request, verifies its signature with the standardwebhooks package when given the secret,
 * and answers what the test scripts (a status per request, or a hang).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export const RECEIVER_HOST = '127.0.0.2';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  event: { id: string; type: string; timestamp: string; accountId: string; workspaceId: string; data: any };
  /** True when the signature verified under the secret the receiver held at the time. */
  verified: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Signing secret to verify with (set once the endpoint is created or rotated). */
  secret: string | undefined;
  /** The status to answer the next requests with, in order; 200 once they run out. 'hang' never answers. */
  script: (number | 'hang')[];
  /** Milliseconds to wait before answering. */
  delayMs: number;
  /** The most requests carrying one webhook-id that were in flight at once. */
  maxConcurrentPerId: number;
  /** Resolves once `count` requests have arrived (their bodies read, before the scripted answer). */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const inFlight = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    secret: undefined,
    script: [],
    delayMs: 0,
    maxConcurrentPerId: 0,
    arrived: (count) =>
      new Promise<void>((resolve) => {
        if (receiver.received.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    close: async () => {
      for (const response of hanging) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let verified = false;
      if (receiver.secret) {
        try {
          new Webhook(receiver.secret).verify(body, headers);
          verified = true;
        } catch {
          verified = false;
        }
      }
      const id = headers['webhook-id'];
      const concurrent = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, concurrent);
      receiver.maxConcurrentPerId = Math.max(receiver.maxConcurrentPerId, concurrent);
      receiver.received.push({
        id,
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        event: JSON.parse(body),
        verified,
      });
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const answer = receiver.script.shift() ?? 200;
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if (receiver.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, receiver.delayMs));
      inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, RECEIVER_HOST, resolve));
  receiver.url = `http://${RECEIVER_HOST}:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
