import { useOpenTelemetry } from '@graphql-hive/plugin-opentelemetry';
import {
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { REQUEST_ID_HEADER } from '../shared/identity.ts';
import type { Tracing } from '../shared/tracing.ts';
import { setActiveTracing } from './active.ts';

/** The span attribute carrying the request's correlation id, on the gateway's and subgraphs' spans. */
export const REQUEST_ID_ATTRIBUTE = 'assetql.request_id';

/**
 * Starts OpenTelemetry's Node SDK: OTLP export as the `OTEL_*` variables say (endpoint, protocol
 * `http/protobuf` by default or `http/json`, sampler), the W3C trace context propagator, and the
 * `pg` instrumentation, which must patch `pg` before it is first loaded: src/cli/bin.ts calls
 * this before importing anything else, and only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
 */
export function startTracing(serviceName: string): Tracing {
  // Spans only. Left unset, these make the SDK export metrics and logs of its own over OTLP as
  // well: the `pg` instrumentation's histograms, recorded for every statement, would go to the
  // collector beside the Prometheus metrics (docs/operations.md#metrics), and cost each statement
  // their recording. An operator who wants them sets them (`otlp`).
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? serviceName,
    // SQL spans only inside a request's trace: the pool's own housekeeping makes no traces.
    instrumentations: [new PgInstrumentation({ requireParentSpan: true })],
  });
  sdk.start();
  const tracer = trace.getTracer('assetql');
  // Hive Gateway's plugin, once the gateway has asked for it.
  let otel: ReturnType<typeof useOpenTelemetry> | undefined;

  const tracing: Tracing = {
    runtimePlugin() {
      otel ??= useOpenTelemetry({
        traces: { tracer },
        // Continue a trace the client started, and send it on to the subgraphs.
        inheritContext: true,
        propagateContext: true,
        useContextManager: true,
        // Spans are flushed by shutdown(), after the process has drained.
        flushOnDispose: false,
      });
      return otel;
    },
    markRequest(request, serverContext, requestId) {
      if (!otel) return;
      // On the request's span and on the operation's, where a trace viewer shows them.
      const http = otel.getHttpContext(request);
      if (http) trace.getSpan(http)?.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
      const operation = otel.getActiveContext({ request, context: serverContext as never });
      trace.getSpan(operation)?.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
    },
    traceSubgraphCall(subgraph, run) {
      return tracer.startActiveSpan(
        `subgraph.execute (${subgraph})`,
        { kind: SpanKind.CLIENT, attributes: { 'hive.gateway.upstream.subgraph.name': subgraph } },
        (span) => {
          const headers: Record<string, string> = {};
          propagation.inject(context.active(), headers);
          return ended(span, () => run(headers));
        },
      );
    },
    traceRequests(handle, name) {
      return (request, remoteAddress) => {
        const { pathname } = new URL(request.url);
        // Probes come every few seconds from the orchestrator and the gateway: no traces.
        if (pathname === '/healthz' || pathname === '/readyz') return handle(request, remoteAddress);
        const route = pathname.startsWith('/exports/') ? '/exports/{token}' : pathname;
        const requestId = request.headers.get(REQUEST_ID_HEADER);
        return tracer.startActiveSpan(
          `${request.method} ${route}`,
          {
            kind: SpanKind.SERVER,
            attributes: {
              'http.request.method': request.method,
              'url.path': route,
              'service.role': name,
              ...(requestId ? { [REQUEST_ID_ATTRIBUTE]: requestId } : {}),
            },
          },
          propagation.extract(context.active(), request.headers, HEADERS),
          (span) =>
            ended(span, async () => {
              const response = await handle(request, remoteAddress);
              span.setAttribute('http.response.status_code', response.status);
              if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
              return response;
            }),
        );
      };
    },
    tracePrepared(request, operation, run) {
      const requestId = operation.requestId ? { [REQUEST_ID_ATTRIBUTE]: operation.requestId } : {};
      // The names of Hive Gateway's own spans for the same request, and their main attributes,
      // so that a trace viewer finds and shows both paths alike.
      return tracer.startActiveSpan(
        `${request.method} ${operation.pathname}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.method': request.method,
            'http.url': request.url,
            'http.route': operation.pathname,
            'assetql.prepared_operation': true,
            ...requestId,
          },
        },
        propagation.extract(context.active(), request.headers, HEADERS),
        (http) =>
          ended(http, async () => {
            const response = await tracer.startActiveSpan(
              `graphql.operation${operation.name ? ` ${operation.name}` : ''}`,
              {
                kind: SpanKind.INTERNAL,
                attributes: {
                  'graphql.document': operation.document,
                  'graphql.operation.type': operation.type,
                  ...(operation.name ? { 'graphql.operation.name': operation.name } : {}),
                  ...requestId,
                },
              },
              (span) =>
                ended(span, () =>
                  run({
                    errors(count) {
                      span.setAttribute('hive.graphql.error.count', count);
                      if (count > 0) span.setStatus({ code: SpanStatusCode.ERROR });
                    },
                  }),
                ),
            );
            http.setAttribute('http.status_code', response.status);
            if (!response.ok) http.setStatus({ code: SpanStatusCode.ERROR });
            return response;
          }),
      );
    },
    shutdown: () => sdk.shutdown(),
  };
  setActiveTracing(tracing);
  return tracing;
}

/** Runs `work` and ends the span when it settles, marked as an error if it fails (or throws). */
async function ended<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
    throw e;
  } finally {
    span.end();
  }
}

/** Reads trace context from a request's headers as they are, without copying them. */
const HEADERS: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** The service name of a process from its command line: `assetql-gateway`, `assetql-assets`, … */
export function serviceNameOf(argv: readonly string[]): string {
  const at = argv.indexOf('--subgraph');
  if (at >= 0 && argv[at + 1]) return `assetql-${argv[at + 1]}`;
  if (argv.includes('--gateway')) return 'assetql-gateway';
  return 'assetql';
}
