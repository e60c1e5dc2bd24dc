import type { GraphQLError } from 'graphql';
import type { Plugin } from '../http.ts';

/**
 * Names the subgraph an error of the planned route came from in `extensions.serviceName` (Hive's
 * convention), as the direct route names its own (src/execution/gateway.ts); what the client
 * then sees of a subgraph that cannot be reached is shaped with the result
 * (src/execution/shape.ts). The runtime's own subgraph error plugin still gives uncoded errors
 * DOWNSTREAM_SERVICE_ERROR.
 */
export function useSubgraphErrors(): Plugin {
  return {
    onSubgraphExecute({ subgraphName }) {
      return ({ result }) => {
        if (!('errors' in result)) return;
        for (const error of result.errors ?? []) fromSubgraph(error, subgraphName);
      };
    },
  };
}

function fromSubgraph(error: GraphQLError, subgraph: string): void {
  const shown = error as { extensions?: Record<string, unknown> };
  shown.extensions ??= {};
  shown.extensions.serviceName ||= subgraph;
}
