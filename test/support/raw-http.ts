import net from 'node:net';
import http from 'node:http';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request sent exactly as given (fetch would refuse or normalise some paths, headers and bodies). */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string; path?: string },
): Promise<RawAnswer> {
  const target = new URL(url);
  // Without a Content-Length, Node sends a GET or DELETE body unframed and the server reads it as the next request.
  const headers =
    options.body === undefined
      ? options.headers
      : { 'content-length': String(Buffer.byteLength(options.body)), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path ?? `${target.pathname}${target.search}`,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () =>
      req.destroy(new Error(`no answer within 15 s: ${options.method ?? 'GET'} ${options.path ?? url}`)),
    );
    req.end(options.body);
  });
}

/** A request whose body is sent only in part, on its own connection, and held there until the server ends it. */
export interface HeldRequest {
  socket: net.Socket;
  /** The first answer, once it is whole (or undefined when the connection ended without one). */
  answer: Promise<RawAnswer | undefined>;
  /** When the server closed the connection (or it failed). */
  closed: Promise<void>;
}

export interface HeldRequestOptions {
  method?: string;
  path: string;
  headers: Record<string, string>;
  /** The part of the body sent. */
  sent: Buffer | string;
  /** The client address to send from (any of 127.0.0.0/8 on loopback). */
  localAddress?: string;
}

export function heldRequest(url: string, options: HeldRequestOptions): HeldRequest {
  const target = new URL(url);
  const socket = net.connect({ host: target.hostname, port: Number(target.port), localAddress: options.localAddress });
  const head = [`${options.method ?? 'POST'} ${options.path} HTTP/1.1`, `host: ${target.host}`];
  for (const [name, value] of Object.entries(options.headers)) head.push(`${name}: ${value}`);
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  socket.write(options.sent);
  let received = Buffer.alloc(0);
  let answered: (answer: RawAnswer | undefined) => void;
  const answer = new Promise<RawAnswer | undefined>((resolve) => (answered = resolve));
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const parsed = parseAnswer(received);
    if (parsed) answered(parsed);
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  // A server that closes while the client is still sending may reset the connection: that is an end too.
  socket.on('error', () => undefined);
  void closed.then(() => answered(parseAnswer(received)));
  return { socket, answer, closed };
}

function parseAnswer(bytes: Buffer): RawAnswer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length < end + 4 + length) return undefined;
  const body = bytes.subarray(end + 4, end + 4 + length).toString('utf8');
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}
