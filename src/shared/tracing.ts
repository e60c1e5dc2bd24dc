/**
 * What the rest of assetql uses of tracing, when `OTEL_EXPORTER_OTLP_ENDPOINT` turns it on
 * (src/observability/tracing.ts holds the SDK; src/gateway/plugins/use-tracing.ts puts it in the
 * gateway). Off, nothing of OpenTelemetry is loaded.
 */
export interface Tracing {
  /**
   * Hive Gateway's OpenTelemetry plugin, for the runtime's pipeline: a `GatewayPlugin` of
   * `@graphql-hive/plugin-opentelemetry`, typed here as the library's object it is.
   */
  runtimePlugin(): object;
  /** Puts the request's correlation id on the spans the runtime's plugin made for it. */
  markRequest(request: Request, serverContext: object, requestId: string): void;
  /**
   * Runs a subgraph call the gateway makes itself (the direct and joined routes) in a span of its
   * own, and hands `run` the W3C trace context headers to send with it.
   */
  traceSubgraphCall<T>(subgraph: string, run: (headers: Record<string, string>) => Promise<T>): Promise<T>;
  /**
   * A subgraph process's handler, each request in a server span continuing the trace the
   * gateway sent in `traceparent`, so that its SQL spans join the gateway's trace.
   */
  traceRequests(handle: Handler, name: string): Handler;
  /**
   * A GraphQL request the gateway answers at its fast door, which skips the runtime's pipeline
   * and so its spans: `run` in a server span (`POST /api/graphql`, continuing a client's
   * `traceparent`) and an operation span (`graphql.operation <name>`) of our own, which the
   * subgraph call and its SQL join. `run` notes on the operation span how many errors it answers.
   */
  tracePrepared(
    request: Request,
    operation: PreparedSpan,
    run: (span: OperationSpan) => Promise<Response>,
  ): Promise<Response>;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

type Handler = (request: Request, remoteAddress?: string) => Promise<Response>;

/** What the fast door notes on the span of an operation it answers. */
export interface OperationSpan {
  /** The answer has `count` errors (the span is marked failed when there are any). */
  errors(count: number): void;
}

/** What the spans of an operation answered at the gateway's fast door show of it. */
export interface PreparedSpan {
  /** The operation's own name, if it has one. */
  name: string | null;
  /** Subscriptions never take the fast door. */
  type: 'query' | 'mutation';
  /** The document as the client sent it. */
  document: string;
  /** The request URL's path. */
  pathname: string;
  /** The correlation id (`x-request-id`). */
  requestId: string | undefined;
}
