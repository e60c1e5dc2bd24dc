import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  type OperationDefinitionNode,
} from 'graphql';
import type { Metrics } from './metrics.ts';
import { PerOperation } from './per-operation.ts';

/**
 * A query a subgraph answers by a plan of its own instead of field by field: given the request's
 * context and its coerced variables, the whole result, or undefined to leave this request to the
 * executor (the plan declines what it does not answer exactly as execution would: an error to
 * report, a limit to check, a case it does not cover).
 */
export type OperationPlan<C> = (
  context: C,
  variables: Record<string, unknown>,
) => Promise<ExecutionResult | undefined>;

/** Makes the plan of an operation, or null when the subgraph has none for it; asked once per operation. */
export type OperationPlanner<C> = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
) => OperationPlan<C> | null;

/**
 * A subgraph's planned queries, worked out once per operation of a parsed document and kept with
 * it (per-operation.ts). Mutations and subscriptions are never planned.
 */
export class OperationPlans<C> {
  readonly #schema: GraphQLSchema;
  readonly #planner: OperationPlanner<C>;
  readonly #plans = new PerOperation<{ plan: OperationPlan<C>; operation: OperationDefinitionNode } | null>();

  readonly #counted: (outcome: 'answered' | 'declined') => void;

  constructor(schema: GraphQLSchema, planner: OperationPlanner<C>, subgraph: string, metrics: Metrics) {
    this.#schema = schema;
    this.#planner = planner;
    this.#counted = (outcome) => metrics.plannedQuery(subgraph, outcome);
  }

  /**
   * The plan of `operationName` of `document` for one request, or null when it has none: run, it
   * answers undefined when the variables do not coerce (the executor reports them) or when the
   * plan declines the request.
   */
  forRequest(
    document: DocumentNode,
    operationName: string | null | undefined,
  ):
    | ((
        context: C,
        variables: Readonly<Record<string, unknown>> | null | undefined,
      ) => Promise<ExecutionResult | undefined>)
    | null {
    const entry = this.#plans.get(document, operationName, () => {
      const operation = getOperationAST(document, operationName);
      if (operation?.operation !== 'query') return null;
      const plan = this.#planner(this.#schema, document, operation);
      return plan ? { plan, operation } : null;
    });
    if (!entry) return null;
    return async (context, variables) => {
      const coerced = getVariableValues(
        this.#schema,
        entry.operation.variableDefinitions ?? [],
        variables ?? {},
      );
      const result = coerced.errors ? undefined : await entry.plan(context, coerced.coerced);
      this.#counted(result ? 'answered' : 'declined');
      return result;
    };
  }
}

/**
 * Answers a subgraph's HTTP requests by their plans where there are some (placed after the
 * compiled execution: a request its plan declines executes as it would have).
 */
export function usePlannedOperations<C>(plans: OperationPlans<C>) {
  return {
    onExecute({
      args,
      executeFn,
      setExecuteFn,
    }: {
      args: ExecutionArgs;
      executeFn: (args: ExecutionArgs) => PromiseOrValue<ExecutionResult | AsyncIterable<unknown>>;
      setExecuteFn(
        fn: (args: ExecutionArgs) => PromiseOrValue<ExecutionResult | AsyncIterable<unknown>>,
      ): void;
    }) {
      const plan = plans.forRequest(args.document, args.operationName);
      if (!plan) return;
      setExecuteFn(
        async (a) =>
          (await plan(a.contextValue as C, a.variableValues as Record<string, unknown>)) ?? executeFn(a),
      );
    },
  };
}

type PromiseOrValue<T> = T | Promise<T>;
