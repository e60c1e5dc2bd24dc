import type { DocumentLimits } from '../config/index.ts';
import type { OperationPlanner } from '../execution/executors/plans.ts';
import type { ResponseBudget } from '../execution/response-budget.ts';
import type { Clock } from '../shared/clock.ts';
import type { Identity, IdentitySigner, SessionResolution } from '../shared/identity.ts';
import type { Logger } from '../shared/logger.ts';
import type { Metrics } from '../shared/metrics.ts';

/** What every subgraph resolver gets, besides its own dependencies. */
export interface BaseContext {
  identity: Identity;
  /** The gateway's correlation id for this request; mutation results echo it by default. */
  requestId: string;
  log: Logger;
  clock: Clock;
  /** Headers to put on the subgraph's HTTP response (the gateway relays some of them). */
  responseHeaders: Headers;
  /** What this request may still resolve (fields, related assets, errors): execution/response-budget.ts. */
  budget: ResponseBudget;
  /** Where resolvers count what the operator watches (sign-ins, refusals); off by default. */
  metrics: Metrics;
  /**
   * The SSE `Last-Event-ID` a client reconnected with (the `id` of the last event it read), for a
   * subscription that resumes after it; null when none was sent.
   */
  lastEventId: string | null;
  /** Aborted when the caller goes away (its client disconnected): what a stream holds is let go. */
  signal: AbortSignal | undefined;
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
   * Answer our gateway's requests for operations validated here before at the early door, without
   * Yoga's pipeline (`ASSETQL_PREPARED_OPERATIONS`, subgraph-server/early-door.ts) @default true
   */
  preparedOperations?: boolean;
  /**
   * Answer the queries the subgraph plans whole by their plans (`ASSETQL_PLANNED_QUERIES`,
   * execution/executors/plans.ts) @default true
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
   * (execution/executors/plans.ts) @default none
   */
  planner?: OperationPlanner<C>;
  /**
   * Its queries' reads may go to a read replica (storage/replicas.ts); false for what must be
   * fresh (auth's) @default true
   */
  replicaReads?: boolean;
  /** Plain HTTP routes beside `/graphql`, by path prefix (e.g. file downloads). */
  routes?: Readonly<Record<string, (request: Request) => Promise<Response>>>;
}
