import { REQUEST_ID_HEADER } from '../../shared/identity.ts';
import type { Logger } from '../../shared/logger.ts';
import { ownedStream } from '../../shared/streams.ts';
import type { SubgraphRoute } from '../../shared/subgraph-descriptor.ts';

/** A subgraph reachable without a network hop: its server's fetch handler. */
export type InProcessFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Response | Promise<Response>;

/** A route a subgraph declares, bound to where that subgraph is reached. */
export interface ForwardedRoute extends SubgraphRoute {
  forward(request: Request, pathname: string, requestId: string): Promise<Response>;
}

export interface ForwardLimits {
  /** How long a streamed answer waits for its reader to ask for more @default no limit */
  idleMs?: number;
}

/**
 * A subgraph's route (export downloads) served through the gateway: requests go to the subgraph
 * as they are, with nothing but the correlation id (the link's signature is the credential, so
 * no session is resolved), and the answer streams back unbuffered.
 *
 * The client's abort is the subgraph request's abort, so a download the client leaves stops at
 * the subgraph too. The answer's body is owned here (src/shared/streams.ts): a client that goes
 * away, or a subgraph that breaks off, ends it once, and neither leaves an error unheard.
 */
export function forwardedRoute(
  route: SubgraphRoute,
  subgraph: { name: string; url: string },
  inProcess: ReadonlyMap<string, InProcessFetch>,
  log: Logger,
  limits: ForwardLimits = {},
): ForwardedRoute {
  return {
    ...route,
    async forward(request, pathname, requestId) {
      const target = new URL(`${route.path}${pathname.slice(route.public.length)}`, subgraph.url);
      const forwarded = new Request(target, {
        method: request.method,
        headers: { [REQUEST_ID_HEADER]: requestId },
        signal: request.signal,
      });
      let answer: Response;
      try {
        const local = inProcess.get(target.origin);
        answer = local ? await local(forwarded) : await fetch(forwarded);
      } catch (err) {
        // The client left before the subgraph answered: nobody to answer, and no fault of ours.
        if (request.signal.aborted) return new Response(null, { status: 499 });
        log.warn({ err, requestId, route: route.public }, `could not reach the ${subgraph.name} subgraph`);
        return Response.json(
          {
            type: 'about:blank',
            title: 'Unavailable',
            status: 503,
            detail: `${route.title} are unavailable; try again shortly.`,
          },
          { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '5' } },
        );
      }
      if (answer.body === null) return answer;
      const headers = new Headers(answer.headers);
      // Re-streamed here: the length is whatever arrives, and a body without one is streamed by
      // the server through its own owner, which cuts the connection should this one fail.
      headers.delete('content-length');
      const body = ownedStream({
        source: answer.body,
        signal: request.signal,
        idleMs: limits.idleMs,
        log,
        onEnd(end) {
          if (end.kind === 'failed')
            log.warn(
              { err: end.error, requestId, route: route.public },
              `the ${subgraph.name} subgraph broke off a streamed answer`,
            );
        },
      });
      return new Response(body, { status: answer.status, statusText: answer.statusText, headers });
    },
  };
}
