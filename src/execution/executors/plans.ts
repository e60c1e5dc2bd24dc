import type { DocumentNode, ExecutionResult, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { Metrics } from '../../shared/metrics.ts';
import { Fact, type Operation } from '../operation.ts';

/**
 * A query a subgraph answers by a plan of its own instead of field by field: given the request's
 * context and its coerced variables, the whole result, or undefined to leave this request to the
 * executor (the plan declines what it does not answer exactly as execution would: an error to
 * report, a limit to check, a case it does not cover).
 */
export type OperationPlan<C> = (
  context: C,
  variables: Readonly<Record<string, unknown>>,
) => Promise<ExecutionResult | undefined>;

/** Makes the plan of an operation, or null when the subgraph has none for it; asked once per operation. */
export type OperationPlanner<C> = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
) => OperationPlan<C> | null;

/**
 * A subgraph's planned queries: each operation's plan worked out once, a fact of its record.
 * Mutations and subscriptions are never planned.
 */
export class OperationPlans<C> {
  readonly #schema: GraphQLSchema;
  readonly #planner: OperationPlanner<C>;
  readonly #plans = new Fact<OperationPlan<C> | null>('plan');
  readonly #counted: (outcome: 'answered' | 'declined') => void;

  constructor(schema: GraphQLSchema, planner: OperationPlanner<C>, subgraph: string, metrics: Metrics) {
    this.#schema = schema;
    this.#planner = planner;
    this.#counted = (outcome) => metrics.plannedQuery(subgraph, outcome);
  }

  /** Whether the operation has a plan here. */
  has(operation: Operation): boolean {
    return this.#plan(operation) !== null;
  }

  /**
   * The operation answered by its plan for one request (its variables coerced here), or
   * undefined when it has none or the plan declines this request: the executor answers it then.
   */
  async run(
    operation: Operation,
    context: C,
    coerced: Readonly<Record<string, unknown>>,
  ): Promise<ExecutionResult | undefined> {
    const plan = this.#plan(operation);
    if (!plan) return undefined;
    const result = await plan(context, coerced);
    this.#counted(result ? 'answered' : 'declined');
    return result;
  }

  #plan(operation: Operation): OperationPlan<C> | null {
    return operation.get(this.#plans, () =>
      operation.type === 'query' && operation.definition
        ? this.#planner(this.#schema, operation.document, operation.definition)
        : null,
    );
  }
}
