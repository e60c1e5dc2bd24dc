import type { ExecutionResult } from 'graphql';
import { isRefused } from '../../execution/admit.ts';
import { eventStream } from '../../execution/event-stream.ts';
import { DECLINED, type GatewayExecution } from '../../execution/gateway.ts';
import type { Operation } from '../../execution/operation.ts';
import { bodyBytes } from '../../execution/request-body.ts';
import { EVENT_STREAM, type PlainRequest, plainRequest, respond } from '../../execution/respond.ts';
import { LAST_EVENT_ID_HEADER } from '../../shared/identity.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import type { OperationSpan, PreparedSpan } from '../../shared/tracing.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';
import type { IdentityContext } from './use-session-identity.ts';

/**
 * What the execution learnt of one GraphQL request, kept by this plugin alone in the request's
 * context ({@link executionOf} reads it for the metrics).
 */
export interface RequestExecution {
  /** The operation name the client asked for. */
  requested?: string | null;
  /** The operation executed (its own name), and whether it answered errors; unset when none was. */
  executed?: { name: string | null; errors: boolean };
  /** The operation whose join the fast door declined: the pipeline plans it, without joining it again. */
  declined?: Operation;
  /**
   * A trusted document prepared at start (plugins/use-trusted-documents.ts): validated and routed
   * here, and answered with nothing run.
   */
  preparing?: boolean;
}

export interface ExecutionContext {
  execution?: RequestExecution;
}

type Context = CorrelationContext & IdentityContext & ExecutionContext;

/** What the execution learnt of a request, once the gateway has answered it. */
export function executionOf(context: ExecutionContext): RequestExecution | undefined {
  return context.execution;
}

export interface UseExecutionOptions {
  /** The gateway's GraphQL path. */
  graphqlPath: string;
  execution: GatewayExecution<Context>;
  /** Answer at the fast door what it may take (`ASSETQL_PREPARED_OPERATIONS`); the pipeline door is always open. */
  fastDoor: boolean;
  /**
   * The parameters a request's body runs (trusted documents: plugins/use-trusted-documents.ts), or
   * undefined when the pipeline must answer it.
   */
  resolve?(params: Record<string, unknown>, context: Context): Record<string, unknown> | undefined;
  /**
   * Told when the fast door finds the request's operation validated by the pipeline before: what
   * `resolve` left pending on it (an APQ text to register) may be kept now.
   */
  validated?(context: Context): void;
  /** The CORS policy the runtime applies: a request it would answer with CORS headers takes the runtime's path. */
  cors: false | ((request: Request) => unknown);
  /** The server adapter's response class (it writes its string body as it is). */
  responseClass(): { new (body?: BodyInit | null, init?: ResponseInit): Response };
  metrics?: Metrics;
  /**
   * With tracing on: a request answered at the fast door in spans of its own, in place of the
   * runtime pipeline's, which it skips (src/observability/tracing.ts).
   */
  tracePrepared?(
    request: Request,
    operation: PreparedSpan,
    run: (span: OperationSpan) => Promise<Response>,
  ): Promise<Response>;
}

/**
 * The gateway's two doors into execution (src/execution/README.md), each admitting a request and
 * answering it the same way (src/execution/gateway.ts):
 *
 * - **the fast door**, the innermost of the HTTP hooks (so every request has had its body bounded
 *   and read, its CSRF check, its session resolved, its tenant's turn): a plain JSON request for an
 *   operation the pipeline has validated before, routed direct or joined, is admitted, answered
 *   and written here, errors and refusals too, without the runtime's pipeline (Yoga's request
 *   handling, the runtime's context, envelop's hooks); a joined request whose join declines goes
 *   on to the pipeline, which plans it;
 * - **the pipeline door**, the runtime's execute hook: every operation that passed parse and
 *   validation, on any route.
 */
