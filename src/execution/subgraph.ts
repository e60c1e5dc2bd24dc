import {
  createSourceEventStream,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin as EnvelopPlugin } from 'graphql-yoga';
import type { DocumentLimits } from '../config/index.ts';
import type { Logger } from '../shared/logger.ts';
import { maskError, toGraphQLError } from '../shared/mask-error.ts';
import { type Metrics, NO_METRICS } from '../shared/metrics.ts';
import { forSession } from '../shared/session-work.ts';
import { EVENT_ID } from '../shared/subgraph.ts';
import { type Admission, type Admitted, type Asked, admit, isRefused, type Place } from './admit.ts';
import { documentShapeLimits, useNoIntrospection } from './document-limits.ts';
import { CompiledOperations } from './executors/compiled.ts';
import { type OperationPlanner, OperationPlans } from './executors/plans.ts';
import { type Operation, Operations } from './operation.ts';
import { bodyBytes } from './request-body.ts';
import { boundedErrors, type ResponseBudget, stoppedResult } from './response-budget.ts';

/** What a subgraph's execution reads of a request's context. */
export interface ExecutionContext {
  /** What this request may still resolve (shared/response-budget.ts). */
  budget: ResponseBudget;
}

export interface SubgraphExecutionOptions<C> {
  name: string;
  /** The subgraph's executable schema. */
  schema: GraphQLSchema;
  documentLimits: DocumentLimits;
  /** Answer `__schema`/`__type`; without, no error suggests a name. */
  introspection: boolean;
  maxStringLength: number;
  /** Queries answered by a plan of the subgraph's own, where it has one @default none */
  planner?: OperationPlanner<C>;
  /**
   * Its queries' reads may be answered by a read replica that has replayed the caller's last
   * write (storage/replicas.ts); mutations and subscriptions never are @default true
   */
  replicaReads?: boolean;
  log: Logger;
  metrics?: Metrics;
}

/**
 * How a subgraph answers an operation, whichever door it came in by (src/execution/README.md):
 * our gateway's request over HTTP, answered early; any request through the subgraph's Yoga (another
 * router's, a client's at its port); our gateway in this process (`Subgraph.executeLocally`). Each
 * door admits the request ({@link admit}: variables, input limits, coercion, price) and answers it
 * ({@link answer}: by the operation's plan, compiled, or by graphql-js; within the response budget;
 * errors bounded and masked), so no door checks or runs anything another does not.
 */
export class SubgraphExecution<C extends ExecutionContext> {
  /** Everything worked out about this subgraph's operations, kept with their parsed documents. */
  readonly operations = new Operations();
  readonly place: Place;
  readonly #schema: GraphQLSchema;
  readonly #compiled: CompiledOperations;
  readonly #plans: OperationPlans<C> | undefined;
  readonly #log: Logger;
  readonly #maxErrors: number;
  readonly #replicaReads: boolean;
  /**
   * Each subscription event's results, by operation and by variables and caller: kept as long as
   * the event itself (a change the feed offered every stream of its group).
   */
  readonly #sharedEvents = new WeakMap<object, Map<Operation, Map<string, Promise<ExecutionResult>>>>();

  constructor(options: SubgraphExecutionOptions<C>) {
    const { documentLimits } = options;
    this.#schema = options.schema;
    this.place = {
      schema: options.schema,
      documentLimits,
      inputLimits: { maxStringLength: options.maxStringLength, maxListLength: documentLimits.maxListLength },
      introspection: options.introspection,
      prices: true,
    };
    this.#compiled = new CompiledOperations(options.schema);
    this.#plans = options.planner
      ? new OperationPlans<C>(options.schema, options.planner, options.name, options.metrics ?? NO_METRICS)
      : undefined;
    this.#log = options.log;
    this.#maxErrors = documentLimits.maxErrors;
    this.#replicaReads = options.replicaReads ?? true;
  }

  /** The checks every request gets before its operation runs here. */
  admit(operation: Operation, asked: Asked): Admission {
    return admit(this.place, operation, asked);
  }

