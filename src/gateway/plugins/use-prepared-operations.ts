import type { ExecutionResult } from 'graphql';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import {
  type PreparedContext,
  type PreparedOperations,
  preparedRequest,
  resultText,
} from '../../shared/prepared-operations.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';
import { type DirectTarget, isJoined, type JoinedContext, runDirect } from './use-direct-execution.ts';
import type { MetricsContext } from './use-metrics.ts';
import type { IdentityContext } from './use-session-identity.ts';

export interface PreparedOperationsOptions {
  /** The gateway's GraphQL path. */
  graphqlPath: string;
  /** Operations direct execution has noted (gateway/prepared-operations.ts). */
  operations: PreparedOperations<DirectTarget>;
  /** The CORS policy the runtime applies: a request it would answer with CORS headers takes the runtime's path. */
  cors: false | ((request: Request) => unknown);
  /** An answer of the runtime's own class (the server adapter writes its string body as it is). */
  respond(body: string, init: ResponseInit): Response;
  relayHeaders: Parameters<typeof runDirect>[3]['relayHeaders'];
  metrics?: Metrics;
}

type Context = CorrelationContext & IdentityContext & MetricsContext & PreparedContext & JoinedContext;

/**
 * Prepared operations: a request for an operation the gateway has answered before through the
 * runtime's whole pipeline, which one subgraph answers alone (in this process or over HTTP) or
 * which is joined from direct requests (gateway/joined-operations.ts), and which takes no variables (gateway/prepared-operations.ts), is executed and answered here, without the
 * pipeline (Yoga's request handling, the runtime's context, envelop's hooks, result processing).
 *
 * The innermost of the gateway's HTTP hooks, so every request still has its body bounded and
 * read, its CSRF check, its session resolved, its tenant's turn and the headers every answer
 * gets; and the operation is executed exactly as direct execution executes it (its input
 * limits, cost, response budget and masking are the subgraph's). Only a request the pipeline
 * would answer as a plain JSON document of data without errors is answered here; anything else
 * (variables, other parameters, an `Accept` asking for a stream, a CORS origin) goes through the
 * pipeline as before, and a result with errors is handed to it after execution, to be shaped by
 * its hooks without being executed again; a joined operation declined for this request is
 * executed there by the planner.
 */
export function usePreparedOperations(options: PreparedOperationsOptions): Plugin<Context> {
  const metrics = options.metrics ?? NO_METRICS;
  return {
    async onHttpRequest(request, context, next) {
      if (context.pathname !== options.graphqlPath) return next(request);
      const asked = preparedRequest(request);
      if (!asked) return next(request);
      if (options.cors && request.headers.has('origin') && options.cors(request)) return next(request);
      const prepared = options.operations.find(asked.query, asked.operationName);
      if (!prepared) return next(request);

      // A client that has gone away is answered as the pipeline answers it (the runtime's fetch
      // rejects, and the masked-errors hook answers 499): before, nothing is executed for it.
      request.signal.throwIfAborted();
      const target = prepared.subgraph;
      let result: ExecutionResult;
      if (isJoined(target)) {
        const joined = await target.run(undefined, context);
        request.signal.throwIfAborted();
        // Declined: the planner executes it, in the pipeline.
        if (!joined) {
          context.joinedDeclined = true;
          return next(request);
        }
        result = joined;
      } else {
        ({ result } = await runDirect(
          target,
          { document: prepared.document, operationName: prepared.operationName },
          context,
          options,
        ));
        request.signal.throwIfAborted();
      }
      const seen = context.metricsSeen;
      if (seen) {
        seen.requested = asked.operationName;
        seen.executed = prepared.name;
      }
      if (result.errors?.length || result.extensions?.http) {
        context.preparedResult = result;
        return next(request);
      }
      metrics.preparedOperation();
      return options.respond(resultText(result), {
        status: 200,
        headers: { 'Content-Type': `${asked.mediaType}; charset=utf-8` },
      });
    },
  };
}