export function useExecution(options: UseExecutionOptions): Plugin<Context> {
  const { execution, graphqlPath } = options;
  const metrics = options.metrics ?? NO_METRICS;

  async function fastDoor(
    request: Request,
    context: Context,
    next: (request: Request) => Promise<Response>,
    operation: Operation,
    asked: PlainRequest,
    state: RequestExecution,
    span?: OperationSpan,
  ): Promise<Response> {
    // A client that has gone away is answered as the pipeline answers it (the masked-errors hook
    // answers 499): before, nothing is executed for it.
    request.signal.throwIfAborted();
    const admission = execution.admit(operation, {
      variables: asked.variables,
      requestBytes: bodyBytes(request),
    });
    let result: ExecutionResult;
    if (isRefused(admission)) {
      result = execution.shape({ errors: [...admission.refused] }, operation, context);
    } else {
      state.executed = { name: operation.name, errors: false };
      const answered = await execution.answer(operation, admission, context, undefined, request.signal);
      if (answered === DECLINED) {
        state.executed = undefined;
        state.declined = operation;
        return next(request);
      }
      result = answered;
    }
    request.signal.throwIfAborted();
    if (result.errors?.length && state.executed) state.executed.errors = true;
    span?.errors(result.errors?.length ?? 0);
    metrics.preparedOperation();
    return respond(result, asked.mediaType, options.responseClass());
  }

  /**
   * A subscription on the direct route asked for over SSE: admitted, then streamed by its subgraph
   * straight into the event stream's writer, without Yoga's request handling or envelop's mapping
   * of every event (which cost a stream's server more than the event itself at a thousand
   * streams). What the pipeline answers differently — a refusal, an answer that is not a stream —
   * goes on to the pipeline, which answers it as it always has.
   */
  async function streamDoor(
    request: Request,
    context: Context,
    next: (request: Request) => Promise<Response>,
    operation: Operation,
    asked: PlainRequest,
    state: RequestExecution,
  ): Promise<Response> {
    request.signal.throwIfAborted();
    const admission = execution.admit(operation, {
      variables: asked.variables,
      requestBytes: bodyBytes(request),
    });
    if (isRefused(admission)) return next(request);
    const events = await execution.subscribe(operation, admission, context, {
      signal: request.signal,
      lastEventId: request.headers.get(LAST_EVENT_ID_HEADER),
    });
    if (!(Symbol.asyncIterator in events)) {
      // Nobody left to answer: the pipeline is not asked again for a client that has gone.
      request.signal.throwIfAborted();
      return next(request);
    }
    state.executed = { name: operation.name, errors: false };
    metrics.preparedOperation();
    return eventStream(events, [], { Response: options.responseClass() });
  }

  /** A document prepared ahead: its route decided now, nothing run. */
  function prepared(operation: Operation, stop: (result: ExecutionResult) => void): void {
    execution.route(operation);
    stop({ data: null });
  }

  return {
    async onHttpRequest(request, context, next) {
      if (context.pathname !== graphqlPath) return next(request);
      const state: RequestExecution = {};
      context.execution = state;
      const resolve = options.resolve;
      const asked = options.fastDoor
        ? plainRequest(request, resolve && ((params) => resolve(params, context)), { eventStream: true })
        : undefined;
      if (!asked) return next(request);
      if (options.cors && request.headers.has('origin') && options.cors(request)) return next(request);
      const operation = execution.operations.find(asked.query, asked.operationName);
      if (!operation) return next(request);
      options.validated?.(context);
      if (execution.route(operation).kind === 'planned') return next(request);
      // An event stream only for a subscription, and a subscription only as one; traced, the
      // pipeline's spans follow it.
      const streaming = asked.mediaType === EVENT_STREAM;
      if (streaming !== (operation.type === 'subscription')) return next(request);
      state.requested = asked.operationName;
      if (streaming) {
        if (options.tracePrepared) return next(request);
        return streamDoor(request, context, next, operation, asked, state);
      }
      const run = (span?: OperationSpan) => fastDoor(request, context, next, operation, asked, state, span);
      if (!options.tracePrepared) return run();
      return options.tracePrepared(
        request,
        {
          name: operation.name,
          type: operation.type === 'mutation' ? 'mutation' : 'query',
          document: asked.query,
          pathname: context.pathname,
          requestId: context.requestId,
        },
        run,
      );
    },
    onParams({ params, context }) {
      const state = (context as ExecutionContext).execution;
      if (state) state.requested = params.operationName;
    },
    // A subscription gets the same admission (variables, inputs, price), then the runtime's
    // planner carries it: its events come from the subgraph that serves the root field.
    onSubscribe({ args, setResultAndStopExecution, setSubscribeFn }) {
      const context = args.contextValue as Context & { request?: Request };
      execution.learn(args.schema);
      const operation = execution.operations.of(args.document, args.operationName);
      operation.validated = true;
      if (context.execution?.preparing) return prepared(operation, setResultAndStopExecution);
      const admission = execution.admit(operation, {
        variables: args.variableValues as Record<string, unknown> | undefined,
        requestBytes: context.request ? bodyBytes(context.request) : undefined,
      });
      if (isRefused(admission)) {
        setResultAndStopExecution(execution.shape({ errors: [...admission.refused] }, operation, context));
        return;
      }
      // One subgraph in this process streams it whole: no planner between it and the client.
      if (execution.route(operation).kind === 'direct')
        setSubscribeFn(
          () =>
            execution.subscribe(operation, admission, context, {
              ...(context.request ? { signal: context.request.signal } : {}),
              lastEventId: context.request?.headers.get(LAST_EVENT_ID_HEADER) ?? null,
            }) as never,
        );
    },
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const context = args.contextValue as Context & { request?: Request };
      execution.learn(args.schema);
      const operation = execution.operations.of(args.document, args.operationName);
      // It passed parse and validation here: the fast door may take it from now on.
      operation.validated = true;
      const state = context.execution;
      if (state?.preparing) return prepared(operation, setResultAndStopExecution);
      const admission = execution.admit(operation, {
        variables: args.variableValues as Record<string, unknown> | undefined,
        requestBytes: context.request ? bodyBytes(context.request) : undefined,
      });
      if (isRefused(admission)) {
        setResultAndStopExecution(execution.shape({ errors: [...admission.refused] }, operation, context));
        return;
      }
      if (state) state.executed = { name: operation.name, errors: false };
      const declined = state?.declined === operation;
      setExecuteFn(async (a) => {
        const planned = () => executeFn(a) as Promise<ExecutionResult>;
        const answered = declined
          ? execution.shape(await planned(), operation, context)
          : await execution.answer(operation, admission, context, planned, context.request?.signal);
        // Never: with the planner given, a declined join is planned.
        if (answered === DECLINED) throw new Error('a declined join was not planned');
        if (answered.errors?.length && state?.executed) state.executed.errors = true;
        return answered;
      });
    },
  };
}
