/**
 * Hive Gateway (`@graphql-hive/gateway`) in front of the assetql subgraphs (docs/routers.md):
 *
 *   assetql supergraph --subgraph-url assets=… --subgraph-url auth=… --subgraph-url issues=… > supergraph.graphql
 *   hive-gateway supergraph supergraph.graphql --config-path gateway.config.ts
 *
 * The subgraphs resolve the session themselves from what the gateway forwards, and the auth
 * subgraph answers session changes with ordinary response headers that the gateway hands back.
 * Subscriptions (`changes`) reach the events subgraph over SSE, as the gateway carries them by
 * default.
 */
import type { IncomingMessage } from 'node:http';
import { defineConfig } from '@graphql-hive/gateway';

/** The session travels in this header or in the `svc_sessionid` cookie. */
const SESSION_HEADER = 'x-svc-sessionid';

/**
 * X-Forwarded-For as received, with the address this gateway got the request from appended, as
 * every proxy does: the subgraphs count this gateway in ASSETQL_TRUST_PROXY.
 */
function forwardedFor(request: Request, peer: string | undefined): string | undefined {
  const received = request.headers.get('x-forwarded-for');
  if (!peer) return received ?? undefined;
  return received ? `${received}, ${peer}` : peer;
}

export const gatewayConfig = defineConfig<{ req?: IncomingMessage }>({
  propagateHeaders: {
    // To every subgraph: the client's session (header or cookie) and its address; and the
    // Last-Event-ID a reconnecting SSE client resumes the change subscription with.
    fromClientToSubgraphs({ request, context }) {
      return {
        [SESSION_HEADER]: request.headers.get(SESSION_HEADER),
        cookie: request.headers.get('cookie'),
        'x-forwarded-for': forwardedFor(request, context.req?.socket?.remoteAddress),
        'last-event-id': request.headers.get('last-event-id'),
      };
    },
    // Back to the client, from the auth subgraph only: a new session ID and the session cookie.
    fromSubgraphsToClient({ response, subgraphName }) {
      if (subgraphName !== 'auth') return;
      return {
        [SESSION_HEADER]: response.headers.get(SESSION_HEADER),
        'set-cookie': response.headers.getSetCookie(),
      };
    },
  },
});
