import { serveExplorer } from '../explorer/index.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from '../plugins/use-correlation-id.ts';
import type { ForwardedRoute } from './subgraph-routes.ts';

export interface RoutesOptions {
  /** The one path the runtime serves; every other is answered here. */
  graphqlPath: string;
  explorerPath: string;
  /** The demo environment: the explorer names the demo user. */
  demo: boolean;
  /** Answers `/readyz`: true when the database and every subgraph answer. */
  ready: () => Promise<boolean>;
  /** Routes the subgraphs declare, forwarded to them (export downloads). */
  forwarded: readonly ForwardedRoute[];
}

/**
 * Every path but GraphQL's, answered before the runtime: `/healthz` and `/readyz`, the query
 * explorer (and `/`, which leads to it), the routes subgraphs declare, and 404 for the rest.
 */
export function useRoutes(options: RoutesOptions): Plugin<CorrelationContext> {
  const { graphqlPath, explorerPath } = options;
  return {
    async onHttpRequest(request, context, next) {
      const { pathname } = context;
      if (pathname === graphqlPath) return next(request);
      if (pathname === '/healthz') return Response.json({ status: 'ok' });
      if (pathname === '/readyz') {
        const ok = await options.ready().catch(() => false);
        return Response.json({ status: ok ? 'ready' : 'unavailable' }, { status: ok ? 200 : 503 });
      }
      if (pathname === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
        return new Response(null, { status: 302, headers: { location: explorerPath } });
      }
      for (const route of options.forwarded) {
        if (pathname.startsWith(route.public)) return route.forward(request, pathname, context.requestId);
      }
      if (pathname === explorerPath || pathname.startsWith(`${explorerPath}/`)) {
        return serveExplorer(request, pathname.slice(explorerPath.length), {
          graphqlPath,
          demo: options.demo,
        });
      }
      return Response.json({ errors: [{ message: 'Not found.' }] }, { status: 404 });
    },
  };
}
