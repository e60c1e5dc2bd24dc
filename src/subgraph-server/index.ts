import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { GraphQLError, parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { DEFAULT_DOCUMENT_LIMITS } from '../config/index.ts';
import { DEFAULT_MAX_STRING_LENGTH } from '../config/limits.ts';
import { isRefused } from '../execution/admit.ts';
import { parserCacheStores, useForgetInvalid } from '../execution/document-cache.ts';
import { bodyTooLarge, readBody, SUBGRAPH_MAX_BODY_BYTES, useReadBody } from '../execution/request-body.ts';
import { useFinishedErrors } from '../execution/respond.ts';
import { chargeFieldsResolved, ResponseBudget } from '../execution/response-budget.ts';
import { SubgraphExecution } from '../execution/subgraph.ts';
import { clientAddress } from '../shared/client-address.ts';
import { csrfRejection, isCrossSiteSendable } from '../shared/csrf.ts';
import { clientClosed, upstreamTimedOut } from '../shared/errors.ts';
import {
  ANONYMOUS,
  IDENTITY_HEADER,
  IDENTITY_REFUSED,
  type Identity,
  IdentityError,
  LAST_EVENT_ID_HEADER,
  REQUEST_ID_HEADER,
} from '../shared/identity.ts';
import { NO_METRICS } from '../shared/metrics.ts';
import { SPEC_SCALARS } from '../shared/scalars.ts';
import { changesSession, presentedSession } from '../shared/session-cookies.ts';
import type { LocalResult, Subgraph } from '../shared/subgraph.ts';
import { earlyDoor } from './early-door.ts';
import type { BaseContext, ForwardedSessions, RequestLimits, SubgraphOptions } from './options.ts';

export type {
  BaseContext,
  ForwardedSessions,
  RequestLimits,
  SubgraphOptions,
  SubgraphRuntime,
} from './options.ts';
export { runtimeOf } from './options.ts';

const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  documentLimits: DEFAULT_DOCUMENT_LIMITS,
  introspection: true,
  maxStringLength: DEFAULT_MAX_STRING_LENGTH,
};

/** Where a subgraph serves GraphQL. */
const GRAPHQL_PATH = '/graphql';

