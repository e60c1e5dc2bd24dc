import type { Metrics } from '../../shared/metrics.ts';
import type { Plugin } from '../http.ts';
import { type ExecutionContext, executionOf } from './use-execution.ts';

/**
 * Records every GraphQL request at the gateway by operation name and outcome, with its time from
 * the first byte read to the answer (metrics.operation): what was executed, as the doors into
 * execution learnt it (plugins/use-execution.ts), or `refused` when nothing was; and every
 * subgraph request the runtime plans (metrics.subgraphRequest; the direct and joined routes
 * record their own). A batch counts as one request, under its last operation's name. Installed
 * only when metrics are on.
 */
export function useMetrics(metrics: Metrics, graphqlPath: string): Plugin<ExecutionContext> {
  return {
    async onHttpRequest(request, context, next) {
      if (context.pathname !== graphqlPath) return next(request);
      const start = performance.now();
      try {
        return await next(request);
      } finally {
        const seconds = (performance.now() - start) / 1000;
        const seen = executionOf(context);
        if (!seen?.executed) metrics.operation(seen?.requested, 'refused', seconds);
        else metrics.operation(seen.executed.name, seen.executed.errors ? 'error' : 'ok', seconds);
      }
    },
    onSubgraphExecute({ subgraphName }) {
      const start = performance.now();
      return ({ result }) => {
        const failed = 'errors' in result && (result.errors?.length ?? 0) > 0;
        metrics.subgraphRequest(subgraphName, failed ? 'error' : 'ok', (performance.now() - start) / 1000);
      };
    },
  };
}
