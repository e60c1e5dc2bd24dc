import type { ExecutionResult } from 'graphql';
import type { LocalResult } from '../../shared/subgraph.ts';
import { priced } from '../admit.ts';
import type { CostOptions } from '../cost.ts';
import type { Operation } from '../operation.ts';
import type { SubgraphTransport } from '../transports/transport.ts';

/** What a joined plan is held to, the same for every plan of a gateway. */
export interface JoinedPlanOptions {
  /** The cost the requests of one operation may add up to (the runtime's demand control). */
  maxCost: number;
  /** The fields one subgraph request may resolve (its response budget). */
  maxFields: number;
  /** The most the planner adds to an object of a request: its `__typename` and an entity's keys. */
  addedPerObject: number;
}

/** The variable the `_entities` request takes its representations in (an operation defining it is not joined). */
export const REPRESENTATIONS = 'assetqlRepresentations';
/** Prices a plan's requests never below the runtime's demand control (see `CostOptions`). */
const AS_THE_RUNTIME: CostOptions = { listsAtLeastOne: true };

/** A request of a plan: its subgraph and operation (a record of the plan's own), and the client's variables it uses. */
export interface PlannedRequest {
  subgraph: SubgraphTransport;
  operation: Operation;
  variables: readonly string[];
}

/** The entity request of a plan: where its entities are in the root's answer, and what it asks of them. */
export interface EntityFetch extends PlannedRequest {
  typename: string;
  /** Response keys from the root to the field whose value holds the entities (lists walked through). */
  path: readonly string[];
  /** The entity's key fields, asked of the root by their names. */
  keys: readonly string[];
  /** The entity's selection in the client's order: which response keys the fetch supplies. */
  order: readonly { key: string; foreign: boolean }[];
}

/** Why a request of a joined operation is left to the planner. */
export type Declined =
  /** Its requests would cost more together than the cost rule allows (the planner refuses it). */
  | 'cost'
  /** A request of it answered errors (the planner shapes a joined operation's errors). */
  | 'errors'
  /** Its answer may not fit the response budget the planner's requests are held to. */
  | 'budget'
  /** An answer is not of the shape the plan expects (an entity without its keys, or missing). */
  | 'shape';

/** A joined request's outcome: its answer, or why the planner must answer it. */
export type JoinedOutcome = { result: ExecutionResult } | { declined: Declined };

/** Sends one request of a plan to its subgraph, as the gateway sends every direct request. */
export type SendRequest = (
  subgraph: SubgraphTransport,
  operation: Operation,
  variables: Readonly<Record<string, unknown>>,
) => Promise<LocalResult>;

/** The joined form of one operation, made once (joined-plan.ts) and run for each request of it. */
export class JoinedPlan {
  readonly root: PlannedRequest;
  readonly fetch: EntityFetch;
  readonly options: JoinedPlanOptions;

  constructor(root: PlannedRequest, fetch: EntityFetch, options: JoinedPlanOptions) {
    this.root = root;
    this.fetch = fetch;
    this.options = options;
  }

