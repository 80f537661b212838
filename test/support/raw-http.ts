import http from 'node:http';

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request sent exactly as given (fetch would refuse or normalise some paths, headers and bodies). */
export function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string; path?: string }): Promise<RawAnswer> {
  const target = new URL(url);
  // Without a Content-Length, Node sends a GET or DELETE body unframed and the server reads it as the next request.
  const headers = options.body === undefined ? options.headers : { 'content-length': String(Buffer.byteLength(options.body)), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: target.hostname, port: target.port, method: options.method ?? 'GET', path: options.path ?? `${target.pathname}${target.search}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer within 15 s: ${options.method ?? 'GET'} ${options.path ?? url}`)));
    req.end(options.body);
  });
}
