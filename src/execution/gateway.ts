import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  type ExecutionResult,
  type FragmentDefinitionNode,
  GraphQLError,
  GraphQLScalarType,
  type GraphQLSchema,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { DocumentLimits } from '../config/index.ts';
import { ClientGoneError, upstreamTimedOut } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { type Metrics, NO_METRICS } from '../shared/metrics.ts';
import { SPEC_SCALARS } from '../shared/scalars.ts';
import type { LocalResult } from '../shared/subgraph.ts';
import { type Admission, type Admitted, type Asked, admit, type Place } from './admit.ts';
import type { LimitName } from './document-limits.ts';
import { Fact, type Operation, Operations } from './operation.ts';
import { DirectRoutes } from './routes/direct.ts';
import { JoinedRoutes } from './routes/joined-plan.ts';
import type { JoinedPlan } from './routes/joined-run.ts';
import { ARGUMENT_ERROR, shapeResult } from './shape.ts';
import type { Caller, SubgraphTransport } from './transports/transport.ts';

/**
 * How the gateway answers an operation: whole by the one subgraph that answers it alone
 * (`direct`), by that subgraph and one entity fetch joined (`joined`), or by the runtime's query
 * planner (`planned`). Decided once per operation, a fact of its record.
 */
export type Route =
  | { kind: 'direct'; subgraph: SubgraphTransport }
  | { kind: 'joined'; plan: JoinedPlan }
  | { kind: 'planned' };

const PLANNED: Route = { kind: 'planned' };
const ROUTE = new Fact<Route>('route');

/** What an answer is when a joined route declines the request and no planner was given to fall back on. */
export const DECLINED = Symbol('declined');

export interface GatewayExecutionOptions<C extends Caller> {
  /** Every subgraph, in this process or over HTTP: where direct and joined routes go. */
  subgraphs: readonly SubgraphTransport[];
  /** Send an operation one subgraph answers alone to it whole (`ASSETQL_DIRECT_EXECUTION`). */
  direct: boolean;
  /** Join an operation from direct requests where it can be (`ASSETQL_JOINED_OPERATIONS`). */
  joined: boolean;
  documentLimits: DocumentLimits;
  maxStringLength: number;
  introspection: boolean;
  /** How long a subgraph request may take before it is answered `GATEWAY_TIMEOUT`; 0: no bound. */
  upstreamTimeoutMs: number;
  /** Hands on what a subgraph put on its answer for the client (a session change). */
  relayHeaders(subgraph: string, headers: Headers, caller: C): void;
  /** Runs each subgraph request in a span of its own, with the trace context to send (tracing on). */
  traceSubgraphCall?: <T>(
    subgraph: string,
    run: (headers: Record<string, string>) => Promise<T>,
  ) => Promise<T>;
  metrics?: Metrics;
  log: Logger;
}

/**
 * The gateway's place in execution (src/execution/README.md): every operation it answers, by
 * whichever door it came in (its HTTP fast door, or the runtime's pipeline), is admitted by
 * {@link admit} and answered by {@link answer} on the route decided once for it.
 */
export class GatewayExecution<C extends Caller = Caller> {
  /** Everything worked out about the gateway's operations, kept with their parsed documents. */
  readonly operations = new Operations();
  readonly #options: GatewayExecutionOptions<C>;
  readonly #direct: DirectRoutes<SubgraphTransport> | undefined;
  readonly #joined: JoinedRoutes | undefined;
  readonly #metrics: Metrics;
  #place: Place | undefined;

  constructor(options: GatewayExecutionOptions<C>) {
    this.#options = options;
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#direct = options.direct ? new DirectRoutes(options.subgraphs) : undefined;
    this.#joined =
      options.direct && options.joined
        ? new JoinedRoutes(options.subgraphs, {
            maxCost: options.documentLimits.maxCost,
            maxFields: options.documentLimits.maxFields,
          })
        : undefined;
  }

  /**
   * Learns the supergraph's schema from the runtime, once: variables are coerced to it with the
   * specification's scalars, which the runtime's own schema does not parse.
   */
  learn(runtimeSchema: GraphQLSchema): void {
    if (this.#place?.schema && this.#learnedFrom === runtimeSchema) return;
    this.#learnedFrom = runtimeSchema;
    const { documentLimits } = this.#options;
    this.#place = {
      schema: withSpecScalars(runtimeSchema),
      documentLimits,
      inputLimits: {
        maxStringLength: this.#options.maxStringLength,
        maxListLength: documentLimits.maxListLength,
      },
      introspection: this.#options.introspection,
      prices: false,
      refused: (limit: LimitName) => this.#metrics.refusal('document_limit', limit),
    };
  }
  #learnedFrom: GraphQLSchema | undefined;

