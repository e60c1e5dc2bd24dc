import { getOperationAST } from 'graphql';
import type { Metrics } from '../../shared/metrics.ts';
import type { Plugin } from '../http.ts';

/** What one GraphQL request showed the metrics on its way through the runtime. */
interface Seen {
  /** The operation name the client asked for, before anything was parsed. */
  requested?: string | null;
  /** The name of the operation executed (the last, in a batch); unset when none was. */
  executed?: string | null;
  errors: boolean;
}

export interface MetricsContext {
  metricsSeen?: Seen;
}

/**
 * Records every GraphQL request at the gateway by operation name and outcome, with its time from
 * the first byte read to the answer (metrics.operation), and every subgraph request the runtime
 * plans (metrics.subgraphRequest); direct execution records its own. A batch counts as one
 * request, under its last operation's name. Installed only when metrics are on.
 */
export function useMetrics(metrics: Metrics, graphqlPath: string): Plugin<MetricsContext> {
  return {
    async onHttpRequest(request, context, next) {
      if (context.pathname !== graphqlPath) return next(request);
      const start = performance.now();
      const seen: Seen = { errors: false };
      context.metricsSeen = seen;
      try {
        return await next(request);
      } finally {
        const seconds = (performance.now() - start) / 1000;
        if (seen.executed === undefined) metrics.operation(seen.requested, 'refused', seconds);
        else metrics.operation(seen.executed, seen.errors ? 'error' : 'ok', seconds);
      }
    },
    onParams({ params, context }) {
      const seen = (context as MetricsContext).metricsSeen;
      if (seen) seen.requested = params.operationName;
    },
    onExecute({ args }) {
      const seen = (args.contextValue as MetricsContext).metricsSeen;
      if (!seen) return;
      seen.executed = getOperationAST(args.document, args.operationName)?.name?.value ?? null;
    },
    onExecutionResult({ result, context }) {
      const seen = (context as MetricsContext).metricsSeen;
      if (seen && result && 'errors' in result && result.errors?.length) seen.errors = true;
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
