import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';

export interface Listening {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** Serves a fetch handler over node:http. Port 0 picks a free port. */
export async function listen(
  handler: (request: Request, remoteAddress?: string) => Response | Promise<Response>,
  port: number,
  host: string,
): Promise<Listening> {
  const adapter = createServerAdapter<{ req?: { socket?: { remoteAddress?: string } } }>((request, ctx) =>
    handler(request, ctx.req?.socket?.remoteAddress),
  );
  const server = createServer(adapter);
  server.keepAliveTimeout = 65_000;
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
