import type { Tracing } from '../shared/tracing.ts';

/**
 * The process's tracing, when `OTEL_EXPORTER_OTLP_ENDPOINT` turned it on at start (src/cli/bin.ts).
 * This module imports only the contract (shared/tracing.ts), so that with tracing off no
 * OpenTelemetry code is loaded.
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
