import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  Kind,
  parse,
  type TypeNode,
  type VariableDefinitionNode,
} from 'graphql';
import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';
import { createYoga } from 'graphql-yoga';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from '../config/index.ts';
import { clientAddress } from './client-address.ts';
import type { Clock } from './clock.ts';
import { CompiledOperations, useCompiledExecution } from './compiled-operations.ts';
import { estimateCost } from './cost.ts';
import { csrfRejection, isCrossSiteSendable } from './csrf.ts';
import { createDocumentCache, parserCacheStores, useForgetInvalid } from './document-cache.ts';
import { costError, documentShapeLimits, useCostLimit, useNoIntrospection } from './document-limits.ts';
import {
  ANONYMOUS,
  IDENTITY_HEADER,
  type Identity,
  IdentityError,
  type IdentitySigner,
  REQUEST_ID_HEADER,
  type SessionResolution,
} from './identity.ts';
import { checkInputs, DEFAULT_MAX_STRING_LENGTH, useInputLimits } from './input-limits.ts';
import type { Logger } from './logger.ts';
import { maskError, toGraphQLError } from './mask-error.ts';
import { type Metrics, NO_METRICS } from './metrics.ts';
import { type OperationPlanner, OperationPlans, usePlannedOperations } from './operation-plans.ts';
import { bodyTooLarge, readBody, SUBGRAPH_MAX_BODY_BYTES, useReadBody } from './request-body.ts';
import { useRequestErrorStatus } from './request-error-status.ts';
import { chargeFieldsResolved, ResponseBudget, stoppedResult } from './response-budget.ts';
import { changesSession, presentedSession } from './session-cookies.ts';
import { type SubgraphPrepared, subgraphPrepared } from './subgraph-prepared.ts';

/** What every subgraph resolver gets, besides its own dependencies. */
export interface BaseContext {
  identity: Identity;
  /** The gateway's correlation id for this request; mutation results echo it by default. */
  requestId: string;
  log: Logger;
  clock: Clock;
  /** Headers to put on the subgraph's HTTP response (the gateway relays some of them). */
  responseHeaders: Headers;
  /** What this request may still resolve (fields, related assets): shared/response-budget.ts. */
  budget: ResponseBudget;
  /** Where resolvers count what the operator watches (sign-ins, refusals); off by default. */
  metrics: Metrics;
}

/**
 * How a subgraph learns who calls when our gateway has not signed it: the client's session as
 * another Federation router forwards it (`x-svc-sessionid` or the `svc_sessionid` cookie), and
 * the client's address from `X-Forwarded-For` (docs/routers.md).
 */
export interface ForwardedSessions {
  /** Session resolution by auth's rules: the same module our gateway is handed. */
  sessions: SessionResolution;
  /**
   * `ASSETQL_TRUST_PROXY`: how many proxies, the router among them, stand before the subgraph.
   * 0 means the client's address is unknown here (the TCP peer is the router, never the client):
   * per-address limits then key on the account.
   */
  trustedHops: number;
}

/**
 * The limits a subgraph applies to every request, whoever sends it (the gateway, another router,
 * a client at its port): the gateway's document limits and cost model, and its introspection rule.
 */
export interface RequestLimits {
  documentLimits: DocumentLimits;
  /** Answer `__schema`/`__type`; `_service { sdl }` and `_entities` work either way. */
  introspection: boolean;
  /** The longest string argument or input field (`ASSETQL_MAX_STRING_LENGTH`, docs/security.md). */
  maxStringLength: number;
}

const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  documentLimits: DEFAULT_DOCUMENT_LIMITS,
  introspection: true,
  maxStringLength: DEFAULT_MAX_STRING_LENGTH,
};

/**
 * What every subgraph is given by whoever assembles the service (src/server/app.ts), beside its
 * own dependencies: each subgraph's deps extend it and hand it on with {@link runtimeOf}.
 */
export interface SubgraphRuntime {
  signer: IdentitySigner;
  log: Logger;
  clock: Clock;
  /**
   * Resolve forwarded sessions when a request carries no signed identity @default none: such
   * requests are anonymous (docs/routers.md).
   */
  forwarded?: ForwardedSessions;
  /** The document limits, cost model, introspection rule and string limit of every request
   * @default DEFAULT_DOCUMENT_LIMITS, introspection on, DEFAULT_MAX_STRING_LENGTH */
  requestLimits?: RequestLimits;
  /** Where resolvers count what the operator watches @default NO_METRICS */
  metrics?: Metrics;
  /**
   * Answer our gateway's requests for operations executed here before without Yoga's pipeline
   * (`ASSETQL_PREPARED_OPERATIONS`, shared/subgraph-prepared.ts) @default true
   */
  preparedOperations?: boolean;
  /**
   * Answer the queries the subgraph plans whole by their plans (`ASSETQL_PLANNED_QUERIES`,
   * shared/operation-plans.ts) @default true
   */
  plannedQueries?: boolean;
}

