import { receivedIdentity } from '../../shared/identity.ts';
import type { Subgraph } from '../../shared/subgraph.ts';
import type { SubgraphTransport } from './transport.ts';

/**
 * A subgraph in this process: the operation is executed against its schema by its own execution
 * (`Subgraph.executeLocally`: the door in process, with the same admission and answer as its
 * others), no HTTP, no identity token. The gateway has admitted the variables under the same
 * limits; the subgraph coerces them to its own types and prices the operation.
 */
export function inProcessSubgraph(subgraph: Subgraph): SubgraphTransport {
  return {
    name: subgraph.name,
    typeDefs: subgraph.typeDefs,
    schema: subgraph.schema,
    execute: ({ operation, variables, caller, signal }) =>
      subgraph.executeLocally({
        document: operation.document,
        operationName: operation.operationName,
        variableValues: variables,
        // As the subgraph reads it from the signed header: empty strings are absent.
        identity: receivedIdentity(caller.identity),
        requestId: caller.requestId,
        checked: true,
        ...(signal ? { signal } : {}),
      }),
    subscribe: ({ operation, variables, caller, signal, lastEventId }) =>
      subgraph.subscribeLocally({
        document: operation.document,
        operationName: operation.operationName,
        variableValues: variables,
        identity: receivedIdentity(caller.identity),
        requestId: caller.requestId,
        checked: true,
        lastEventId: lastEventId ?? null,
        // The gateway's direct route only shapes and writes them: one result for many streams.
        shared: true,
        ...(signal ? { signal } : {}),
      }),
  };
}
