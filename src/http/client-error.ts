/**
 * Requests Node's HTTP parser refuses before Express sees them (a URL and headers past Node's 16 KB, a
 * malformed request line or header, headers or a request not whole within the server's timeouts):
 * - answered with the REST error body and a status that says which, instead of Node's bare status line;
 * - nothing of the request is echoed, and the connection is closed (the parser cannot go on);
 * - a socket that is already gone, or has a response under way, is only destroyed.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request_too_large', 'The URL and headers together are larger than 16 KB; shorten them.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request did not arrive whole in time; send its headers and body at once.']
        : [400, 'invalid_request', 'The request is not valid HTTP/1.1; check its request line and headers.'];
  const body = JSON.stringify({ status: false, code, message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; ` +
      `charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