/** The runtime part of a subgraph's deps, and nothing else of them. */
export function runtimeOf(deps: SubgraphRuntime): SubgraphRuntime {
  const { signer, log, clock, forwarded, requestLimits, metrics, preparedOperations, plannedQueries } = deps;
  return { signer, log, clock, forwarded, requestLimits, metrics, preparedOperations, plannedQueries };
}

export interface SubgraphOptions<C> extends SubgraphRuntime {
  name: string;
  typeDefs: string;
  resolvers: unknown;
  /** Adds the subgraph's own dependencies to the base context. */
  extendContext: (base: BaseContext, request: Request) => C | Promise<C>;
  /**
   * Queries answered by a plan of the subgraph's own instead of field by field, where it has one
   * (shared/operation-plans.ts) @default none
   */
  planner?: OperationPlanner<C>;
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
  /**
   * Whether the document is one the caller hands again and again (a client's, kept by the
   * gateway's document cache), so compiling it once pays: a query planner's subgraph documents
   * are made anew for every request, and compiling each would cost more than running it.
   * @default true
   */
  reused?: boolean;
  /**
   * Whether the caller, in this process, has coerced the variables against the supergraph and
   * refused the request had they not coerced (the gateway's direct and prepared paths). Where
   * every variable is of a built-in scalar type (in lists or not null or not), that coercion is
   * this schema's too, and is not made again; a custom scalar's or an enum's may differ (the
   * supergraph knows no scalar's parsing, and an enum's values are every subgraph's).
   * @default false
   */
  variablesCoerced?: boolean;
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
  /** Serves a request that came over the network from `remoteAddress` (the TCP peer). */
  handle(request: Request, remoteAddress?: string): Response | Promise<Response>;
  /**
   * Executes a document against this subgraph's schema with the same context and error
   * masking as a request over HTTP, minus the HTTP: no JSON in between, no identity token.
   */
  executeLocally(operation: LocalOperation): Promise<LocalResult>;
}

/** Where a subgraph serves GraphQL. */
const GRAPHQL_PATH = '/graphql';

