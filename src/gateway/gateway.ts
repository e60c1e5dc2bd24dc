import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import type { Config } from '../config/index.ts';
import { useDocumentCache } from '../execution/document-cache.ts';
import { GatewayExecution } from '../execution/gateway.ts';
import { useFinishedErrors } from '../execution/respond.ts';
import { remoteSubgraph } from '../execution/transports/http.ts';
import { inProcessSubgraph } from '../execution/transports/in-process.ts';
import { LOCAL_TRANSPORT, localTransport } from '../execution/transports/runtime.ts';
import { DEFAULT_APQ, type TrustedDocument, TrustedDocuments } from '../execution/trusted-documents.ts';
import { type IdentitySigner, LAST_EVENT_ID_HEADER, type SessionResolution } from '../shared/identity.ts';
import type { Logger } from '../shared/logger.ts';
import { maskError } from '../shared/mask-error.ts';
import { type Metrics, NO_METRICS } from '../shared/metrics.ts';
import type { Subgraph } from '../shared/subgraph.ts';
import type { Tracing } from '../shared/tracing.ts';
import type { SubgraphDefinition } from './composition.ts';
import { consoleDocuments } from './console/documents.ts';
import { corsPolicy } from './cors.ts';
import { explorerDocuments } from './explorer/examples.ts';
import { SCHEDULER_TIMING } from './fairness.ts';
import { composeHttp, type HttpContext, type Plugin } from './http.ts';
import { type CorrelationContext, useCorrelationId } from './plugins/use-correlation-id.ts';
import { useCsrf } from './plugins/use-csrf.ts';
import { demandControl, useDocumentLimits } from './plugins/use-document-limits.ts';
import { useEventStream } from './plugins/use-event-stream.ts';
import { type ExecutionContext, useExecution } from './plugins/use-execution.ts';
import { useMaskedErrors } from './plugins/use-masked-errors.ts';
import { useMetrics } from './plugins/use-metrics.ts';
import { useSecurityHeaders } from './plugins/use-security-headers.ts';
import { type IdentityContext, useSessionIdentity } from './plugins/use-session-identity.ts';
import { useSubgraphErrors } from './plugins/use-subgraph-errors.ts';
import { useTenantFairness } from './plugins/use-tenant-fairness.ts';
import { useTracing } from './plugins/use-tracing.ts';
import { useTrustedDocuments } from './plugins/use-trusted-documents.ts';
import { useRoutes } from './routes/index.ts';
import { forwardedRoute, type InProcessFetch } from './routes/subgraph-routes.ts';

export type { InProcessFetch } from './routes/subgraph-routes.ts';

export const GRAPHQL_PATH = '/api/graphql';
export const EXPLORER_PATH = '/plugins/sr/apolloGraphql';
/** The web console (docs/console.md); `/` leads a browser there. */
export const CONSOLE_PATH = '/console';

export interface GatewayOptions {
  config: Pick<
    Config,
    | 'baseUrl'
    | 'env'
    | 'trustProxy'
    | 'corsOrigins'
    | 'documentLimits'
    | 'exportLimits'
    | 'fairness'
    | 'maxStringLength'
    | 'introspection'
    | 'directExecution'
    | 'preparedOperations'
    | 'joinedOperations'
    | 'upstreamTimeoutMs'
    | 'trustedDocuments'
  >;
  /** The composed supergraph of `subgraphs` (composition.ts). */
  supergraphSdl: string;
  /** The subgraphs as they declare themselves (routes, capabilities), with SDL and URL. */
  subgraphs: readonly SubgraphDefinition[];
  /** Subgraphs served in this process, by URL origin: their routes (downloads) are called directly. */
  inProcess?: ReadonlyMap<string, InProcessFetch>;
  /**
   * Subgraphs in this process (the others are reached at their URL): every route's requests to
   * them are executed here (src/execution/transports/), not sent over HTTP.
   */
  local?: readonly Subgraph[];
  /** Session resolution, as the auth subgraph defines it: the gateway reads no session itself. */
  sessions: SessionResolution;
  signer: IdentitySigner;
  log: Logger;
  /**
   * The deployment's trusted documents (`assetql documents apply`), prepared at start; with the
   * explorer's own, where `trustedDocuments` is `require`, the only texts run but for explorers.
   */
  trustedDocuments?: readonly TrustedDocument[];
  /** Answers `/readyz`: true when the database and every subgraph answer. */
  ready: () => Promise<boolean>;
  /** Where requests are counted and timed; off unless given (docs/operations.md#metrics). */
  metrics?: Metrics;
  /**
   * Tracing, when on (src/observability/tracing.ts): the runtime's spans, the subgraph requests the
   * gateway sends itself, and the requests its fast door answers, which skip the runtime's pipeline.
   */
  tracing?: Tracing;
}

