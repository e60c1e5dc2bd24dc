/**
 * Apollo Gateway (`@apollo/gateway` on `@apollo/server`) in front of the assetql subgraphs
 * (docs/routers.md):
 *
 *   assetql supergraph --subgraph-url assets=… --subgraph-url auth=… --subgraph-url issues=… > supergraph.graphql
 *   SUPERGRAPH=supergraph.graphql PORT=4000 node apollo-gateway.ts
 *
 * The subgraphs resolve the session themselves from what the gateway forwards, and the auth
 * subgraph answers session changes with ordinary response headers that the gateway hands back.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import {
  ApolloGateway,
  type GraphQLDataSourceProcessOptions,
  RemoteGraphQLDataSource,
} from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { GraphQLError } from 'graphql';

const SESSION_HEADER = 'x-svc-sessionid';

/** Per client request: the incoming request, and the session headers to hand back. */
interface Context {
  req: IncomingMessage;
  sessionHeaders: [name: string, value: string][];
}

/** Forwards the client's session and address to every subgraph; session changes back from auth. */
export class AssetqlDataSource extends RemoteGraphQLDataSource<Context> {
  /** The subgraph's name in the supergraph: only `auth` may change the session. */
  readonly subgraph: string;

  constructor(subgraph: string, url: string) {
    super({ url });
    this.subgraph = subgraph;
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<Context>) {
    const req = (context as Partial<Context>).req;
    if (!req || !request.http) return;
    const session = req.headers[SESSION_HEADER];
    if (typeof session === 'string') request.http.headers.set(SESSION_HEADER, session);
    if (req.headers.cookie) request.http.headers.set('cookie', req.headers.cookie);
    // X-Forwarded-For as received, with the address this gateway got the request from appended:
    // the subgraphs count this gateway in ASSETQL_TRUST_PROXY.
    const received = req.headers['x-forwarded-for'];
    const peer = req.socket.remoteAddress;
    const chain = [typeof received === 'string' ? received : undefined, peer].filter(Boolean).join(', ');
    if (chain) request.http.headers.set('x-forwarded-for', chain);
  }

  override async didReceiveResponse({
    response,
    context,
  }: Parameters<NonNullable<RemoteGraphQLDataSource<Context>['didReceiveResponse']>>[0]) {
    if (this.subgraph === 'auth' && response.http) {
      const headers = (context as Partial<Context>).sessionHeaders;
      const session = response.http.headers.get(SESSION_HEADER);
      const cookie = response.http.headers.get('set-cookie');
      if (session) headers?.push([SESSION_HEADER, session]);
      if (cookie) headers?.push(['set-cookie', cookie]);
    }
    return response;
  }

  /**
   * A subgraph's refusal (HTTP 400 with GraphQL errors: a document over a limit, an unreadable
   * body) reaches the client as the subgraph wrote it, not as an INTERNAL_SERVER_ERROR wrapping
   * a "400: Bad Request".
   */
  override async errorFromResponse(response: Parameters<RemoteGraphQLDataSource['errorFromResponse']>[0]) {
    const error = await super.errorFromResponse(response);
    const body = (error.extensions.response as { body?: unknown } | undefined)?.body;
    const first = (
      body as { errors?: { message?: unknown; extensions?: Record<string, unknown> }[] } | undefined
    )?.errors?.[0];
    if (response.status >= 400 && response.status < 500 && typeof first?.message === 'string')
      return new GraphQLError(first.message, { extensions: first.extensions ?? {} });
    return error;
  }
}

export async function startApolloGateway(options: { supergraphSdl: string; port: number; host?: string }) {
  const server = new ApolloServer<Context>({
    gateway: new ApolloGateway({
      supergraphSdl: options.supergraphSdl,
      buildService: ({ name, url }) => new AssetqlDataSource(name, url!),
    }),
    plugins: [
      {
        async requestDidStart() {
          return {
            async willSendResponse({ response, contextValue }) {
              for (const [name, value] of contextValue.sessionHeaders) response.http.headers.set(name, value);
            },
          };
        },
      },
    ],
  });
  return startStandaloneServer(server, {
    listen: { port: options.port, host: options.host ?? '127.0.0.1' },
    context: async ({ req }) => ({ req, sessionHeaders: [] }),
  });
}

if (import.meta.main) {
  const { url } = await startApolloGateway({
    supergraphSdl: readFileSync(process.env.SUPERGRAPH ?? 'supergraph.graphql', 'utf8'),
    port: Number(process.env.PORT ?? 4000),
    host: process.env.HOST,
  });
  console.log(`apollo gateway at ${url}`);
}