  /**
   * Runs an admitted operation and answers it: by its plan when it has one that takes this
   * request, else compiled (unless `reused` is false: a document made for one request is not worth
   * compiling), else by graphql-js; stopped by its budget, its errors bounded and masked. A query's
   * reads may go to a read replica, and a write's place in the WAL is kept as its session's
   * (storage/replicas.ts).
   */
  async answer(
    operation: Operation,
    admitted: Admitted,
    contextValue: C,
    options: { reused?: boolean } = {},
  ): Promise<ExecutionResult> {
    let result: ExecutionResult;
    const { identity } = contextValue as unknown as { identity?: { sessionHash: string | null } };
    const replicaReads = this.#replicaReads && operation.type === 'query';
    try {
      result = await forSession(
        identity?.sessionHash ?? null,
        replicaReads,
        async () =>
          (await this.#plans?.run(operation, contextValue, admitted.coerced)) ??
          (await this.#execute(operation, admitted, contextValue, options.reused ?? true)),
        { writes: operation.type === 'mutation' },
      );
    } catch (e) {
      // What Yoga would answer for a failure outside the resolvers (building a plan's context).
      result = { errors: [toGraphQLError(e)] };
    }
    return this.#bounded(result, contextValue);
  }

  /**
   * Runs an admitted subscription: its source stream (the root field's `subscribe`), then each
   * event executed as a response of its own, with a context of its own from `eventContext` (a
   * budget per event, not one spent over the stream's life), within the same bounds and masked as
   * any answer. With `shared` (results only read, never changed, by what receives them: the
   * gateway's direct route), an event is executed once for every stream of the same operation,
   * variables and caller (its result depends on nothing else: every stream offered an event is of
   * its group).
   * A subscription refused at its start is answered as one result.
   */
  async subscribe(
    operation: Operation,
    admitted: Admitted,
    contextValue: C,
    eventContext: () => C,
    options: { shared?: boolean } = {},
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const args: ExecutionArgs = {
      schema: this.#schema,
      document: operation.document,
      operationName: operation.operationName,
      variableValues: admitted.variables,
      contextValue,
    };
    let source: AsyncIterable<unknown> | ExecutionResult;
    try {
      source = await createSourceEventStream(args);
    } catch (e) {
      source = { errors: [toGraphQLError(e)] };
    }
    if (!(Symbol.asyncIterator in source)) return this.#bounded(source, contextValue);
    const events = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    // Streams of the same operation, variables and caller get the same result of the same event:
    // worked out once for all of them (a group's hundred dashboards, one execution a change).
    const { identity } = contextValue as unknown as { identity?: { kind: string; username: string | null } };
    const sharedAs = `${identity?.kind}\u0000${identity?.username}\u0000${JSON.stringify(admitted.variables)}`;
    const each = (payload: unknown): Promise<ExecutionResult> => {
      if (!options.shared || typeof payload !== 'object' || payload === null) return run(payload);
      let byOperation = this.#sharedEvents.get(payload);
      if (!byOperation) {
        byOperation = new Map();
        this.#sharedEvents.set(payload, byOperation);
      }
      let results = byOperation.get(operation);
      if (!results) {
        results = new Map();
        byOperation.set(operation, results);
      }
      let result = results.get(sharedAs);
      if (!result) {
        result = run(payload);
        results.set(sharedAs, result);
      }
      return result;
    };
    const run = async (payload: unknown): Promise<ExecutionResult> => {
      const context = eventContext();
      let result: ExecutionResult;
      try {
        result = await execute({ ...args, rootValue: payload, contextValue: context });
      } catch (e) {
        result = { errors: [toGraphQLError(e)] };
      }
      result = this.#bounded(result, context);
      const id = (payload as { [EVENT_ID]?: unknown } | null)?.[EVENT_ID];
      return typeof id === 'string'
        ? { ...result, extensions: { ...result.extensions, eventId: id } }
        : result;
    };
    const stream: AsyncIterableIterator<ExecutionResult> = {
      [Symbol.asyncIterator]: () => stream,
      next: async () => {
        const event = await events.next();
        return event.done
          ? { done: true, value: undefined }
          : { done: false, value: await each(event.value) };
      },
      return: async () => {
        await events.return?.();
        return { done: true, value: undefined };
      },
      throw: async (e?: unknown) => {
        await events.return?.();
        throw e;
      },
    };
    return stream;
  }

  #bounded(result: ExecutionResult, contextValue: C): ExecutionResult {
    result = stoppedResult(contextValue.budget) ?? boundedErrors(result, this.#maxErrors);
    if (result.errors?.length) result = { ...result, errors: result.errors.map((e) => this.mask(e)) };
    return result;
  }

  /** An error as a client of this subgraph may see it (shared/mask-error.ts). */
  mask(error: unknown) {
    return maskError(error, this.#log, 'unexpected error in resolver');
  }

  /**
   * The Yoga plugins of the subgraph's own port: the document limits and introspection rule at
   * validation, kept per document; then, for every operation Yoga validated, this execution's
   * admission and answer in place of Yoga's executor, and of its subscribe for a subscription.
   * `eventContext` makes the context of each event of a subscription from the stream's.
   */
  plugins(
    introspection: boolean,
    eventContext: (context: C) => C,
    refused?: Place['refused'],
  ): EnvelopPlugin[] {
    const admitted = (args: ExecutionArgs) => {
      const operation = this.operations.of(args.document, args.operationName);
      operation.validated = true;
      const context = args.contextValue as unknown as C & { request?: Request };
      const admission = this.admit(operation, {
        variables: args.variableValues as Asked['variables'],
        requestBytes: context.request ? bodyBytes(context.request) : undefined,
      });
      return { operation, context, admission };
    };
    return [
      ...documentShapeLimits(this.place.documentLimits, introspection, this.operations, refused),
      ...(introspection ? [] : [useNoIntrospection()]),
      {
        onExecute: ({ args, setExecuteFn, setResultAndStopExecution }) => {
          const { operation, context, admission } = admitted(args);
          if (isRefused(admission)) {
            setResultAndStopExecution({ errors: [...admission.refused] });
            return;
          }
          setExecuteFn(() => this.answer(operation, admission, context));
        },
        onSubscribe: ({ args, setSubscribeFn, setResultAndStopExecution }) => {
          const { operation, context, admission } = admitted(args);
          if (isRefused(admission)) {
            setResultAndStopExecution({ errors: [...admission.refused] });
            return;
          }
          setSubscribeFn(
            () => this.subscribe(operation, admission, context, () => eventContext(context)) as never,
          );
        },
      },
    ];
  }

  async #execute(
    operation: Operation,
    admitted: Admitted,
    contextValue: C,
    reused: boolean,
  ): Promise<ExecutionResult> {
    const compiled = reused ? this.#compiled.forRequest(operation, admitted.variables) : null;
    if (compiled) return compiled.run(undefined, contextValue, admitted.variables);
    const args: ExecutionArgs = {
      schema: this.#schema,
      document: operation.document,
      operationName: operation.operationName,
      variableValues: admitted.variables,
      contextValue,
    };
    return execute(args);
  }
}