/**
 * Builds a Federation v2 subgraph served by Yoga at `/graphql`. It never listens: the caller
 * chooses the transport (an HTTP server, the gateway's in-process fetch, or `executeLocally` for
 * operations that need no other subgraph). Its three doors — our gateway's requests answered
 * early, Yoga's pipeline for everyone else's, and `executeLocally` in this process — admit and
 * answer every operation by the one execution (src/execution/subgraph.ts).
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
    Object.entries(SPEC_SCALARS).filter(([name]) =>
      new RegExp(`^scalar ${name}\\b`, 'm').test(options.typeDefs),
    ),
  );
  const schema = buildSubgraphSchema({
    typeDefs: parse(options.typeDefs),
    resolvers: { ...scalars, ...(options.resolvers as object) } as GraphQLResolverMap<unknown>,
  });
  // Every object a request resolves is counted against its budget (execution/response-budget.ts).
  chargeFieldsResolved(schema);
  const { documentLimits, introspection, maxStringLength } = options.requestLimits ?? DEFAULT_REQUEST_LIMITS;
  const log = options.log.child({ subgraph: options.name });
  const metrics = options.metrics ?? NO_METRICS;
  const execution = new SubgraphExecution<C>({
    name: options.name,
    schema,
    documentLimits,
    introspection,
    maxStringLength,
    ...(options.planner && options.plannedQueries !== false ? { planner: options.planner } : {}),
    replicaReads: options.replicaReads ?? true,
    log,
    metrics,
  });
  const baseContext = (
    identity: Identity,
    requestId: string,
    lastEventId: string | null = null,
    signal?: AbortSignal,
  ): BaseContext => ({
    identity,
    requestId,
    log: log.child({ requestId }),
    clock: options.clock,
    responseHeaders: new Headers(),
    budget: new ResponseBudget(documentLimits),
    metrics,
    lastEventId,
    signal,
  });
  // Each event of a subscription is a response of its own: its own budget, the stream's context.
  const eventContext = (context: C): C => ({ ...context, budget: new ResponseBudget(documentLimits) });
  const pendingHeaders = new WeakMap<Request, Headers>();
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
  const maxBodyBytes = Math.max(documentLimits.maxBodyBytes, SUBGRAPH_MAX_BODY_BYTES);
  // Our gateway's requests for operations validated here before, answered without Yoga's pipeline.
  const early =
    options.preparedOperations === false
      ? undefined
      : earlyDoor<C>({
          execution,
          verify: async (token) => {
            try {
              return await options.signer.verify(token);
            } catch (e) {
              if (e instanceof IdentityError) return undefined;
              throw e;
            }
          },
          context: async (identity, requestId, request) => {
            const base = baseContext(identity, requestId);
            stopWhenGone(request, base);
            return options.extendContext(base, LOCAL_REQUEST);
          },
          responseClass: () => yoga.fetchAPI.Response,
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
    parserAndValidationCache: parserCacheStores(execution.operations.documents),
    maskedErrors: { maskError: (error) => execution.mask(error) },
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
            extensions: { code: 'UNAUTHENTICATED', reason: IDENTITY_REFUSED, http: { status: 401 } },
          });
        }
      }
      const base = baseContext(
        identity,
        requestId,
        request.headers.get(LAST_EVENT_ID_HEADER),
        request.signal,
      );
      pendingHeaders.set(request, base.responseHeaders);
      stopWhenGone(request, base);
      return options.extendContext(base, request);
    },
    plugins: [
      ...execution.plugins(introspection, eventContext),
      useForgetInvalid(execution.operations.documents),
      useReadBody(),
      useFinishedErrors(),
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
          // The body read once (execution/request-body.ts), within a bound a router's requests
          // fit. A request `handle` read already comes without one.
          if (request.body) {
            const read = await readBody(request, maxBodyBytes);
            if (!read) {
              endResponse(bodyTooLarge(maxBodyBytes));
              return;
            }
            setRequest(read.request);
            const answer = await early?.(read.request);
            if (answer) endResponse(answer);
          }
        },
        onResponse({ request, response }) {
          const headers = pendingHeaders.get(request);
          if (!headers) return;
          for (const [key, value] of headers) {
            // Set-Cookie is the one header that may come more than once.
            if (key === 'set-cookie') response.headers.append(key, value);
            else response.headers.set(key, value);
          }
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
      // Our gateway's request for an operation validated here is answered at the early door,
      // before Yoga's own server adapter (its request and context objects, its hooks), which only
      // then serves what the door does not answer, with the body already read. A request from a
      // browser (an `Origin`, for Yoga's CORS headers) or without our identity goes to Yoga as it
      // came.
      if (
        !early ||
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
        answer = await early(read.request);
      } catch (e) {
        // What would have failed in Yoga's hooks is answered as they answer it: masked (and
        // logged in full), not thrown to the server adapter, which would show its stack.
        if (request.signal.aborted) return new Response(null, { status: 499 });
        return Response.json({ errors: [execution.mask(e)] }, { status: 500 });
      }
      return answer ?? yoga.fetch(read.request, { remoteAddress });
    },
    async executeLocally(operation): Promise<LocalResult> {
      const base = baseContext(operation.identity, operation.requestId);
      const record = execution.operations.of(operation.document, operation.operationName);
      const admission = execution.admit(record, {
        variables: operation.variableValues,
        checked: operation.checked ?? false,
      });
      if (isRefused(admission))
        return { result: { errors: [...admission.refused] }, responseHeaders: base.responseHeaders };
      // The caller stops waiting (its timeout, its client gone): resolving stops at the next
      // object, through the response budget.
      const signal = operation.signal;
      const stop = () => base.budget.stop(upstreamTimedOut());
      signal?.addEventListener('abort', stop, { once: true });
      try {
        const contextValue = await options.extendContext(base, LOCAL_REQUEST);
        const result = await execution.answer(record, admission, contextValue, {
          reused: operation.reused ?? true,
        });
        return { result, responseHeaders: base.responseHeaders };
      } catch (e) {
        // What Yoga would answer for a failure outside the resolvers (building the context).
        return { result: { errors: [execution.mask(e)] }, responseHeaders: base.responseHeaders };
      } finally {
        signal?.removeEventListener('abort', stop);
      }
    },
    async subscribeLocally(operation) {
      const base = baseContext(
        operation.identity,
        operation.requestId,
        operation.lastEventId ?? null,
        operation.signal,
      );
      const record = execution.operations.of(operation.document, operation.operationName);
      const admission = execution.admit(record, {
        variables: operation.variableValues,
        checked: operation.checked ?? false,
      });
      if (isRefused(admission)) return { errors: [...admission.refused] };
      try {
        const contextValue = await options.extendContext(base, LOCAL_REQUEST);
        return await execution.subscribe(record, admission, contextValue, () => eventContext(contextValue), {
          shared: operation.shared ?? false,
        });
      } catch (e) {
        return { errors: [execution.mask(e)] };
      }
    },
  };
  return subgraph;
}

/**
 * A request whose caller goes away (a client at the port, or our gateway past its upstream
 * timeout, which aborts its request) stops resolving at its next object, through its budget.
 */
function stopWhenGone(request: Request, base: BaseContext): void {
  request.signal.addEventListener('abort', () => base.budget.stop(clientClosed()), { once: true });
}

/** Context factories take the HTTP request; executed in process there is none to read. */
const LOCAL_REQUEST = new Request('http://local.subgraph.assetql.internal/graphql', { method: 'POST' });