  /**
   * The operation's answer from its two requests, or why this request is declined: its root
   * request priced first (one the cost rule refuses is not run only to be declined after), then
   * run, its entities' keys gathered and fetched in one request, priced with it, and their fields
   * put back where the client asked for them, in the client's order.
   */
  async run(variables: Readonly<Record<string, unknown>>, send: SendRequest): Promise<JoinedOutcome> {
    const { root, fetch, options } = this;
    const rootVariables = only(variables, root.variables);
    let cost = priced(root.subgraph.schema, root.operation, rootVariables, AS_THE_RUNTIME);
    if (cost > options.maxCost) return { declined: 'cost' };
    const first = await send(root.subgraph, root.operation, rootVariables);
    if (first.result.errors?.length || first.result.extensions?.http) return { declined: 'errors' };
    const data = first.result.data as Record<string, unknown> | null | undefined;
    if (!data || typeof data !== 'object') return { declined: 'shape' };
    if (!withinBudget(data, options)) return { declined: 'budget' };

    const at: Holder[] = [];
    if (!holders({ data }, 'data', fetch.path, 0, at)) return { declined: 'shape' };
    if (at.length === 0) return { result: { data } };
    const representations: Record<string, unknown>[] = [];
    for (const [holder, key] of at) {
      const entity = holder[key] as Record<string, unknown>;
      const representation: Record<string, unknown> = { __typename: fetch.typename };
      for (const k of fetch.keys) {
        const value = Object.hasOwn(entity, k) ? entity[k] : undefined;
        if (value === null || value === undefined) return { declined: 'shape' };
        representation[k] = value;
      }
      representations.push(representation);
    }
    const fetchVariables = { ...only(variables, fetch.variables), [REPRESENTATIONS]: representations };
    cost += priced(fetch.subgraph.schema, fetch.operation, fetchVariables, AS_THE_RUNTIME);
    if (cost > options.maxCost) return { declined: 'cost' };
    const { result } = await send(fetch.subgraph, fetch.operation, fetchVariables);
    if (result.errors?.length || result.extensions?.http) return { declined: 'errors' };
    const entities = (result.data as { _entities?: unknown } | null | undefined)?._entities;
    if (!Array.isArray(entities) || entities.length !== at.length) return { declined: 'shape' };
    if (!withinBudget(entities, options)) return { declined: 'budget' };
    for (let i = 0; i < at.length; i++) {
      const [holder, key] = at[i]!;
      const own = holder[key] as Record<string, unknown>;
      const added = entities[i] as Record<string, unknown> | null;
      if (!added || typeof added !== 'object') return { declined: 'shape' };
      // Rebuilt in the client's order, without what the join added to the root's request.
      const joined: Record<string, unknown> = {};
      for (const { key: k, foreign } of fetch.order) {
        const from = foreign ? added : own;
        if (!Object.hasOwn(from, k)) return { declined: 'shape' };
        joined[k] = from[k];
      }
      holder[key] = joined;
    }
    return { result: { data } };
  }
}

/**
 * Whether the planner's request for this answer surely fits its response budget too. The planner
 * asks what the join asks and may add, to any object of the answer, its `__typename` and an
 * entity's key fields; every key of every object here is a field resolved (and the keys inside a
 * JSON scalar's value count too: more, never fewer). Near the limit the planner decides, and
 * refuses as it refuses.
 */
function withinBudget(answer: unknown, options: JoinedPlanOptions): boolean {
  let fields = 0;
  const pending: unknown[] = [answer];
  while (pending.length) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    fields += options.addedPerObject;
    for (const key in value) {
      fields++;
      const child = (value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') pending.push(child);
    }
    if (fields > options.maxFields) return false;
  }
  return true;
}

/** The variables `names` of the request's, left out where the request leaves them out. */
function only(
  variables: Readonly<Record<string, unknown>>,
  names: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(variables, name)) out[name] = variables[name];
  return out;
}

/** Where a value sits: the object or list holding it, and its key there. */
type Holder = [Record<string | number, unknown>, string | number];

/**
 * Collects where the objects at `path` below `holder[key]` are (lists walked through, nulls
 * skipped) into `out`; false when something there is not what the plan expects (a scalar or
 * nothing where an object should be).
 */
function holders(
  holder: Record<string | number, unknown>,
  key: string | number,
  path: readonly string[],
  depth: number,
  out: Holder[],
): boolean {
  const value = holder[key];
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      if (!holders(value as unknown as Record<number, unknown>, i, path, depth, out)) return false;
    return true;
  }
  if (typeof value !== 'object' || value === undefined) return false;
  if (depth === path.length) {
    out.push([holder, key]);
    return true;
  }
  return holders(value as Record<string, unknown>, path[depth]!, path, depth + 1, out);
}
