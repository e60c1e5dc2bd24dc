import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import type { Config } from '../config/index.ts';
import type { Tracing } from '../observability/active.ts';
import { createDocumentCache, useDocumentCache } from '../shared/document-cache.ts';
import type { IdentitySigner, SessionResolution } from '../shared/identity.ts';
import type { Logger } from '../shared/logger.ts';
import { maskError } from '../shared/mask-error.ts';
import { type Metrics, NO_METRICS } from '../shared/metrics.ts';
import { type PreparedContext, PreparedOperations } from '../shared/prepared-operations.ts';
import { useRequestErrorStatus } from '../shared/request-error-status.ts';
import type { Subgraph } from '../shared/subgraph.ts';
import { composeSupergraph, type SubgraphDefinition } from './composition.ts';
import { corsPolicy } from './cors.ts';
import { SCHEDULER_TIMING } from './fairness.ts';
import { composeHttp, type HttpContext, type Plugin } from './http.ts';
import { JoinedOperations } from './joined-operations.ts';
import { LOCAL_TRANSPORT, localTransport } from './local-transport.ts';
import { type CorrelationContext, useCorrelationId } from './plugins/use-correlation-id.ts';
import { useCsrf } from './plugins/use-csrf.ts';
import {
  type DirectExecutionOptions,
  type DirectTarget,
  inProcessSubgraph,
  remoteSubgraph,
  useDirectExecution,
} from './plugins/use-direct-execution.ts';
import { demandControl, useDocumentLimits } from './plugins/use-document-limits.ts';
import { useInputLimits } from './plugins/use-input-limits.ts';
import { useMaskedErrors } from './plugins/use-masked-errors.ts';
import { type MetricsContext, useMetrics } from './plugins/use-metrics.ts';
import { usePreparedOperations } from './plugins/use-prepared-operations.ts';
import { useSecurityHeaders } from './plugins/use-security-headers.ts';
import { type IdentityContext, useSessionIdentity } from './plugins/use-session-identity.ts';
import { useSubgraphErrors } from './plugins/use-subgraph-errors.ts';
import { useTenantFairness } from './plugins/use-tenant-fairness.ts';
import { useRoutes } from './routes/index.ts';
import { forwardedRoute, type InProcessFetch } from './routes/subgraph-routes.ts';

export type { InProcessFetch } from './routes/subgraph-routes.ts';

export const GRAPHQL_PATH = '/api/graphql';
export const EXPLORER_PATH = '/plugins/sr/apolloGraphql';

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
  >;
  /** The subgraphs as they declare themselves (routes, capabilities), with SDL and URL. */
  subgraphs: readonly SubgraphDefinition[];
  /** Subgraphs served in this process, by URL origin: their routes (downloads) are called directly. */
  inProcess?: ReadonlyMap<string, InProcessFetch>;
  /**
   * Subgraphs in this process (the others are reached at their URL): planned operations' requests
   * to them are executed here (local-transport.ts), and with `directExecution` an operation one
   * subgraph answers alone goes to it whole (plugins/use-direct-execution.ts).
   */
  local?: readonly Subgraph[];
  /** Session resolution, as the auth subgraph defines it: the gateway reads no session itself. */
  sessions: SessionResolution;
  signer: IdentitySigner;
  log: Logger;
  /** Answers `/readyz`: true when the database and every subgraph answer. */
  ready: () => Promise<boolean>;
  /** Where requests are counted and timed; off unless given (docs/operations.md#metrics). */
  metrics?: Metrics;
  /**
   * Tracing, when on (src/observability/tracing.ts): its plugins, spans for direct execution, and
   * the spans of prepared operations, which skip the plugins' pipeline.
   */
  tracing?: {
    plugins: readonly Plugin[];
    traceSubgraphCall: NonNullable<DirectExecutionOptions['traceSubgraphCall']>;
    prepared: Pick<Tracing, 'tracePrepared' | 'handedBack'>;
  };
}

export interface Gateway {
  /**
   * The whole HTTP surface as a fetch handler: GraphQL, explorer, health.
   * @param remoteAddress the TCP peer; with trustProxy, the client address is read from
   *   `x-forwarded-for` that many proxies back (shared/client-address.ts).
   */
  handle(request: Request, remoteAddress?: string): Promise<Response>;
  readonly supergraphSdl: string;
  close(): Promise<void>;
}

/** What the plugins learn of a request; the runtime gets it as its server context. */
type RequestContext = HttpContext & CorrelationContext & IdentityContext & MetricsContext & PreparedContext;

/**
 * The gateway: composes the subgraphs at start, and serves them through the Hive Gateway runtime
 * and the plugins below, one concern each (src/gateway/plugins/).
 */
