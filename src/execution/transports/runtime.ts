import type { Transport } from '@graphql-mesh/transport-common';
import { type DocumentNode, type ExecutionResult, GraphQLError } from 'graphql';
import { ANONYMOUS, LAST_EVENT_ID_HEADER, receivedIdentity } from '../../shared/identity.ts';
import type { Subgraph } from '../../shared/subgraph.ts';
import type { Caller } from './transport.ts';

/** The transport kind of the subgraphs served in this process. */
export const LOCAL_TRANSPORT = 'local';

/**
 * The runtime's transport for the subgraphs in this process (`transports` / `transportEntries`
 * of the Hive Gateway runtime), the planned route's way to them: a planned operation's request to
 * one of them comes in by the subgraph's door in process (`Subgraph.executeLocally`: the
 * subgraph's context, its admission of the planner's variables, its answer within its response
 * budget and masked, the caller's identity handed over as it is), and its answer is handed to the
 * planner as objects.
 *
 * Over the runtime's HTTP executor, each such request was printed, sent as JSON through the
 * subgraph's server, answered as JSON and parsed again; and the executor (`@graphql-tools/executor-http`
 * 3.4) tied every request's abort signal to one that lives as long as the executor, a listener
 * removed only once a major collection has found the request's signal gone: thousands of
 * listeners at a few hundred requests a second, each new one compared with all of them (13% of the
 * CPU of an asset with its wells and issues).
 *
 * The runtime's subgraph hooks still run around it (upstream timeout, metrics, subgraph errors,
 * tracing's `subgraph.execute` span): they wrap the executor, not the fetch.
 */
export function localTransport(
  subgraphs: readonly Subgraph[],
  options: {
    /** Hands on what a subgraph put on its answer for the client (a session change). */
    relayHeaders(subgraph: string, headers: Headers, caller: Partial<Caller>): void;
  },
): Transport {
  const byName = new Map(subgraphs.map((s) => [s.name, s]));
  return {
    getSubgraphExecutor({ subgraphName }) {
      const subgraph = byName.get(subgraphName);
      if (!subgraph) throw new Error(`no subgraph ${subgraphName} in this process`);
      return async (request) => {
        const context = (request.context ?? {}) as Partial<Caller> & { request?: Request };
        if (request.operationType === 'subscription')
          // A subscription's events, as the subgraph answers them (a stream's own requests, such
          // as its entities, come back here one by one).
          return subgraph.subscribeLocally({
            document: request.document as DocumentNode,
            operationName: request.operationName,
            variableValues: request.variables,
            identity: receivedIdentity(context.identity ?? ANONYMOUS),
            requestId: context.requestId ?? '',
            reused: false,
            lastEventId: context.request?.headers.get(LAST_EVENT_ID_HEADER) ?? null,
            // The client's request: when it goes, the stream lets go of everything at once.
            ...(context.request ? { signal: context.request.signal } : {}),
          }) as never;
        const { result, responseHeaders } = await subgraph.executeLocally({
          document: request.document as DocumentNode,
          operationName: request.operationName,
          variableValues: request.variables,
          // A request of the runtime's own, outside any client's, is nobody's. As the subgraph
          // reads it from the signed header: empty strings are absent.
          identity: receivedIdentity(context.identity ?? ANONYMOUS),
          requestId: context.requestId ?? '',
          // The planner makes each request's subgraph documents anew: run, not compiled.
          reused: false,
          ...(request.signal ? { signal: request.signal } : {}),
        });
        options.relayHeaders(subgraphName, responseHeaders, context);
        // As over HTTP, where a subgraph's status stays with its own response: an error's HTTP
        // status is the subgraph's, not the gateway's answer's.
        const errors = result.errors?.some((e) => e.extensions?.http)
          ? result.errors.map((e) => (e.extensions?.http ? withoutHttp(e) : e))
          : result.errors;
        // The runtime's executor type is generic in the data it returns; this returns the subgraph's.
        return (errors === result.errors ? result : { ...result, errors }) as ExecutionResult<never>;
      };
    },
  };
}

function withoutHttp(error: GraphQLError): GraphQLError {
  const { http: _, ...extensions } = error.extensions;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });
}
