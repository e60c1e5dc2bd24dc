import type { Plugin } from '../gateway/http.ts';

/**
 * The process's tracing, when `OTEL_EXPORTER_OTLP_ENDPOINT` turned it on at start (src/cli/bin.ts).
 * This module imports nothing, so that with tracing off no OpenTelemetry code is loaded.
 */
let active: Tracing | undefined;

export function activeTracing(): Tracing | undefined {
  return active;
}

export function setActiveTracing(tracing: Tracing): void {
  active = tracing;
}

/** Whether the environment asks for traces: the OTLP endpoint, for all signals or for traces. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

type Handler = (request: Request, remoteAddress?: string) => Promise<Response>;

/** What the spans of a prepared operation show of it. */
export interface PreparedSpan {
  /** The operation's own name, if it has one. */
  name: string | null;
  /** Subscriptions are never prepared. */
  type: 'query' | 'mutation';
  /** The document as the client sent it. */
  document: string;
  /** The request URL's path. */
  pathname: string;
  /** The correlation id (`x-request-id`). */
  requestId: string | undefined;
}

/** What the rest of assetql uses of tracing; the SDK stays in src/observability/tracing.ts. */
export interface Tracing {
  /** Gateway plugins: Hive Gateway's OpenTelemetry plugin, and the correlation id on its spans. */
  gatewayPlugins(): Plugin[];
  /**
   * Runs a subgraph call the gateway makes itself (direct execution) in a span of its own, and
   * hands `run` the W3C trace context headers to send with it.
   */
  traceSubgraphCall<T>(subgraph: string, run: (headers: Record<string, string>) => Promise<T>): Promise<T>;
  /**
   * A subgraph process's handler, each request in a server span continuing the trace the
   * gateway sent in `traceparent`, so that its SQL spans join the gateway's trace.
   */
  traceRequests(handle: Handler, name: string): Handler;
  /**
   * A GraphQL request the gateway answers as a prepared operation, which skips the runtime's
   * pipeline and so its spans: `run` in a server span (`POST /api/graphql`, continuing a client's
   * `traceparent`) and an operation span (`graphql.operation <name>`) of our own, which the
   * subgraph call and its SQL join.
   */
  tracePrepared(request: Request, operation: PreparedSpan, run: () => Promise<Response>): Promise<Response>;
  /**
   * Inside `tracePrepared`: the prepared path executed the operation and hands its result, with
   * `errors` errors, to the pipeline to shape. The operation span notes them, and the pipeline
   * makes no spans of its own for the request (it would trace one request twice).
   */
  handedBack(request: Request, errors: number): void;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}
