import { serveConsole } from '../console/index.ts';
import { serveExplorer } from '../explorer/index.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from '../plugins/use-correlation-id.ts';
import type { ForwardedRoute } from './subgraph-routes.ts';

export interface RoutesOptions {
  /** The one path the runtime serves; every other is answered here. */
  graphqlPath: string;
  explorerPath: string;
  /** The web console's path (docs/console.md). */
  consolePath: string;
  /** The demo environment: the explorer names the demo user. */
  demo: boolean;
  /** Answers `/readyz`: true when the database and every subgraph answer. */
  ready: () => Promise<boolean>;
  /** Routes the subgraphs declare, forwarded to them (export downloads). */
  forwarded: readonly ForwardedRoute[];
}

/** Whether a request's `Accept` names HTML (a browser navigating), at a quality above 0. */
export function acceptsHtml(accept: string | null): boolean {
  return (accept ?? '').split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return type === 'text/html' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * Every path but GraphQL's, answered before the runtime: `/healthz` and `/readyz`, the web
 * console and the query explorer (`/` leads a browser to the console, any other client to the
 * explorer, as before there was a console), the routes subgraphs declare, and 404 for the rest.
 */
export function useRoutes(options: RoutesOptions): Plugin<CorrelationContext> {
  const { graphqlPath, explorerPath, consolePath } = options;
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
        const location = acceptsHtml(request.headers.get('accept')) ? consolePath : explorerPath;
        return new Response(null, { status: 302, headers: { location, vary: 'accept' } });
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
      if (pathname === consolePath || pathname.startsWith(`${consolePath}/`)) {
        return serveConsole(request, pathname.slice(consolePath.length), { graphqlPath, consolePath });
      }
      return Response.json({ errors: [{ message: 'Not found.' }] }, { status: 404 });
    },
  };
}
