import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server for the media a test's posts name (the networks' fakes download it as the real networks would):
 * each path answers its file with its type and length, whatever the query; any other path is a 404.
 */
export async function serveMediaFiles(
  files: Record<string, { type: string; body: Buffer | string }>,
): Promise<{ origin: string; close(): void }> {
  const server = http.createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://files').pathname];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'content-length': Buffer.byteLength(file.body) }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
