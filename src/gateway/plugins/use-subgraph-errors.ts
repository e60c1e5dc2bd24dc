import type { GraphQLError } from 'graphql';
import type { Logger } from '../../shared/logger.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';

/**
 * Names the subgraph an error came from in `extensions.serviceName` (Hive's convention): the one
 * place it is done, for planned operations (below) and for those executed directly alike.
 */
export function fromSubgraph<E extends GraphQLError>(error: E, subgraph: string): E {
  const shown = error as { extensions?: Record<string, unknown> };
  shown.extensions ??= {};
  shown.extensions.serviceName ||= subgraph;
  return error;
}

/**
 * Subgraph failures as the client sees them: named with their subgraph, and a subgraph that
 * cannot be reached reported as unavailable, by name, without its address or the subrequest.
 * (The runtime's own subgraph error plugin still gives uncoded errors DOWNSTREAM_SERVICE_ERROR.)
 */
export function useSubgraphErrors(options: { log: Logger }): Plugin<CorrelationContext> {
  const { log } = options;
  return {
    onSubgraphExecute({ subgraphName }) {
      return ({ result }) => {
        if (!('errors' in result)) return;
        for (const error of result.errors ?? []) fromSubgraph(error, subgraphName);
      };
    },
    onExecutionResult({ result, setResult, context }) {
      const { requestId } = context as Partial<CorrelationContext>;
      if (!requestId || !result || !('errors' in result) || !result.errors?.length) return;
      if (!result.errors.some((e) => e.extensions?.code === 'SUBREQUEST_HTTP_ERROR')) return;
      const errors = result.errors.map((e) => {
        if (e.extensions?.code !== 'SUBREQUEST_HTTP_ERROR') return e;
        const subgraph = String(e.extensions.serviceName ?? 'a');
        log.warn({ requestId, subgraph, reason: e.message }, 'subgraph unreachable');
        return {
          message: `The ${subgraph} service is unavailable; try again shortly.`,
          ...(e.path ? { path: e.path } : {}),
          extensions: { code: 'SERVICE_UNAVAILABLE', subgraph, requestId },
        };
      });
      setResult({ ...result, errors } as typeof result);
    },
  };
}
