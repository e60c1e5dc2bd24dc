import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLSchema,
  parse,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { createYoga } from 'graphql-yoga';
import type { Clock } from './clock.ts';
import {
  ANONYMOUS,
  IDENTITY_HEADER,
  type Identity,
  IdentityError,
  type IdentitySigner,
  REQUEST_ID_HEADER,
} from './identity.ts';
import type { Logger } from './logger.ts';
import { maskError, toGraphQLError } from './mask-error.ts';
import { type Metrics, NO_METRICS } from './metrics.ts';

/** What every subgraph resolver gets, besides its own dependencies. */
export interface BaseContext {
  identity: Identity;
  /** The gateway's correlation id for this request; mutation results echo it by default. */
  requestId: string;
  log: Logger;
  clock: Clock;
  /** Headers to put on the subgraph's HTTP response (the gateway relays some of them). */
  responseHeaders: Headers;
  /** Where resolvers count what the operator watches (sign-ins, refusals); off by default. */
  metrics: Metrics;
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
  /** Where resolvers count what the operator watches @default NO_METRICS */
  metrics?: Metrics;
  /** Plain HTTP routes beside `/graphql`, by path prefix (e.g. file downloads). */
  routes?: Readonly<Record<string, (request: Request) => Promise<Response>>>;
}

/** An operation the gateway hands to a subgraph in the same process, already validated. */
export interface LocalOperation {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  /** Who is calling, as the gateway resolved it: in one process there is no header to verify. */
  identity: Identity;
  requestId: string;
}

export interface LocalResult {
  result: ExecutionResult;
  /** What the resolvers asked to put on the HTTP response (as the served form would). */
  responseHeaders: Headers;
}

/** A subgraph: its HTTP handler, and for the single-process gateway, direct execution. */
export interface Subgraph {
  readonly name: string;
  readonly typeDefs: string;
  /** The executable subgraph schema (with the federation fields `_service` and `_entities`). */
  readonly schema: GraphQLSchema;
  /** Serves `/graphql` and the subgraph's other routes. */
  fetch(input: string | URL | Request, init?: RequestInit): Response | Promise<Response>;
  /**
   * Executes a document against this subgraph's schema with the same context and error
   * masking as a request over HTTP, minus the HTTP: no JSON in between, no identity token.
   */
  executeLocally(operation: LocalOperation): Promise<LocalResult>;
}

/**
 * Builds a Federation v2 subgraph served by Yoga at `/graphql`. It never listens:
 * the caller chooses the transport (an HTTP server, the gateway's in-process fetch, or
 * `executeLocally` for operations that need no other subgraph).
 *
 * Identity comes only from the gateway's signed header: absent means anonymous, and a
 * forged, expired or malformed one is refused with 401 rather than downgraded, so that a
 * misconfigured gateway fails loudly.
 */
export function createSubgraph<C extends BaseContext>(options: SubgraphOptions<C>): Subgraph {
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
  const mask = (error: unknown) => maskError(error, log, 'unexpected error in resolver');
  // Operations executed in process are compiled once per document (graphql-jit): arguments,
  // field plans and serialisers are worked out once instead of for every field of every row.
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  const compiledFor = (document: DocumentNode, operationName: string | null | undefined) => {
    let byName = compiled.get(document);
    if (!byName) {
      byName = new Map();
      compiled.set(document, byName);
    }
    const key = operationName ?? '';
    let query = byName.get(key);
    if (query === undefined) {
      const made = compileQuery(schema, document, operationName ?? undefined);
      query = isCompiledQuery(made) ? made : null;
      byName.set(key, query);
    }
    return query;
  };
  const metrics = options.metrics ?? NO_METRICS;
  const baseContext = (identity: Identity, requestId: string): BaseContext => ({
    identity,
    requestId,
    log: log.child({ requestId }),
    clock: options.clock,
    responseHeaders: new Headers(),
    metrics,
  });
  const yoga = createYoga<Record<string, never>, C>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: false,
    logging: false,
    // Yoga answers its health check with an empty body; /healthz is answered below instead, with
    // the gateway's JSON, so that every process answers alike. Yoga's own goes where nobody asks.
    healthCheckEndpoint: '/__yoga/healthz',
    maskedErrors: { maskError: mask },
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
      const base = baseContext(identity, requestId);
      pendingHeaders.set(request, base.responseHeaders);
      return options.extendContext(base, request);
    },
    plugins: [
      {
        async onRequest({ request, url, endResponse }) {
          if (url.pathname === '/healthz') {
            endResponse(Response.json({ status: 'ok' }));
            return;
          }
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
  return {
    name: options.name,
    typeDefs: options.typeDefs,
    schema,
    // (url, init) lets the server adapter build its own light request, not an undici Request.
    fetch: (input, init) =>
      input instanceof Request ? yoga.fetch(input) : yoga.fetch(input as URL, init ?? {}),
    async executeLocally(operation) {
      const base = baseContext(operation.identity, operation.requestId);
      let result: ExecutionResult;
      try {
        const contextValue = await options.extendContext(base, LOCAL_REQUEST);
        const query = compiledFor(operation.document, operation.operationName);
        result = query
          ? await query.query(undefined, contextValue, operation.variableValues ?? {})
          : await execute({
              schema,
              document: operation.document,
              operationName: operation.operationName,
              variableValues: operation.variableValues,
              contextValue,
            });
      } catch (e) {
        // What Yoga would answer for a failure outside the resolvers (e.g. building the context).
        result = { errors: [toGraphQLError(e)] };
      }
      if (result.errors?.length) {
        result = { ...result, errors: result.errors.map(mask) };
      }
      return { result, responseHeaders: base.responseHeaders };
    },
  };
}

/** Context factories take the HTTP request; executed in process there is none to read. */
const LOCAL_REQUEST = new Request('http://local.subgraph.assetql.internal/graphql', { method: 'POST' });
