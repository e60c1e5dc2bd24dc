import { type ExecutionResult, getVariableValues } from 'graphql';
import type { DocumentLimits } from '../../config/index.ts';
import type { Tracing } from '../../observability/active.ts';
import { checkInputs, type InputLimits } from '../../shared/input-limits.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import {
  type PreparedContext,
  type PreparedOperation,
  type PreparedOperations,
  preparedRequest,
  resultText,
} from '../../shared/prepared-operations.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';
import { type DirectTarget, isJoined, type JoinedContext, runDirect } from './use-direct-execution.ts';
import { variablesFit } from './use-document-limits.ts';
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
  /** What the pipeline checks of a request's variables before anything runs (use-document-limits.ts, use-input-limits.ts). */
  documentLimits: DocumentLimits;
  inputLimits: InputLimits;
  metrics?: Metrics;
  /** With tracing on: the subgraph call in a span of its own, as direct execution makes it. */
  traceSubgraphCall?: Parameters<typeof runDirect>[3]['traceSubgraphCall'];
  /**
   * With tracing on: the answer in spans of its own, in place of the runtime pipeline's, which it
   * skips; a result handed to the pipeline makes none of the pipeline's (src/observability/tracing.ts).
   */
  trace?: Pick<Tracing, 'tracePrepared' | 'handedBack'>;
}

type Context = CorrelationContext & IdentityContext & MetricsContext & PreparedContext & JoinedContext;

/**
 * Prepared operations: a request for an operation the gateway has answered before through the
 * runtime's whole pipeline, which one subgraph answers alone (in this process or over HTTP) or
 * which is joined from direct requests (gateway/joined-operations.ts), is executed and answered
 * here, without the pipeline (Yoga's request handling, the runtime's context, envelop's hooks,
 * result processing).
 *
 * The innermost of the gateway's HTTP hooks, so every request still has its body bounded and
 * read, its CSRF check, its session resolved, its tenant's turn and the headers every answer
 * gets; and the operation is executed exactly as direct execution executes it (its input
 * limits, cost, response budget and masking are the subgraph's). What the pipeline decides by a
 * request's variables is decided again here, before anything runs: their size and depth, the
 * strings and lists in them, and their coercion to the operation's types; a request that fails
 * any of them goes to the pipeline, which refuses it. Only a request the pipeline would answer
 * as a plain JSON document of data without errors is answered here; anything else (other
 * parameters, an `Accept` asking for a stream, a CORS origin) goes through the pipeline as
 * before, and a result with errors is handed to it after execution, to be shaped by its hooks
 * without being executed again; a joined operation declined for this request is executed there
 * by the planner.
 */
export function usePreparedOperations(options: PreparedOperationsOptions): Plugin<Context> {
  const metrics = options.metrics ?? NO_METRICS;
  // Whether the pipeline would let these variables through to execution, in its order: their
  // size and depth (onParams), the strings and lists in them (onExecute), their coercion (direct
  // execution's, against the schema it recorded). No variables at all pass the first two as
  // they did for the request that recorded the operation; they are still coerced, for a
  // required variable.
  const variablesPass = (
    prepared: PreparedOperation<DirectTarget>,
    variables: Record<string, unknown> | undefined,
    request: Request,
  ): boolean => {
    if (variables) {
      if (!variablesFit(variables, options.documentLimits, request)) return false;
      if (checkInputs(prepared.document, variables, options.inputLimits)) return false;
    }
    if (prepared.variableDefinitions.length === 0) return true;
    if (!prepared.schema) return false;
    return !getVariableValues(prepared.schema, prepared.variableDefinitions, variables ?? {}).errors;
  };
  return {
    async onHttpRequest(request, context, next) {
      if (context.pathname !== options.graphqlPath) return next(request);
      const asked = preparedRequest(request, { variables: true });
      if (!asked) return next(request);
      if (options.cors && request.headers.has('origin') && options.cors(request)) return next(request);
      const prepared = options.operations.find(asked.query, asked.operationName);
      if (!prepared || !variablesPass(prepared, asked.variables, request)) return next(request);
      if (!options.trace) return answer(request, context, next, prepared, asked);
      return options.trace.tracePrepared(
        request,
        {
          name: prepared.name,
          type: prepared.type,
          document: asked.query,
          pathname: context.pathname,
          requestId: context.requestId,
        },
        () => answer(request, context, next, prepared, asked),
      );
    },
  };

  /** Executes a prepared operation whose request passed every check, and answers it. */
  async function answer(
    request: Request,
    context: Context,
    next: (request: Request) => Promise<Response>,
    prepared: PreparedOperation<DirectTarget>,
    asked: NonNullable<ReturnType<typeof preparedRequest>>,
  ): Promise<Response> {
    // A client that has gone away is answered as the pipeline answers it (the runtime's fetch
    // rejects, and the masked-errors hook answers 499): before, nothing is executed for it.
    request.signal.throwIfAborted();
    const target = prepared.subgraph;
    let result: ExecutionResult;
    if (isJoined(target)) {
      const joined = await target.run(asked.variables ?? {}, context);
      request.signal.throwIfAborted();
      // Declined: the planner executes it, in the pipeline (in its own spans, inside these).
      if (!joined) {
        context.joinedDeclined = true;
        return next(request);
      }
      result = joined;
    } else {
      ({ result } = await runDirect(
        target,
        {
          document: prepared.document,
          operationName: prepared.operationName,
          variableValues: asked.variables,
          // variablesPass coerced them against the supergraph (LocalOperation.variablesCoerced).
          variablesCoerced: true,
        },
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
      options.trace?.handedBack(request, result.errors?.length ?? 0);
      return next(request);
    }
    metrics.preparedOperation();
    return options.respond(resultText(result), {
      status: 200,
      headers: { 'Content-Type': `${asked.mediaType}; charset=utf-8` },
    });
  }
}