export interface Gateway {
  /**
   * The whole HTTP surface as a fetch handler: GraphQL, explorer, health.
   * @param remoteAddress the TCP peer; with trustProxy, the client address is read from
   *   `x-forwarded-for` that many proxies back (shared/client-address.ts).
   */
  handle(request: Request, remoteAddress?: string): Promise<Response>;
  readonly supergraphSdl: string;
  /** Prepares the trusted documents ahead of the first request (plugins/use-trusted-documents.ts). */
  prepare(): Promise<void>;
  close(): Promise<void>;
}

/** What the plugins learn of a request; the runtime gets it as its server context. */
type RequestContext = HttpContext & CorrelationContext & IdentityContext & ExecutionContext;

/**
 * The gateway: composes the subgraphs at start, and serves them through the Hive Gateway runtime
 * and the plugins below, one concern each (src/gateway/plugins/).
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { config, log, supergraphSdl } = options;
  const { documentLimits, introspection } = config;
  const inProcess = options.inProcess ?? new Map<string, InProcessFetch>();
  const metrics = options.metrics ?? NO_METRICS;

  const sessionIdentity = useSessionIdentity({
    sessions: options.sessions,
    signer: options.signer,
    trustedHops: config.trustProxy,
    sessionChangers: new Set(options.subgraphs.filter((s) => s.mayChangeSession).map((s) => s.name)),
  });

  // Every subgraph, in this process or reached over HTTP: where the direct and joined routes go
  // (src/execution/transports/).
  const local = options.local ?? [];
  const transports = options.subgraphs.map((definition) => {
    const here = local.find((s) => s.name === definition.name);
    return here ? inProcessSubgraph(here) : remoteSubgraph(definition);
  });
  // How the gateway answers an operation, whichever door it comes in by (src/execution/).
  const execution = new GatewayExecution<RequestContext>({
    subgraphs: transports,
    direct: config.directExecution,
    joined: config.joinedOperations,
    documentLimits,
    maxStringLength: config.maxStringLength,
    introspection,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    relayHeaders: sessionIdentity.relay,
    ...(options.tracing
      ? { traceSubgraphCall: options.tracing.traceSubgraphCall.bind(options.tracing) }
      : {}),
    metrics,
    log,
  });
  const cors = corsPolicy(config.corsOrigins);
  // Which text a request runs, by whichever door (docs/security.md#trusted-documents).
  const trusted = useTrustedDocuments({
    documents: new TrustedDocuments({
      mode: config.trustedDocuments,
      documents: options.trustedDocuments ?? [],
      shipped: [...explorerDocuments(), ...consoleDocuments()],
      apq: { ...DEFAULT_APQ, maxDocuments: documentLimits.maxPersistedQueries },
    }),
    cache: execution.operations.documents,
    graphqlPath: GRAPHQL_PATH,
    log,
    metrics,
  });

  // Who runs next when tenants contend for this process (gateway/fairness.ts).
  const fairness = useTenantFairness({ ...config.fairness, ...SCHEDULER_TIMING }, metrics);

  // In this order, for every request (the HTTP hooks, outermost first) and for GraphQL ones (the
  // runtime's hooks): the correlation id before anything can fail or log; tracing and metrics
  // (when on) around all the rest, so that they see refusals too; failures answered
  // inside it and inside the headers every answer gets; the routes that are not GraphQL; then,
  // for GraphQL, the body limit before anything reads the body, CSRF before the session is
  // looked at, the identity, and the tenant's turn (when tenants contend) before the operation
  // runs; which text the request runs (trusted documents, asked by both doors); innermost, the
  // doors into execution (plugins/use-execution.ts).
  const plugins = [
    useCorrelationId(),
    ...(options.tracing ? useTracing(options.tracing) : []),
    ...(options.metrics ? [useMetrics(options.metrics, GRAPHQL_PATH)] : []),
    useSecurityHeaders({ noStore: GRAPHQL_PATH }),
    useMaskedErrors({ log }),
    useFinishedErrors() as Plugin,
    useRoutes({
      graphqlPath: GRAPHQL_PATH,
      explorerPath: EXPLORER_PATH,
      consolePath: CONSOLE_PATH,
      demo: config.env === 'demo',
      ready: options.ready,
      forwarded: options.subgraphs.flatMap((subgraph) =>
        (subgraph.routes ?? []).map((route) =>
          // Forwarded routes stream downloads: a client that stops reading is cut off here too,
          // after the same idle limit, or a download the subgraph has finished into the network's
          // buffers would hold this connection for as long as the client likes.
          forwardedRoute(route, subgraph, inProcess, log, { idleMs: config.exportLimits.idleSeconds * 1000 }),
        ),
      ),
    }),
    ...useDocumentLimits(documentLimits, introspection, execution.operations, metrics),
    useDocumentCache(execution.operations.documents),
    useCsrf(),
    sessionIdentity,
    ...(config.fairness.busyAbove < 1 ? [fairness] : []),
    trusted,
    useExecution({
      graphqlPath: GRAPHQL_PATH,
      execution,
      resolve: trusted.resolve,
      validated: trusted.validated,
      // The fast door: an operation the pipeline has validated, answered without it.
      fastDoor: config.directExecution && config.preparedOperations,
      cors,
      // The server adapter's own class, which writes a string body as it is.
      responseClass: () => runtime.fetchAPI.Response,
      metrics,
      ...(options.tracing ? { tracePrepared: options.tracing.tracePrepared.bind(options.tracing) } : {}),
    }),
    useSubgraphErrors(),
    useEventStream(),
  ] as Plugin<RequestContext>[];

  const runtime = createGatewayRuntime<RequestContext>({
    supergraph: supergraphSdl,
    graphqlEndpoint: GRAPHQL_PATH,
    // Same-origin only unless origins are configured: with credentials (the session cookie),
    // a permissive CORS policy would let any site act as the signed-in user (gateway/cors.ts).
    cors,
    landingPage: false,
    graphiql: false,
    // Off in production unless configured (ASSETQL_INTROSPECTION); the explorer needs it.
    ...(introspection ? {} : { disableIntrospection: {} }),
    batching: documentLimits.maxBatch > 0 ? { limit: documentLimits.maxBatch } : false,
    // The cost of every subgraph request the plan makes, from the subgraphs' @cost/@listSize and
    // the request's variables (plugins/use-document-limits.ts gives its refusal our shape).
    demandControl: demandControl(documentLimits),
    // A subgraph that does not answer in time fails its part of the plan (GATEWAY_TIMEOUT)
    // instead of holding the client's request, and its resources here, for as long as it likes.
    upstreamTimeout: config.upstreamTimeoutMs,
    // Deduplicating identical in-flight subgraph queries never pays here (each request's
    // signed identity makes its subgraph requests unique) but deep-copies every result.
    transportEntries: {
      '*.http': { options: { deduplicateInflightRequests: false } },
      ...Object.fromEntries(local.map((s) => [s.name, { kind: LOCAL_TRANSPORT }])),
    },
    // Planned requests to the subgraphs in this process are executed here (execution/transports/runtime.ts).
    ...(local.length
      ? {
          transports: (kind: string) =>
            kind === LOCAL_TRANSPORT
              ? localTransport(local, { relayHeaders: sessionIdentity.relay })
              : import('@graphql-mesh/transport-http'),
        }
      : {}),
    // A subscription resumed by SSE's `Last-Event-ID` resumes at the subgraph that serves it
    // (in this process the transport hands it over itself).
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => {
        const id = request.headers.get(LAST_EVENT_ID_HEADER);
        return id ? { [LAST_EVENT_ID_HEADER]: id } : {};
      },
    },
    logging: process.env.ASSETQL_DEBUG_GATEWAY ? 'debug' : false,
    // Errors that are not GraphQL errors (a bug here) are logged in full and shown as a generic
    // message (src/shared/mask-error.ts); useMaskedErrors adds the correlation id.
    maskedErrors: { maskError: (error) => maskError(error, log, 'unexpected error at the gateway') },
    // Uncoded subgraph errors keep Hive's DOWNSTREAM_SERVICE_ERROR; useSubgraphErrors names
    // the subgraph, in one place for planned and directly executed operations.
    subgraphErrors: { subgraphNameProp: false },
    // useCorrelationId makes the correlation id and forwards it.
    requestId: false,
    healthCheckEndpoint: '/__runtime/healthz',
    readinessCheckEndpoint: '/__runtime/readyz',
    plugins: () => plugins,
  });

  const http = composeHttp<RequestContext>(plugins, async (request, context) =>
    runtime.fetch(request, context),
  );

  return {
    supergraphSdl,
    prepare: () =>
      trusted.prepare(async (request, context) => runtime.fetch(request, context as RequestContext)),
    handle(request, remoteAddress) {
      return http(request, { pathname: new URL(request.url).pathname, remoteAddress } as RequestContext);
    },
    async close() {
      fairness.close();
      await runtime.dispose();
      await Promise.all(transports.map((s) => s.close?.()));
    },
  };
}