  /** The route of an operation, decided the first time it is asked for. */
  route(operation: Operation): Route {
    return operation.get(ROUTE, () => {
      if (!operation.definition) return PLANNED;
      // A subscription goes direct only to a subgraph that streams it itself (in this process).
      const subgraph = this.#direct?.decide(operation);
      if (operation.type === 'subscription') return subgraph ? { kind: 'direct', subgraph } : PLANNED;
      if (subgraph) return { kind: 'direct', subgraph };
      const plan = this.#joined?.decide(operation);
      return plan ? { kind: 'joined', plan } : PLANNED;
    });
  }

  /** The checks every request gets at the gateway before its operation runs (admit.ts). */
  admit(operation: Operation, asked: Asked): Admission {
    if (!this.#place) throw new Error('the gateway admits nothing before it has learnt its schema');
    return admit(this.#place, operation, asked);
  }

  /**
   * Answers an admitted operation on its route, shaped for the client (shape.ts). A joined route
   * that declines the request falls back on `planned` (the runtime's executor) when given; without
   * it (the fast door, outside the runtime's pipeline), {@link DECLINED} is answered and the door
   * hands the request to the pipeline, which plans it.
   */
  async answer(
    operation: Operation,
    admitted: Admitted,
    caller: C,
    planned?: () => Promise<ExecutionResult>,
    signal?: AbortSignal,
  ): Promise<ExecutionResult | typeof DECLINED> {
    const route = this.route(operation);
    let result: ExecutionResult;
    if (route.kind === 'direct') {
      const local = await this.#send(route.subgraph, operation, admitted.variables, caller, signal);
      result = named(unreachedAsPlanned(local.result, operation), route.subgraph.name);
    } else if (route.kind === 'joined') {
      const outcome = await route.plan.run(admitted.variables, (subgraph, op, variables) =>
        this.#send(subgraph, op, variables, caller, signal),
      );
      if ('declined' in outcome) {
        this.#metrics.joinedOperation('declined', outcome.declined);
        this.#options.log.debug(
          { requestId: caller.requestId, operation: operation.name, reason: outcome.declined },
          'joined operation declined: planned instead',
        );
        if (!planned) return DECLINED;
        result = await planned();
      } else {
        this.#metrics.joinedOperation('answered');
        result = outcome.result;
      }
    } else {
      if (!planned) throw new Error('a planned operation is answered by the runtime’s pipeline only');
      result = await planned();
    }
    return this.shape(result, operation, caller);
  }

  /**
   * Runs an admitted subscription on the direct route: the subgraph streams it whole (in this
   * process, no planner between), each event shaped for the client as a result of its own.
   */
  async subscribe(
    operation: Operation,
    admitted: Admitted,
    caller: C,
    options: { signal?: AbortSignal; lastEventId?: string | null },
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const route = this.route(operation);
    if (route.kind !== 'direct' || !route.subgraph.subscribe)
      throw new Error('a subscription is streamed on the direct route only');
    const name = route.subgraph.name;
    const events = await route.subgraph.subscribe({
      operation,
      variables: admitted.variables,
      caller,
      ...(options.signal ? { signal: options.signal } : {}),
      lastEventId: options.lastEventId ?? null,
    });
    if (!(Symbol.asyncIterator in events)) return this.shape(named(events, name), operation, caller);
    const shaped: AsyncIterableIterator<ExecutionResult> = {
      [Symbol.asyncIterator]: () => shaped,
      next: async () => {
        const event = await events.next();
        return event.done
          ? event
          : { done: false, value: this.shape(named(event.value, name), operation, caller) };
      },
      return: async () => (await events.return?.()) ?? { done: true, value: undefined },
    };
    return shaped;
  }

  /** A result (or a refusal) as the client gets it from the gateway (shape.ts). */
  shape(
    result: ExecutionResult,
    operation: Operation | null,
    caller: Pick<Caller, 'requestId'>,
  ): ExecutionResult {
    const { documentLimits, log } = this.#options;
    return shapeResult(result, operation, caller.requestId, {
      maxCost: documentLimits.maxCost,
      maxErrors: documentLimits.maxErrors,
      log,
      refused: (limit) => this.#metrics.refusal('document_limit', limit),
    });
  }

  /**
   * One request to a subgraph, as the direct and joined routes send them: in a span when tracing
   * is on, within the upstream timeout (a subgraph in this process too: it stops resolving, and
   * the client is answered `GATEWAY_TIMEOUT` at once), stopped when the client goes, timed for the
   * metrics, and with the session changes it makes relayed to the client.
   */
  async #send(
    subgraph: SubgraphTransport,
    operation: Operation,
    variables: Readonly<Record<string, unknown>>,
    caller: C,
    clientSignal: AbortSignal | undefined,
  ): Promise<LocalResult> {
    const { upstreamTimeoutMs, traceSubgraphCall, relayHeaders } = this.#options;
    clientSignal?.throwIfAborted();
    const start = performance.now();
    // One timer and one listener, cleared when the request is over (AbortSignal.timeout and
    // AbortSignal.any would also register every signal for finalisation).
    const controller = new AbortController();
    const timer = upstreamTimeoutMs
      ? setTimeout(
          () => controller.abort(new DOMException('The upstream timed out', 'TimeoutError')),
          upstreamTimeoutMs,
        )
      : undefined;
    const gone = () => controller.abort(new ClientGoneError());
    clientSignal?.addEventListener('abort', gone, { once: true });
    try {
      const call = (traceHeaders?: Record<string, string>) =>
        untilAborted(
          subgraph.execute({ operation, variables, caller, traceHeaders, signal: controller.signal }),
          controller.signal,
        );
      const local = await (traceSubgraphCall ? traceSubgraphCall(subgraph.name, call) : call());
      this.#metrics.subgraphRequest(
        subgraph.name,
        local.result.errors?.length ? 'error' : 'ok',
        (performance.now() - start) / 1000,
      );
      relayHeaders(subgraph.name, local.responseHeaders, caller);
      return local;
    } finally {
      clearTimeout(timer);
      clientSignal?.removeEventListener('abort', gone);
    }
  }
}