export function createGateway(options: GatewayOptions): Gateway {
  const supergraphSdl = composeSupergraph(options.subgraphs);
  const { config, log } = options;
  const { documentLimits, introspection } = config;
  const inProcess = options.inProcess ?? new Map<string, InProcessFetch>();
  const metrics = options.metrics ?? NO_METRICS;

  const sessionIdentity = useSessionIdentity({
    sessions: options.sessions,
    signer: options.signer,
    trustedHops: config.trustProxy,
    sessionChangers: new Set(options.subgraphs.filter((s) => s.mayChangeSession).map((s) => s.name)),
  });

  // The subgraphs in this process, as direct execution and the planner's local transport call them.
  const localSubgraphs = (options.local ?? []).map(inProcessSubgraph);

  // Where an operation one subgraph answers alone goes whole: in this process or over HTTP.
  const directSubgraphs = config.directExecution
    ? options.subgraphs.map(
        (definition) =>
          localSubgraphs.find((s) => s.name === definition.name) ??
          remoteSubgraph(definition, config.upstreamTimeoutMs),
      )
    : [];

  // Parsed documents kept between requests (bounded by size), and the operations of theirs that
  // one subgraph answers alone or that are joined, answered again without the runtime's pipeline
  // (plugins/use-prepared-operations.ts); with tracing on, in spans of their own.
  const documents = createDocumentCache();
  const prepared =
    config.directExecution && config.preparedOperations
      ? new PreparedOperations<DirectTarget>(documents, { variables: true })
      : undefined;
  // Queries one subgraph answers but for fields others add to its entities, executed as those
  // direct requests joined instead of through the planner (joined-operations.ts).
  const joined =
    config.directExecution && config.joinedOperations
      ? new JoinedOperations(directSubgraphs, {
          relayHeaders: sessionIdentity.relay,
          traceSubgraphCall: options.tracing?.traceSubgraphCall,
          metrics,
          maxCost: documentLimits.maxCost,
          maxFields: documentLimits.maxFields,
        })
      : undefined;
  const cors = corsPolicy(config.corsOrigins);
  const inputLimits = {
    maxStringLength: config.maxStringLength,
    maxListLength: documentLimits.maxListLength,
  };

  // Who runs next when tenants contend for this process (gateway/fairness.ts).
  const fairness = useTenantFairness({ ...config.fairness, ...SCHEDULER_TIMING }, metrics);

  // In this order, for every request (the HTTP hooks, outermost first) and for GraphQL ones (the
  // runtime's hooks): the correlation id before anything can fail or log; tracing and metrics
  // (when on) around all the rest, so that they see refusals too; failures answered
  // inside it and inside the headers every answer gets; the routes that are not GraphQL; then,
  // for GraphQL, the body limit before anything reads the body, CSRF before the session is
  // looked at, the identity, and the tenant's turn (when tenants contend) before the operation
  // runs.
  const plugins = [
    useCorrelationId(),
    ...(options.tracing?.plugins ?? []),
    ...(options.metrics ? [useMetrics(options.metrics, GRAPHQL_PATH)] : []),
    useSecurityHeaders({ noStore: GRAPHQL_PATH }),
    useMaskedErrors({ log }),
    useRequestErrorStatus() as Plugin,
    useRoutes({
      graphqlPath: GRAPHQL_PATH,
      explorerPath: EXPLORER_PATH,
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
    ...useDocumentLimits(documentLimits, introspection, metrics),
    useDocumentCache(documents),
    useInputLimits(inputLimits),
    useCsrf(),
    sessionIdentity,
    ...(config.fairness.busyAbove < 1 ? [fairness] : []),
    // Innermost of the HTTP hooks: it gets the request the document limits read (whose size
    // stands for its variables' size there too), after every check a request gets.
    ...(prepared
      ? [
          usePreparedOperations({
            graphqlPath: GRAPHQL_PATH,
            operations: prepared,
            cors,
            respond: (body, init) => new runtime.fetchAPI.Response(body, init),
            relayHeaders: sessionIdentity.relay,
            documentLimits,
            inputLimits,
            metrics,
            traceSubgraphCall: options.tracing?.traceSubgraphCall,
            trace: options.tracing?.prepared,
          }),
        ]
      : []),
    ...(config.directExecution
      ? [
          useDirectExecution({
            subgraphs: directSubgraphs,
            relayHeaders: sessionIdentity.relay,
            metrics,
            traceSubgraphCall: options.tracing?.traceSubgraphCall,
            prepared,
            joined,
          }),
        ]
      : []),
    useSubgraphErrors({ log }),
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
      ...Object.fromEntries(localSubgraphs.map((s) => [s.name, { kind: LOCAL_TRANSPORT }])),
    },
    // Planned requests to the subgraphs in this process are executed here (gateway/local-transport.ts).
    ...(localSubgraphs.length
      ? {
          transports: (kind: string) =>
            kind === LOCAL_TRANSPORT
              ? localTransport(localSubgraphs, { relayHeaders: sessionIdentity.relay })
              : import('@graphql-mesh/transport-http'),
        }
      : {}),
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
    handle(request, remoteAddress) {
      return http(request, { pathname: new URL(request.url).pathname, remoteAddress } as RequestContext);
    },
    async close() {
      fairness.close();
      await runtime.dispose();
      await Promise.all(directSubgraphs.map((s) => s.close?.()));
    },
  };
}
