import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { Identity } from '../../shared/identity.ts';
import type { LocalResult } from '../../shared/subgraph.ts';
import type { Operation } from '../operation.ts';

/** Who a request is for, as the gateway resolved it once (src/gateway/plugins/use-session-identity.ts). */
export interface Caller {
  identity: Identity;
  /** The same identity signed, for a subgraph reached over HTTP (signed when first asked for). */
  signedIdentity(): string;
  /** The request's correlation id. */
  requestId: string;
}

/** One operation sent whole to a subgraph by the gateway's direct or joined route. */
export interface SubgraphRequest {
  /** The gateway's record of it: the client's operation (direct), or one of a joined plan's. */
  operation: Operation;
  variables: Readonly<Record<string, unknown>>;
  caller: Caller;
  /** W3C trace context to send a subgraph reached over HTTP, when tracing is on. */
  traceHeaders?: Record<string, string>;
  /**
   * Aborted when the request must stop (its upstream timeout, its client gone): a subgraph in this
   * process stops resolving, one over HTTP is no longer waited for.
   */
  signal?: AbortSignal;
  /** A subscription's SSE `Last-Event-ID`, which it resumes after. */
  lastEventId?: string | null;
}

/**
 * A subgraph the gateway sends whole operations to: in this process (in-process.ts) or over
 * HTTP (http.ts). The gateway has admitted each operation (its variables checked and coerced to
 * the supergraph's types); the subgraph admits it again to its own (and prices it).
 */
export interface SubgraphTransport {
  readonly name: string;
  readonly typeDefs: string;
  /** The subgraph's schema as the gateway knows it (from its SDL): what route decisions are made against. */
  readonly schema: GraphQLSchema;
  execute(request: SubgraphRequest): Promise<LocalResult>;
  /**
   * Runs a subscription whole and streams its events (each a result of its own), or answers its
   * refusal; a subgraph in this process only (over HTTP the runtime carries subscriptions).
   */
  subscribe?(request: SubgraphRequest): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
  /** Lets go of what it holds (a remote subgraph's connections). */
  close?(): Promise<void>;
}
