import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { GraphQLError, parse } from 'graphql';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Clock } from './clock.ts';
import { isDatabaseUnavailable, serviceUnavailable } from './errors.ts';
import {
  ANONYMOUS,
  IDENTITY_HEADER,
  type Identity,
  IdentityError,
  type IdentitySigner,
  REQUEST_ID_HEADER,
} from './identity.ts';
import type { Logger } from './logger.ts';

/** By name, not class: a second copy of `graphql` (CJS beside ESM) must not unmask errors. */
function isGraphQLError(e: unknown): e is GraphQLError {
  return e instanceof Error && e.name === 'GraphQLError';
}

/** What every subgraph resolver gets, besides its own dependencies. */
export interface BaseContext {
  identity: Identity;
  /** The gateway's correlation id for this request; mutation results echo it by default. */
  requestId: string;
  log: Logger;
  clock: Clock;
  /** Headers to put on the subgraph's HTTP response (the gateway relays some of them). */
  responseHeaders: Headers;
}

export interface SubgraphOptions<C> {
  name: string;
  typeDefs: string;
  resolvers: unknown;
  signer: IdentitySigner;
  log: Logger;
  clock: Clock;
  /** Adds the subgraph's own dependencies to the base context. */
  extendContext: (base: BaseContext, request: Request) => C | Promise<C>;
  /** Plain HTTP routes beside `/graphql`, by path prefix (e.g. file downloads). */
  routes?: Readonly<Record<string, (request: Request) => Promise<Response>>>;
}

/**
 * Builds a Federation v2 subgraph served by Yoga at `/graphql`. It never listens:
 * the caller chooses the transport (an HTTP server, or the gateway's in-process fetch).
 *
 * Identity comes only from the gateway's signed header: absent means anonymous, and a
 * forged, expired or malformed one is refused with 401 rather than downgraded, so that a
 * misconfigured gateway fails loudly.
 */
export function createSubgraph<C extends BaseContext>(
  options: SubgraphOptions<C>,
): YogaServerInstance<Record<string, never>, C> {
  // The spec's scalars, with parsing that rejects bad input (a JSONObject must be an object).
  const scalars = Object.fromEntries(
    Object.entries({ DateTime: DateTimeResolver, JSONObject: JSONObjectResolver, JSON: JSONResolver }).filter(
      ([name]) => new RegExp(`^scalar ${name}\\b`, 'm').test(options.typeDefs),
    ),
  );
  const schema = buildSubgraphSchema({
    typeDefs: parse(options.typeDefs),
    resolvers: { ...scalars, ...(options.resolvers as object) } as GraphQLResolverMap<unknown>,
  });
  const log = options.log.child({ subgraph: options.name });
  const pendingHeaders = new WeakMap<Request, Headers>();
  return createYoga<Record<string, never>, C>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: false,
    logging: false,
    healthCheckEndpoint: '/healthz',
    maskedErrors: {
      maskError(error, message) {
        const original = isGraphQLError(error) ? error.originalError : error;
        if (isGraphQLError(error) && (!original || isGraphQLError(original))) return error;
        if (isDatabaseUnavailable(original ?? error)) {
          log.warn({ err: original ?? error }, 'database unavailable');
          return serviceUnavailable();
        }
        log.error({ err: original ?? error }, 'unexpected error in resolver');
        return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      },
    },
    context: async ({ request }) => {
      const requestId = request.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID();
      const token = request.headers.get(IDENTITY_HEADER);
      let identity = ANONYMOUS;
      if (token !== null) {
        try {
          identity = await options.signer.verify(token);
        } catch (e) {
          if (!(e instanceof IdentityError)) throw e;
          log.warn({ requestId, reason: e.message }, 'rejected identity header');
          throw new GraphQLError('The identity of this request could not be verified.', {
            extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
          });
        }
      }
      const responseHeaders = new Headers();
      pendingHeaders.set(request, responseHeaders);
      const base: BaseContext = {
        identity,
        requestId,
        log: log.child({ requestId }),
        clock: options.clock,
        responseHeaders,
      };
      return options.extendContext(base, request);
    },
    plugins: [
      {
        async onRequest({ request, url, endResponse }) {
          for (const [prefix, route] of Object.entries(options.routes ?? {})) {
            if (url.pathname.startsWith(prefix)) {
              endResponse(await route(request));
              return;
            }
          }
        },
        onResponse({ request, response }) {
          pendingHeaders.get(request)?.forEach((value, key) => {
            response.headers.set(key, value);
          });
        },
      },
    ],
  });
}
