import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServerAdapter } from '@whatwg-node/server';
import { ownEventStream } from '../execution/event-stream.ts';
import { heldToDeclaredLength } from '../execution/request-body.ts';
import { ownedStream } from '../shared/streams.ts';

export type FetchHandler = (request: Request, remoteAddress?: string) => Response | Promise<Response>;

/** Takes an HTTP upgrade request, or answers false (the socket is then refused). */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

export interface Listening {
  server: Server;
  url: string;
  /** Answers requests with `handler` from now on (before, every request is answered 503: starting). */
  serve(handler: FetchHandler): void;
  /** Hands HTTP upgrades (WebSocket) to `handler`; one it does not take is refused. */
  upgrades(handler: UpgradeHandler): void;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Serves a fetch handler over node:http. Port 0 picks a free port. Without a handler yet, the
 * port is held (a start binds it before anything else, so that a busy port fails the start at
 * once) and every request is answered 503 until {@link Listening.serve} is called.
 */
export async function listen(
  handler: FetchHandler | undefined,
  port: number,
  host: string,
): Promise<Listening> {
  let current = handler ?? starting;
  const adapter = createServerAdapter<{ req?: IncomingMessage; res?: ServerResponse }>(
    async (request, ctx) => {
      if (ctx.req) heldToDeclaredLength(request);
      return ownedBody(await current(request, ctx.req?.socket?.remoteAddress), request, ctx.res);
    },
  );
  const server = createServer(adapter);
  server.keepAliveTimeout = 65_000;
  let upgrade: UpgradeHandler = () => false;
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!upgrade(request, socket, head))
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost =
    host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    serve(next) {
      current = next;
    },
    upgrades(next) {
      upgrade = next;
    },
    close(graceMs = 10_000) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

/**
 * What a server answers while it starts: alive (`/healthz`, so that a liveness probe does not
 * restart a start that takes long: a migration, a data dir's owner still starting), not ready
 * (`/readyz`), and to everything else GraphQL's shape with a time to come back.
 */
function starting(request: Request): Response {
  const { pathname } = new URL(request.url);
  if (pathname === '/healthz') return Response.json({ status: 'starting' });
  if (pathname === '/readyz')
    return Response.json({ status: 'starting' }, { status: 503, headers: { 'retry-after': '1' } });
  return Response.json(
    { errors: [{ message: 'assetql is starting', extensions: { code: 'SERVICE_UNAVAILABLE' } }] },
    { status: 503, headers: { 'retry-after': '1' } },
  );
}

/**
 * A body of unknown length (an export download, a forwarded stream) is streamed through an owner
 * that cuts the connection when the body fails part-way: the client then sees a broken transfer,
 * never a complete-looking file, and the failure goes nowhere else. Without it, the HTTP library
 * is handed an errored stream, which it cancels on the next socket error without handling the
 * rejection, and the process dies. A body with a length is a finished buffer and is sent as is.
 */
function ownedBody(response: Response, request: Request, res: ServerResponse | undefined): Response {
  if (!res || response.headers.has('content-length') || response.body === null) return response;
  // An event stream written by execution/event-stream.ts is a Node stream the server adapter pipes
  // to the socket as it is, and destroys when the socket closes; one that fails cuts the
  // connection here, as the owner below would.
  const readable = ownEventStream(response.body);
  if (readable) {
    readable.once('error', () => res.destroy());
    return response;
  }
  const body = ownedStream({
    source: response.body,
    signal: request.signal,
    onBadEnd: 'close',
    onEnd(end) {
      if (end.kind === 'failed' || end.kind === 'idle') res.destroy();
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
