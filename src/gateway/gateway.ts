import { createGatewayRuntime, type GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { GraphQLError, getOperationAST, getVariableValues } from 'graphql';
import type { Config } from '../config/index.ts';
import { isDatabaseUnavailable, serviceUnavailable } from '../shared/errors.ts';
import {
  correlationIdFrom,
  IDENTITY_HEADER,
  type Identity,
  type IdentitySigner,
  REQUEST_ID_HEADER,
} from '../shared/identity.ts';
import type { Logger } from '../shared/logger.ts';
import { SESSION_CHANGE_HEADER, SESSION_HEADER } from '../shared/session-policy.ts';
import type { Subgraph } from '../shared/subgraph.ts';
import { composeSupergraph, type SubgraphDefinition } from './composition.ts';
import { clearedSessionCookie, sessionCookie, sessionFromCookie } from './cookies.ts';
import { DirectPlanner, type DirectSubgraph, inProcessSubgraph, remoteSubgraph } from './direct-execution.ts';
import { serveExplorer } from './explorer/index.ts';
import { bodyTooLarge, documentLimitPlugins, withBodyAtMost, withErrorBody } from './limits.ts';
import type { SessionResolver } from './sessions.ts';

export const GRAPHQL_PATH = '/api/graphql';
export const EXPLORER_PATH = '/plugins/sr/apolloGraphql';
/** Signed export links; the assets subgraph checks the signature and streams the file. */
export const EXPORTS_PATH = '/api/exports/';

/** A subgraph reachable without a network hop: its Yoga instance's fetch handler. */
export type InProcessFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Response | Promise<Response>;

export interface GatewayOptions {
  config: Pick<
    Config,
    'baseUrl' | 'env' | 'trustProxy' | 'corsOrigins' | 'documentLimits' | 'introspection' | 'directExecution'
  >;
  subgraphs: readonly SubgraphDefinition[];
  /** Subgraphs served in this process, by URL origin; the gateway calls them directly. */
  inProcess?: ReadonlyMap<string, InProcessFetch>;
  /**
   * Subgraphs in this process (the others are reached at their URL). With `directExecution`,
   * an operation one subgraph answers alone goes to it whole (src/gateway/direct-execution.ts).
   */
  local?: readonly Subgraph[];
  sessions: SessionResolver;
  signer: IdentitySigner;
  log: Logger;
  /** Answers `/readyz`: true when the database and every subgraph answer. */
  ready: () => Promise<boolean>;
}

/** What the gateway learns about a request before GraphQL runs; Yoga merges it into the context. */
interface RequestState {
  requestId: string;
  sessionId: string | undefined;
  identity: Identity;
  identityToken: string | undefined;
  /** Headers an operation executed in process asks to set on the response (session changes). */
  responseHeaders: Headers;
}

function isJson(contentType: string | null) {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/graphql-response+json';
}

export interface Gateway {
  /**
   * The whole HTTP surface as a fetch handler: GraphQL, explorer, health.
   * @param remoteAddress the TCP peer; `x-forwarded-for` is used instead only with trustProxy.
   */
  handle(request: Request, remoteAddress?: string): Promise<Response>;
  readonly supergraphSdl: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * The gateway: composes the subgraphs at start, resolves the caller's session once per
 * request, and forwards a signed identity and the correlation id to every subgraph.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const supergraphSdl = composeSupergraph(options.subgraphs);
  const { log, sessions, signer, inProcess } = options;
  const { documentLimits, introspection } = options.config;
  const direct: DirectSubgraph[] = options.config.directExecution
    ? options.subgraphs.map((definition) => {
        const local = options.local?.find((s) => s.name === definition.name);
        return local ? inProcessSubgraph(local) : remoteSubgraph(definition);
      })
    : [];
  const planner = direct.length ? new DirectPlanner(direct) : undefined;

  /**
   * The auth subgraph's session change (`set <id> <max-age>` or `clear`) as the response headers
   * a client sees: the cookie, and the session header for header clients. Only the auth
   * subgraph may start or end sessions.
   */
  function sessionChangeHeaders(
    subgraphName: string,
    change: string | null,
    context: Partial<RequestState>,
  ): Record<string, string> | undefined {
    if (subgraphName !== 'auth' || !change) return;
    if (context.sessionId) sessions.forget(context.sessionId);
    const [verb, id, maxAge] = change.split(' ');
    if (verb === 'set' && id) {
      return {
        'set-cookie': sessionCookie(id, Number(maxAge ?? 0), options.config.baseUrl),
        [SESSION_HEADER]: id,
      };
    }
    if (verb === 'clear') return { 'set-cookie': clearedSessionCookie(options.config.baseUrl) };
  }

  const plugins = (): GatewayPlugin[] => [
    ...documentLimitPlugins(documentLimits, introspection),
    {
      // An operation one subgraph answers alone goes to it whole, unplanned (it was validated
      // against the supergraph already): executed in process, or sent as it is over HTTP.
      onExecute({ args, setExecuteFn }) {
        const subgraph = planner?.plan(args.document, args.operationName);
        if (!subgraph) return;
        setExecuteFn(async (a) => {
          const context = a.contextValue as RequestState;
          // Variables are coerced here, as the planned form does: a bad one is a request error
          // located in the client's document, whichever process would have run the operation.
          const operation = getOperationAST(a.document, a.operationName);
          const coerced = getVariableValues(
            a.schema,
            operation?.variableDefinitions ?? [],
            (a.variableValues ?? {}) as Record<string, unknown>,
          );
          if (coerced.errors) return { errors: coerced.errors };
          const { result, responseHeaders } = await subgraph.execute({
            document: a.document,
            operationName: a.operationName,
            variableValues: a.variableValues,
            identity: context.identity,
            identityToken: context.identityToken,
            requestId: context.requestId,
          });
          const change = sessionChangeHeaders(
            subgraph.name,
            responseHeaders.get(SESSION_CHANGE_HEADER),
            context,
          );
          for (const [k, v] of Object.entries(change ?? {})) context.responseHeaders.append(k, v);
          if (!result.errors?.length) return result;
          // Field errors as the planned form shows them: tagged with the subgraph's name, without
          // locations (there they would point into the subgraph's query, so the router drops them).
          const errors = result.errors.map((e) =>
            e.path
              ? new GraphQLError(e.message, {
                  path: e.path,
                  originalError: e.originalError,
                  extensions: { ...e.extensions, serviceName: subgraph.name },
                })
              : e,
          );
          return { ...result, errors };
        });
      },
    },
    {
      // Single-process form: call in-process subgraphs' handlers instead of the network.
      onFetch({ url, setFetchFn }) {
        const local = inProcess?.get(new URL(url).origin);
        // The subgraph's server adapter builds its own light request from (url, init): an
        // undici Request here cost more than the call (signal listeners, header copies).
        if (local) setFetchFn((input, init) => Promise.resolve(local(input as string, init as RequestInit)));
      },
    },
    {
      // Unexpected errors are masked; add the correlation id so a user can quote it. A subgraph
      // that cannot be reached is named, without its address or the subrequest.
      onExecutionResult({ result, setResult, context }) {
        const requestId = (context as Partial<RequestState>).requestId;
        if (!requestId || !result || !('errors' in result) || !result.errors?.length) return;
        // No `data` at all (variables that do not coerce): a request error, which GraphQL over
        // HTTP answers with 400 for application/graphql-response+json (200 for legacy JSON).
        const requestError = !('data' in result) || result.data === undefined;
        const errors = result.errors.map((e) => {
          if (e.extensions?.code === 'SUBREQUEST_HTTP_ERROR') {
            const subgraph = String(e.extensions.serviceName ?? 'a');
            log.warn({ requestId, subgraph, reason: e.message }, 'subgraph unreachable');
            return {
              message: `The ${subgraph} service is unavailable; try again shortly.`,
              ...(e.path ? { path: e.path } : {}),
              extensions: { code: 'SERVICE_UNAVAILABLE', subgraph, requestId },
            };
          }
          if (e.extensions?.code === 'INTERNAL_SERVER_ERROR') {
            return { ...e.toJSON(), extensions: { ...e.extensions, requestId } };
          }
          if (requestError && !e.extensions?.http) {
            return new GraphQLError(e.message, {
              nodes: e.nodes,
              source: e.source,
              positions: e.positions,
              path: e.path,
              originalError: e.originalError,
              extensions: { ...e.extensions, http: { status: 400, spec: true } },
            });
          }
          return e;
        });
        setResult({ ...result, errors } as typeof result);
      },
    },
  ];

  const runtime = createGatewayRuntime<RequestState>({
    supergraph: supergraphSdl,
    graphqlEndpoint: GRAPHQL_PATH,
    // Same-origin only unless origins are configured: with credentials (the session cookie),
    // a permissive CORS policy would let any site act as the signed-in user.
    cors: options.config.corsOrigins.length
      ? { origin: [...options.config.corsOrigins], credentials: true }
      : false,
    landingPage: false,
    graphiql: false,
    // Off in production unless configured (ASSETQL_INTROSPECTION); the explorer needs it.
    ...(introspection ? {} : { disableIntrospection: {} }),
    batching: documentLimits.maxBatch > 0 ? { limit: documentLimits.maxBatch } : false,
    // Deduplicating identical in-flight subgraph queries never pays here (each request's
    // signed identity makes its subgraph requests unique) but deep-copies every result.
    transportEntries: { '*.http': { options: { deduplicateInflightRequests: false } } },
    logging: process.env.ASSETQL_DEBUG_GATEWAY ? 'debug' : false,
    // Errors that are not GraphQL errors (a subgraph unreachable, a bug here) are logged in
    // full and shown as a generic message; the correlation id is added below.
    maskedErrors: {
      maskError(error, message) {
        const original = (error as { originalError?: unknown }).originalError ?? error;
        if (
          error instanceof Error &&
          error.name === 'GraphQLError' &&
          !(original instanceof Error && original.name !== 'GraphQLError')
        ) {
          return error;
        }
        log.error({ err: original }, 'unexpected error at the gateway');
        return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      },
    },
    // We make the correlation id (propagateHeaders forwards it); Hive's own would replace it
    // towards the subgraphs with a second UUID whenever the client sent none.
    requestId: false,
    healthCheckEndpoint: '/__runtime/healthz',
    readinessCheckEndpoint: '/__runtime/readyz',
    plugins,
    propagateHeaders: {
      fromClientToSubgraphs({ context }) {
        const headers: Record<string, string> = {};
        if (context.requestId) headers[REQUEST_ID_HEADER] = context.requestId;
        if (context.identityToken) headers[IDENTITY_HEADER] = context.identityToken;
        return headers;
      },
      fromSubgraphsToClient({ response, subgraphName, context }) {
        return sessionChangeHeaders(subgraphName, response.headers.get(SESSION_CHANGE_HEADER), context);
      },
    },
  });

  function clientAddress(request: Request, remoteAddress: string | undefined): string | null {
    if (options.config.trustProxy) {
      const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
      if (forwarded) return forwarded;
    }
    return remoteAddress?.replace(/^::ffff:/, '') ?? null;
  }

  async function graphql(
    received: Request,
    requestId: string,
    remoteAddress: string | undefined,
  ): Promise<Response> {
    const request = await withBodyAtMost(received, documentLimits.maxBodyBytes);
    if (!request) return bodyTooLarge(documentLimits.maxBodyBytes);
    const headerSession = request.headers.get(SESSION_HEADER);
    const cookieSession = headerSession ? undefined : sessionFromCookie(request.headers.get('cookie'));
    // CSRF: a browser sends the cookie on its own, so a cookie-authenticated POST must be one a
    // cross-site form cannot make (JSON needs a CORS preflight); anything else is refused.
    if (cookieSession && request.method === 'POST' && !isJson(request.headers.get('content-type'))) {
      return Response.json(
        {
          errors: [
            {
              message: 'A request authenticated by cookie must have Content-Type: application/json.',
              extensions: { code: 'CSRF_REJECTED' },
            },
          ],
        },
        { status: 403 },
      );
    }
    const sessionId = headerSession ?? cookieSession;
    const resolved = await sessions.resolve(sessionId);
    const identity = { ...resolved, clientIp: clientAddress(request, remoteAddress) };
    const identityToken = await signer.sign(identity);
    const state: RequestState = {
      requestId,
      sessionId: sessionId ?? undefined,
      identity,
      identityToken,
      responseHeaders: new Headers(),
    };
    const response = withErrorBody(await runtime.fetch(request, state));
    state.responseHeaders.forEach((value, key) => {
      response.headers.append(key, value);
    });
    return response;
  }

  /**
   * Export downloads go to the assets subgraph as they are: the link's signature is the
   * credential, so no session is resolved, and the body streams through unbuffered.
   */
  const assets = options.subgraphs.find((s) => s.name === 'assets');
  async function forwardExport(request: Request, pathname: string, requestId: string): Promise<Response> {
    if (!assets) return Response.json({ errors: [{ message: 'Not found.' }] }, { status: 404 });
    const target = new URL(`/exports/${pathname.slice(EXPORTS_PATH.length)}`, assets.url);
    const forwarded = new Request(target, {
      method: request.method,
      headers: { [REQUEST_ID_HEADER]: requestId },
      signal: request.signal,
    });
    const local = inProcess?.get(target.origin);
    if (local) return local(forwarded);
    try {
      return await fetch(forwarded);
    } catch (err) {
      log.warn({ err, requestId }, 'export request could not reach the assets subgraph');
      return Response.json(
        {
          type: 'about:blank',
          title: 'Unavailable',
          status: 503,
          detail: 'Exports are unavailable; try again shortly.',
        },
        { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '5' } },
      );
    }
  }

  async function route(
    request: Request,
    requestId: string,
    remoteAddress: string | undefined,
  ): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === GRAPHQL_PATH) return graphql(request, requestId, remoteAddress);
    if (pathname === '/healthz') return Response.json({ status: 'ok' });
    if (pathname === '/readyz') {
      const ok = await options.ready().catch(() => false);
      return Response.json({ status: ok ? 'ready' : 'unavailable' }, { status: ok ? 200 : 503 });
    }
    if (pathname === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
      return new Response(null, { status: 302, headers: { location: EXPLORER_PATH } });
    }
    if (pathname.startsWith(EXPORTS_PATH)) return forwardExport(request, pathname, requestId);
    if (pathname === EXPLORER_PATH || pathname.startsWith(`${EXPLORER_PATH}/`)) {
      return serveExplorer(request, pathname.slice(EXPLORER_PATH.length), GRAPHQL_PATH);
    }
    return Response.json({ errors: [{ message: 'Not found.' }] }, { status: 404 });
  }

  return {
    supergraphSdl,
    async handle(request, remoteAddress) {
      const requestId = correlationIdFrom(request.headers.get(REQUEST_ID_HEADER));
      let response: Response;
      try {
        response = await route(request, requestId, remoteAddress);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          // The session could not be read: say so, and when to retry, rather than guess.
          log.warn({ err, requestId }, 'database unavailable');
          response = Response.json(
            {
              errors: [
                { ...serviceUnavailable().toJSON(), extensions: { code: 'SERVICE_UNAVAILABLE', requestId } },
              ],
            },
            { status: 503, headers: { 'retry-after': '5' } },
          );
        } else if (request.signal.aborted) {
          // The client went away (closed its connection) before its answer: nobody to tell.
          log.debug({ requestId }, 'client closed the connection before the answer');
          response = new Response(null, { status: 499 });
        } else {
          log.error({ err, requestId }, 'request failed');
          response = Response.json(
            {
              errors: [
                { message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } },
              ],
            },
            { status: 500 },
          );
        }
      }
      const headers = new Headers(response.headers);
      headers.set(REQUEST_ID_HEADER, requestId);
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!headers.has(k)) headers.set(k, v);
      // Answers carry tenant data and session changes: no shared or browser cache keeps them.
      if (new URL(request.url).pathname === GRAPHQL_PATH) headers.set('cache-control', 'no-store');
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    },
    async close() {
      await runtime.dispose();
    },
  };
}