/**
 * A subgraph not reached at all (unreachable, or not answering in time) as the planner answers it:
 * each of the operation's root fields null, with the error at its path, errors first.
 */
function unreachedAsPlanned(result: ExecutionResult, operation: Operation): ExecutionResult {
  const [error, ...more] = result.errors ?? [];
  const code = error?.extensions?.code;
  if (!error || more.length || error.path || result.data !== null) return result;
  if (code !== 'SUBREQUEST_HTTP_ERROR' && code !== 'GATEWAY_TIMEOUT') return result;
  const keys = rootKeys(operation);
  if (keys.length === 0) return result;
  const errors = keys.map(
    (key) =>
      new GraphQLError(error.message, {
        path: [key],
        originalError: error.originalError,
        extensions: error.extensions,
      }),
  );
  return { errors, data: Object.fromEntries(keys.map((key) => [key, null])) };
}

/** The response keys at an operation's root, in the client's order, fragments expanded, each once. */
function rootKeys(operation: Operation): string[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of operation.document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const keys = new Set<string>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value !== '__typename') keys.add((s.alias ?? s.name).value);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  if (operation.definition) walk(operation.definition.selectionSet);
  return [...keys];
}

/**
 * `work`'s outcome, or, once `signal` aborts first, the upstream timeout's answer (or the client's
 * departure, thrown): a subgraph in this process is not waited for past either.
 */
function untilAborted(work: Promise<LocalResult>, signal: AbortSignal): Promise<LocalResult> {
  return new Promise((resolve, reject) => {
    const aborted = () => {
      const reason = signal.reason as Error;
      if (reason?.name === 'TimeoutError')
        resolve({ result: { data: null, errors: [upstreamTimedOut()] }, responseHeaders: new Headers() });
      else reject(reason);
    };
    if (signal.aborted) return aborted();
    signal.addEventListener('abort', aborted, { once: true });
    const settled = () => signal.removeEventListener('abort', aborted);
    work.then(
      (local) => {
        settled();
        resolve(local);
      },
      (error: unknown) => {
        settled();
        reject(error);
      },
    );
  });
}

/**
 * A subgraph's errors named with it, in `extensions.serviceName` (Hive's convention); but for an
 * argument's refusal at execution, which the planned route makes at the gateway, unnamed.
 */
function named(result: ExecutionResult, subgraph: string): ExecutionResult {
  for (const error of result.errors ?? []) {
    if (ARGUMENT_ERROR.test(error.message)) continue;
    const shown = error as { extensions?: Record<string, unknown> };
    shown.extensions ??= {};
    shown.extensions.serviceName ||= subgraph;
  }
  return result;
}

/**
 * The runtime's schema with the specification's scalars (shared/scalars.ts) in place of its own,
 * which take any value: what a request's variables are coerced to at the gateway.
 */
function withSpecScalars(schema: GraphQLSchema): GraphQLSchema {
  const scalars: Record<string, GraphQLScalarType> = SPEC_SCALARS;
  return mapSchema(schema, {
    [MapperKind.SCALAR_TYPE]: (type) => {
      const spec = scalars[type.name];
      return spec ? new GraphQLScalarType({ ...spec.toConfig(), name: type.name }) : type;
    },
  });
}
