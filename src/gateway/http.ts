import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';

/** What the gateway knows of every request before any plugin runs. */
export interface HttpContext {
  /** The request URL's path, parsed once. */
  readonly pathname: string;
  /** The TCP peer, when the request came over a socket. */
  readonly remoteAddress: string | undefined;
}

export type HttpHandler<C> = (request: Request, context: C) => Promise<Response>;

/**
 * One gateway concern (src/gateway/plugins/): hooks of the Hive Gateway runtime for GraphQL
 * requests (`onParams`, `onExecute`, `onFetch`, `onExecutionResult`, …), and two of the gateway's
 * own for every HTTP request, GraphQL or not, around the runtime. `C` is what the plugin reads
 * or writes of the per-request context, which the runtime then gets as its server context.
 *
 * The HTTP hooks run before the runtime, not as its `onRequest`/`onResponse`: those would run
 * after Yoga's own (CORS, its health check) and see only the requests the runtime serves.
 */
export type Plugin<C extends object = object> = GatewayPlugin<
  Record<string, unknown>,
  C & Record<string, unknown>
> & {
  /**
   * Sees every request on its way in, in plugin order, the runtime innermost: answers it, or
   * passes it (or a replacement) to `next` and may act on what comes back.
   */
  onHttpRequest?(
    request: Request,
    context: HttpContext & C,
    next: (request: Request) => Promise<Response>,
  ): Promise<Response>;
  /** Sets headers on every answer, whoever made it. */
  onHttpResponse?(headers: Headers, context: HttpContext & C): void;
};

/** The plugins' HTTP hooks around `last` (the runtime): the gateway's whole HTTP surface. */
export function composeHttp<C extends object>(
  plugins: readonly Plugin<C>[],
  last: HttpHandler<HttpContext & C>,
): HttpHandler<HttpContext & C> {
  const chain = plugins.reduceRight<HttpHandler<HttpContext & C>>(
    (next, plugin) =>
      plugin.onHttpRequest
        ? (request, context) => plugin.onHttpRequest!(request, context, (r) => next(r, context))
        : next,
    last,
  );
  const setHeaders = plugins.filter((p) => p.onHttpResponse);
  return async (request, context) => {
    const response = await chain(request, context);
    // Every answer made in this process is made for this request, so its headers are set where
    // they are, and it goes out as the runtime made it (its body already a string, not a
    // stream to copy). A fetched response's headers are immutable: the first set throws, before
    // anything is changed, and the answer is copied instead.
    try {
      for (const plugin of setHeaders) plugin.onHttpResponse!(response.headers, context);
      return response;
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
    }
    const headers = new Headers(response.headers);
    for (const plugin of setHeaders) plugin.onHttpResponse!(headers, context);
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