/**
 * Builds a Federation v2 subgraph served by Yoga at `/graphql`. It never listens:
 * the caller chooses the transport (an HTTP server, the gateway's in-process fetch, or
 * `executeLocally` for operations that need no other subgraph).
 *
 * Identity comes from our gateway's signed header, the fast path between our own processes: a
 * forged, expired or malformed one is refused with 401 rather than downgraded, so that a
 * misconfigured gateway fails loudly. Without one, behind another Federation router, the
 * subgraph resolves the session the router forwarded (`forwarded`); with nothing, the caller is
 * anonymous.
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
  // Every object a request resolves is counted against its budget (shared/response-budget.ts).
  chargeFieldsResolved(schema);
  const { documentLimits, introspection, maxStringLength } = options.requestLimits ?? DEFAULT_REQUEST_LIMITS;
  const inputLimits = { maxStringLength, maxListLength: documentLimits.maxListLength };
  const log = options.log.child({ subgraph: options.name });
  const pendingHeaders = new WeakMap<Request, Headers>();
  const mask = (error: unknown) => maskError(error, log, 'unexpected error in resolver');
  // Operations compiled once per document with graphql-jit, for both ways in (compiled-operations.ts).
  const compiled = new CompiledOperations(schema);
  // Queries the subgraph answers by a plan of its own (shared/operation-plans.ts).
  const plans =
    options.planner && options.plannedQueries !== false
      ? new OperationPlans<C>(schema, options.planner, options.name, options.metrics ?? NO_METRICS)
      : undefined;
  const metrics = options.metrics ?? NO_METRICS;
  const baseContext = (identity: Identity, requestId: string): BaseContext => ({
    identity,
    requestId,
    log: log.child({ requestId }),
    clock: options.clock,
    responseHeaders: new Headers(),
    budget: new ResponseBudget(documentLimits),
    metrics,
  });
  // The session a request presented when this subgraph resolved it itself: forgotten from the
  // cache once the answer changes it (signed out, rotated), as our gateway does.
  const presented = new WeakMap<Request, string>();
  const forwardedIdentity = async (
    request: Request,
    remoteAddress: string | undefined,
    forwarded: ForwardedSessions,
  ): Promise<Identity> => {
    const sessionId = presentedSession(request.headers);
    if (sessionId) presented.set(request, sessionId);
    const identity = await forwarded.sessions.resolve(sessionId);
    const clientIp =
      forwarded.trustedHops > 0 ? clientAddress(request.headers, remoteAddress, forwarded.trustedHops) : null;
    return { ...identity, clientIp };
  };
  const documents = createDocumentCache();
  const maxBodyBytes = Math.max(documentLimits.maxBodyBytes, SUBGRAPH_MAX_BODY_BYTES);
  // Our gateway's requests for operations executed before, answered without Yoga's pipeline.
  const prepared: SubgraphPrepared | undefined =
    options.preparedOperations === false
      ? undefined
      : subgraphPrepared({
          documents,
          verify: async (token) => {
            try {
              return await options.signer.verify(token);
            } catch (e) {
              if (e instanceof IdentityError) return undefined;
              throw e;
            }
          },
          execute: (operation) => subgraph.executeLocally(operation),
          respond: (body, init): Response => new yoga.fetchAPI.Response(body, init),
          metrics,
        });
  const yoga = createYoga<{ remoteAddress?: string }, C>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: false,
    logging: false,
    // Yoga answers its health check with an empty body; /healthz is answered below instead, with
    // the gateway's JSON, so that every process answers alike. Yoga's own goes where nobody asks.
    healthCheckEndpoint: '/__yoga/healthz',
    // Parsed documents bounded by what they hold, not only by their number (document-cache.ts).
    parserAndValidationCache: parserCacheStores(documents),
    maskedErrors: { maskError: mask },
    context: async ({ request, remoteAddress }) => {
      const requestId = request.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID();
      const token = request.headers.get(IDENTITY_HEADER);
      let identity = ANONYMOUS;
      if (token === null && options.forwarded) {
        identity = await forwardedIdentity(request, remoteAddress, options.forwarded);
      } else if (token !== null) {
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
      ...documentShapeLimits(documentLimits, introspection),
      useForgetInvalid(documents),
      useReadBody(),
      ...(introspection ? [] : [useNoIntrospection()]),
      useCostLimit(documentLimits.maxCost),
      {
        // A request its budget stopped answers with that one error, not the partial data.
        onExecutionResult({ result, setResult, context }) {
          const stopped = stoppedResult((context as Partial<BaseContext>).budget);
          if (stopped && !(Symbol.asyncIterator in Object(result))) setResult(stopped);
        },
      },
      useInputLimits(inputLimits),
      useCompiledExecution(compiled),
      // After the compiled execution, which a request its plan declines falls back to.
      ...(plans ? [usePlannedOperations(plans)] : []),
      // After the compiled execution: a result the prepared path handed over takes its place.
      ...(prepared ? [prepared.plugin] : []),
      useRequestErrorStatus(),
      {
        async onRequest({ request, url, endResponse, setRequest }) {
          if (url.pathname === '/healthz') {
            endResponse(Response.json({ status: 'ok' }));
            return;
          }
          // Plain routes (export downloads) read no session: they answer for themselves.
          for (const [prefix, route] of Object.entries(options.routes ?? {})) {
            if (url.pathname.startsWith(prefix)) {
              endResponse(await route(request));
              return;
            }
          }
          // Behind another router the subgraph reads the session cookie itself, so it refuses
          // what a cross-site form could post, as our gateway does (docs/auth.md, "CSRF").
          if (options.forwarded && !request.headers.has(IDENTITY_HEADER) && isCrossSiteSendable(request)) {
            endResponse(csrfRejection());
            return;
          }
          // The body read once (shared/request-body.ts), within a bound a router's requests fit.
          // A request `handle` read already comes without one.
          if (request.body) {
            const read = await readBody(request, maxBodyBytes);
            if (!read) {
              endResponse(bodyTooLarge(maxBodyBytes));
              return;
            }
            setRequest(read.request);
            const answer = await prepared?.answer(read.request);
            if (answer) {
              endResponse(answer);
              return;
            }
          }
        },
        onResponse({ request, response }) {
          const headers = pendingHeaders.get(request);
          if (!headers) return;
          headers.forEach((value, key) => {
            // Set-Cookie is the one header that may come more than once.
            if (key === 'set-cookie') response.headers.append(key, value);
            else response.headers.set(key, value);
          });
          const sessionId = presented.get(request);
          if (sessionId && options.forwarded && changesSession(headers)) {
            options.forwarded.sessions.forget(sessionId);
          }
        },
      },
    ],
  });
  const subgraph: Subgraph = {
    name: options.name,
    typeDefs: options.typeDefs,
    schema,
    // (url, init) lets the server adapter build its own light request, not an undici Request.
    fetch: (input, init) =>
      input instanceof Request ? yoga.fetch(input) : yoga.fetch(input as URL, init ?? {}),
    handle: async (request, remoteAddress) => {
      // Our gateway's request for an operation prepared here is answered before Yoga's own server
      // adapter (its request and context objects, its hooks), which only then serves what the
      // prepared path does not answer, with the body already read. A request from a browser (an
      // `Origin`, for Yoga's CORS headers) or without our identity goes to Yoga as it came.
      if (
        !prepared ||
        request.method !== 'POST' ||
        !request.headers.has(IDENTITY_HEADER) ||
        request.headers.has('origin') ||
        new URL(request.url).pathname !== GRAPHQL_PATH
      )
        return yoga.fetch(request, { remoteAddress });
      let read: Awaited<ReturnType<typeof readBody>>;
      let answer: Response | undefined;
      try {
        read = await readBody(request, maxBodyBytes);
        if (!read) return bodyTooLarge(maxBodyBytes);
        answer = await prepared.answer(read.request);
      } catch (e) {
        // What would have failed in Yoga's hooks is answered as they answer it: masked (and
        // logged in full), not thrown to the server adapter, which would show its stack.
        if (request.signal.aborted) return new Response(null, { status: 499 });
        return Response.json({ errors: [mask(e)] }, { status: 500 });
      }
      return answer ?? yoga.fetch(read.request, { remoteAddress });
    },
    async executeLocally(operation) {
      const base = baseContext(operation.identity, operation.requestId);
      // Variables that do not coerce are answered before anything reads them as values (the
      // input limits, the price, a plan), as Yoga's executor answers them (@graphql-tools/executor:
      // the coercion errors, HTTP 400) and as the gateway does before handing an operation over.
      const definitions = getOperationAST(operation.document, operation.operationName)?.variableDefinitions;
      if (definitions?.length && !(operation.variablesCoerced && definitions.every(ofBuiltInScalar))) {
        const coerced = getVariableValues(schema, definitions, operation.variableValues ?? {}, {
          maxErrors: 50,
        });
        if (coerced.errors) {
          const errors = coerced.errors.map(
            (e) =>
              new GraphQLError(e.message, {
                nodes: e.nodes,
                originalError: e.originalError,
                extensions: { ...e.extensions, http: { status: 400 } },
              }),
          );
          return { result: { errors }, responseHeaders: base.responseHeaders };
        }
      }
      const refused = checkInputs(operation.document, operation.variableValues, inputLimits);
      if (refused) return { result: { errors: [refused] }, responseHeaders: base.responseHeaders };
      let result: ExecutionResult;
      // Priced here too: the gateway's demand control sees only the operations it plans.
      const cost = estimateCost(
        schema,
        operation.document,
        operation.operationName,
        operation.variableValues,
      );
      if (cost > documentLimits.maxCost) {
        return {
          result: { errors: [costError(cost, documentLimits.maxCost)] },
          responseHeaders: base.responseHeaders,
        };
      }
      try {
        const contextValue = await options.extendContext(base, LOCAL_REQUEST);
        const plan = plans?.forRequest(operation.document, operation.operationName);
        const planned = plan ? await plan(contextValue, operation.variableValues) : undefined;
        const query =
          planned || operation.reused === false
            ? null
            : compiled.forRequest(operation.document, operation.operationName, operation.variableValues);
        result =
          planned ??
          (query
            ? await query.run(undefined, contextValue, operation.variableValues ?? {})
            : await execute({
                schema,
                document: operation.document,
                operationName: operation.operationName,
                variableValues: operation.variableValues,
                contextValue,
              }));
      } catch (e) {
        // What Yoga would answer for a failure outside the resolvers (e.g. building the context).
        result = { errors: [toGraphQLError(e)] };
      }
      result = stoppedResult(base.budget) ?? result;
      if (result.errors?.length) {
        result = { ...result, errors: result.errors.map(mask) };
      }
      return { result, responseHeaders: base.responseHeaders };
    },
  };
  return subgraph;
}

/** Context factories take the HTTP request; executed in process there is none to read. */
const LOCAL_REQUEST = new Request('http://local.subgraph.assetql.internal/graphql', { method: 'POST' });

const BUILT_IN_SCALARS = new Set(['ID', 'String', 'Int', 'Float', 'Boolean']);

/** Whether a variable is of a built-in scalar type, in lists or not null or neither. */
function ofBuiltInScalar(definition: VariableDefinitionNode): boolean {
  let type: TypeNode = definition.type;
  while (type.kind !== Kind.NAMED_TYPE) type = type.type;
  return BUILT_IN_SCALARS.has(type.name.value);
}
