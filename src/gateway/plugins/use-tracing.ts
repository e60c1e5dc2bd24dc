import type { Tracing } from '../../shared/tracing.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';

/**
 * Traces the runtime's pipeline when tracing is on (src/observability/tracing.ts): Hive Gateway's
 * OpenTelemetry plugin, and the correlation id on the spans it makes for each request, where a
 * trace viewer shows them. Requests answered at the fast door make spans of their own
 * (plugins/use-execution.ts).
 */
export function useTracing(tracing: Tracing): Plugin[] {
  const correlation: Plugin<CorrelationContext> = {
    onParams({ request, context }) {
      const { requestId } = context as Partial<CorrelationContext>;
      if (requestId) tracing.markRequest(request, context, requestId);
    },
  };
  return [tracing.runtimePlugin() as Plugin, correlation as Plugin];
}
