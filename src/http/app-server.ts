/**
 * An HTTP server whose requests and responses are made with the Express app's own prototypes.
 *
 * Express sets the prototype of every request and response to the app's (`app.request`, `app.response`) when it
 * takes them (`app.handle`). Changing an object's prototype in V8 costs more than the call: every request's objects
 * then survived the young generation's collections and were promoted. A bare Node server answering a constant
 * body kept 7 KB a scavenge; with the two setPrototypeOf calls added, 3.8 MB a scavenge and seven full collections
 * in four seconds (BENCHMARKS.md, "Reading the figures"). A server that makes them with those prototypes from the
 * start leaves Express's calls nothing to change.
 *
 * The same server drains before it stops (`drain`): it answers the requests it took before it closes their connections,
 * and a request sent on a kept-alive connection while it drains is answered with `Connection: close`, never reset.
 *
 * Its timeouts are a backstop behind the body reader's own (src/http/request-body.ts): headers must arrive whole
 * within 20 s, and a whole request within 5 minutes (a media upload streams up to MEDIA_MAX_UPLOAD_BYTES through
 * it, so no less); Node looks at its connections every 2 s rather than 30.
 */
import http, { IncomingMessage, ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';
import type { Express } from 'express';

export interface AppServer {
  server: http.Server;
  /** Hands every request to `app` from now on. */
  serve(app: Express): void;
  /**
   * Takes no more connections and waits, at most `graceMs`, until every request taken is answered and its
   * connection closed; then closes whatever is left. A client whose POST is cut off cannot tell whether the post
   * was made, so an instance that is stopped (a deploy, a scale-in) finishes what it started first. A client that
   * went away is not waited for.
   */
  drain(graceMs: number): Promise<void>;
}

// How often kept-alive connections are looked at while draining: one goes idle only once its response is done.
const IDLE_SWEEP_MS = 50;
// While draining, a kept-alive connection is closed once nothing has been read or answered on it for this long. A
// client under load sends its next request the moment its answer arrives; closing the connection then (as Node's
// server.close() does with every idle one) cuts that request off with a reset, where waiting answers it with
// `Connection: close`. A connection quiet this long has no request on its way.
const IDLE_QUIET_MS = 250;

export interface AppServerTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

const TIMEOUTS: AppServerTimeouts = { headersTimeoutMs: 20_000, requestTimeoutMs: 5 * 60_000 };

export function createAppServer(timeouts: AppServerTimeouts = TIMEOUTS): AppServer {
  // Node's http server makes its requests and responses with `new`, from constructors it may be given; these two
  // are Node's own, with the prototype their objects get set when the app is known.
  function AppRequest(this: IncomingMessage, ...args: unknown[]) {
    Reflect.apply(IncomingMessage, this, args);
  }
  function AppResponse(this: ServerResponse, ...args: unknown[]) {
    Reflect.apply(ServerResponse, this, args);
  }
  AppRequest.prototype = IncomingMessage.prototype;
  AppResponse.prototype = ServerResponse.prototype;
  const server = http.createServer({
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(2_000, timeouts.headersTimeoutMs),
  });
  let draining = false;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Per connection while draining: what was read by the last sweep that saw it change, and when.
  const seen = new WeakMap<Socket, { bytesRead: number; at: number }>();
  function closeQuietConnections(now: number): void {
    for (const socket of sockets) {
      // Node's server holds the response being written on its socket (`_httpMessage`) until it is done.
      const answering = (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
      const last = seen.get(socket);
      if (answering || !last || last.bytesRead !== socket.bytesRead)
        seen.set(socket, { bytesRead: socket.bytesRead, at: now });
      else if (now - last.at >= IDLE_QUIET_MS) socket.destroy();
    }
  }
  return {
    server,
    serve(app) {
      AppRequest.prototype = app.request;
      AppResponse.prototype = app.response;
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        // The client learns not to send another request on this connection.
        if (draining) res.setHeader('Connection', 'close');
        app(req, res);
      });
    },
    async drain(graceMs) {
      draining = true;
      // Stops listening without http's close(), which would end every idle connection at once (see IDLE_QUIET_MS);
      // the sweep ends each once it has been quiet, answered first if a request came.
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      closeQuietConnections(Date.now());
      const sweep = setInterval(() => closeQuietConnections(Date.now()), IDLE_SWEEP_MS);
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (deadline = setTimeout(resolve, graceMs)))]);
      clearInterval(sweep);
      clearTimeout(deadline);
      server.closeAllConnections();
      await closed;
      // What http's close() does beside closing: stops its timer over the connections.
      server.close(() => undefined);
    },
  };
}
