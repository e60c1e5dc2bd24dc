import { buildSubgraphSchema } from '@apollo/subgraph';
import {
  type ASTNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  GraphQLError,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  specifiedRules,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { Pool } from 'undici';
import { upstreamTimedOut } from '../../shared/errors.ts';
import {
  IDENTITY_HEADER,
  type Identity,
  REQUEST_ID_HEADER,
  receivedIdentity,
} from '../../shared/identity.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import { PerOperation } from '../../shared/per-operation.ts';
import type { PreparedContext, PreparedOperations } from '../../shared/prepared-operations.ts';
import { SESSION_HEADER } from '../../shared/session-policy.ts';
import type { LocalResult, Subgraph } from '../../shared/subgraph.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';
import type { IdentityContext } from './use-session-identity.ts';
import { fromSubgraph } from './use-subgraph-errors.ts';

export interface DirectExecutionOptions {
  /** The subgraphs, each in this process or reached over HTTP ({@link inProcessSubgraph}, {@link remoteSubgraph}). */
  subgraphs: readonly DirectSubgraph[];
  /** Hands on what a subgraph put on its answer for the client (a session change). */
  relayHeaders(subgraph: string, headers: Headers, context: Partial<IdentityContext>): void;
  /** Where each subgraph request's time and outcome go @default NO_METRICS */
  metrics?: Metrics;
  /**
   * With tracing on: runs each subgraph call in a span, and hands it the trace context headers
   * for a subgraph reached over HTTP (src/observability/tracing.ts).
   */
  traceSubgraphCall?: <T>(
    subgraph: string,
    run: (headers: Record<string, string>) => Promise<T>,
  ) => Promise<T>;
}

/**
 * An operation one subgraph answers alone ({@link DirectPlanner}) goes to it whole, unplanned,
 * after the supergraph's validation and the document limits: executed in process, or sent as it
 * is over HTTP. With `joined`, a query one subgraph answers but for fields others add to its
 * entities is executed as those direct requests (gateway/joined-operations.ts), and left to the
 * planner when that declines it. One that was answered so is noted in `prepared`, when given,
 * to be answered again without the runtime's pipeline (use-prepared-operations.ts); a result the
 * prepared path made but hands back to the pipeline (it has errors) is shown here, not made again,
 * and an operation it declined to join goes to the planner.
 */
export function useDirectExecution(
  options: DirectExecutionOptions & {
    prepared?: PreparedOperations<DirectTarget>;
    joined?: { plan(document: DocumentNode, operationName?: string | null): JoinedTarget | null };
  },
): Plugin<CorrelationContext & IdentityContext & PreparedContext & JoinedContext> {
  const planner = new DirectPlanner(options.subgraphs);
  return {
    onExecute({ args, setExecuteFn, executeFn }) {
      const subgraph = planner.plan(args.document, args.operationName);
      if (!subgraph) {
        const joined = options.joined?.plan(args.document, args.operationName);
        if (joined) setExecuteFn(joinedExecution(joined, executeFn, options.prepared));
        return;
      }
      setExecuteFn(async (a) => {
        const context = a.contextValue as CorrelationContext & IdentityContext & PreparedContext;
        const handed = context.preparedResult;
        if (handed) {
          context.preparedResult = undefined;
          return shownResult(handed, subgraph.name);
        }
        // Variables are coerced here, as the planned form does: a bad one is a request error
        // located in the client's document, whichever process would have run the operation.
        const operation = getOperationAST(a.document, a.operationName);
        const coerced = getVariableValues(
          a.schema,
          operation?.variableDefinitions ?? [],
          (a.variableValues ?? {}) as Record<string, unknown>,
        );
        if (coerced.errors) return { errors: coerced.errors };
        const { result } = await runDirect(
          subgraph,
          {
            document: a.document,
            operationName: a.operationName,
            variableValues: a.variableValues as Record<string, unknown> | null | undefined,
            // Coerced above, against the supergraph (LocalOperation.variablesCoerced).
            variablesCoerced: true,
          },
          context,
          options,
        );
        options.prepared?.record(a.document, a.operationName, subgraph, a.schema);
        return shownResult(result, subgraph.name);
      });
    },
  };
}

/** An operation answered by several direct requests joined (gateway/joined-operations.ts). */
export interface JoinedTarget {
  /** The answer, or undefined when this request is left to the planner. */
  run(
    variables: Record<string, unknown> | null | undefined,
    context: CorrelationContext & IdentityContext,
  ): Promise<ExecutionResult | undefined>;
}

/** A join the prepared path declined for this request: the pipeline executes it by the planner, not joined again. */
export interface JoinedContext {
  joinedDeclined?: boolean;
}

/** What the prepared path answers again: a subgraph's whole operation, or a joined one. */
export type DirectTarget = DirectSubgraph | JoinedTarget;

export function isJoined(target: DirectTarget): target is JoinedTarget {
  return 'run' in target;
}

/**
 * Executes a joined operation, or hands it to the runtime's own execution (`planned`) when the
 * join declines it, its variables do not coerce (the planner reports them), or the prepared path
 * declined it already.
 */
function joinedExecution(
  joined: JoinedTarget,
  planned: (args: ExecutionArgs) => unknown,
  prepared: PreparedOperations<DirectTarget> | undefined,
) {
  return async (a: ExecutionArgs) => {
    const context = a.contextValue as CorrelationContext & IdentityContext & JoinedContext;
    if (context.joinedDeclined) {
      context.joinedDeclined = false;
      return planned(a);
    }
    const operation = getOperationAST(a.document, a.operationName);
    const variables = (a.variableValues ?? {}) as Record<string, unknown>;
    if (getVariableValues(a.schema, operation?.variableDefinitions ?? [], variables).errors)
      return planned(a);
    const result = await joined.run(variables, context);
    if (!result) return planned(a);
    prepared?.record(a.document, a.operationName, joined, a.schema);
    return result;
  };
}

/**
 * Runs an operation on the subgraph that answers it alone, as direct execution and prepared
 * operations both do: in a span when tracing is on, timed for the metrics, and with the session
 * changes it makes relayed to the client.
 */
export async function runDirect(
  subgraph: DirectSubgraph,
  operation: Pick<DirectOperation, 'document' | 'operationName' | 'variableValues' | 'variablesCoerced'>,
  context: CorrelationContext & IdentityContext,
  options: Pick<DirectExecutionOptions, 'relayHeaders' | 'metrics' | 'traceSubgraphCall'>,
): Promise<LocalResult> {
  const start = performance.now();
  const call = (traceHeaders?: Record<string, string>) =>
    subgraph.execute({
      ...operation,
      identity: context.identity,
      signedIdentity: context.signedIdentity,
      requestId: context.requestId,
      traceHeaders,
    });
  const local = await (options.traceSubgraphCall ? options.traceSubgraphCall(subgraph.name, call) : call());
  (options.metrics ?? NO_METRICS).subgraphRequest(
    subgraph.name,
    local.result.errors?.length ? 'error' : 'ok',
    (performance.now() - start) / 1000,
  );
  options.relayHeaders(subgraph.name, local.responseHeaders, context);
  return local;
}

/**
 * A subgraph's result as the planned form shows it: errors named with the subgraph, field errors
 * without locations (there they would point into the subgraph's query, so the router drops them).
 */
function shownResult(result: ExecutionResult, subgraph: string): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((e) =>
    fromSubgraph(
      e.path
        ? new GraphQLError(e.message, {
            path: e.path,
            originalError: e.originalError,
            extensions: { ...e.extensions },
          })
        : e,
      subgraph,
    ),
  );
  return { ...result, errors };
}

/** What planning needs of a subgraph: its name, SDL and schema. */
export type PlannableSubgraph = Pick<Subgraph, 'name' | 'typeDefs' | 'schema'>;

/**
 * Which subgraph can answer an operation on its own, if any.
 *
 * Most operations touch one subgraph only (a page of assets, the session, a mutation). The
 * gateway then hands the whole document to that subgraph — executed against its schema in the
 * single process, or sent as it is over HTTP in the distributed form — instead of planning it,
 * rewriting it into subgraph queries and walking the answer once more to merge it. The answer
 * is the same as through the query planner, because the operation is resolved by the same
 * resolvers in both cases; what is saved is only the work in between.
 *
 * An operation qualifies for subgraph S when, besides having passed the supergraph's
 * validation, it
 * - is valid against S's own schema (every field, argument, type condition and enum value it
 *   uses exists in S), so no other subgraph contributes a field;
 * - selects no field S marks `@external` (S may not resolve those) and none that `@requires`
 *   or `@provides` (the planner would fetch or trust other subgraphs' data for them);
 * - introspects nothing but `__typename` (`__schema`/`__type` must describe the supergraph,
 *   not S with its `_entities`), and is not a subscription or deferred/streamed.
 *
 * The decision depends only on the document, so it is made once per parsed document (the
 * gateway's parser cache hands back the same DocumentNode for the same query text).
 */
export class DirectPlanner<S extends PlannableSubgraph = PlannableSubgraph> {
  readonly #subgraphs: readonly PlannedSubgraph<S>[];
  readonly #plans = new PerOperation<S | null>();

  constructor(subgraphs: readonly S[]) {
    this.#subgraphs = subgraphs.map((subgraph) => ({
      subgraph,
      unsafe: fieldsResolvedElsewhere(subgraph.typeDefs),
      typeInfo: new TypeInfo(subgraph.schema),
    }));
  }

  /** The subgraph that answers the whole operation alone, or null to plan it across subgraphs. */
  plan(document: DocumentNode, operationName?: string | null): S | null {
    return this.#plans.get(document, operationName, () => this.#decide(document, operationName));
  }

  #decide(document: DocumentNode, operationName?: string | null): S | null {
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation === 'subscription') return null;
    // Only the operation that runs counts: other operations of the document may need others.
    const alone = operationAlone(document, operation);
    for (const candidate of this.#subgraphs) {
      if (validate(candidate.subgraph.schema, alone, specifiedRules).length > 0) continue;
      if (selectsAnythingUnsafe(alone, candidate)) continue;
      return candidate.subgraph;
    }
    return null;
  }
}

/** A document of the operation and the fragments it spreads, directly or through others. */
export function operationAlone(document: DocumentNode, operation: OperationDefinitionNode): DocumentNode {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: ASTNode[] = [operation];
  while (pending.length) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const fragment = fragments.get(node.name.value);
        if (fragment && !used.has(node.name.value)) {
          used.set(node.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return { kind: Kind.DOCUMENT, definitions: [operation, ...used.values()] };
}

export interface PlannedSubgraph<S extends PlannableSubgraph> {
  subgraph: S;
  /** `Type.field` coordinates S does not resolve alone. */
  unsafe: ReadonlySet<string>;
  typeInfo: TypeInfo;
}

const NOT_ALONE = new Set(['external', 'requires', 'provides']);
const NOT_LOCAL_DIRECTIVES = new Set(['defer', 'stream']);

/** Fields of the subgraph's SDL marked `@external`, `@requires` or `@provides`. */
export function fieldsResolvedElsewhere(typeDefs: string): Set<string> {
  const found = new Set<string>();
  for (const definition of parse(typeDefs).definitions) {
    if (
      definition.kind !== Kind.OBJECT_TYPE_DEFINITION &&
      definition.kind !== Kind.OBJECT_TYPE_EXTENSION &&
      definition.kind !== Kind.INTERFACE_TYPE_DEFINITION &&
      definition.kind !== Kind.INTERFACE_TYPE_EXTENSION
    ) {
      continue;
    }
    const typeExternal = definition.directives?.some((d) => d.name.value === 'external') ?? false;
    for (const field of definition.fields ?? []) {
      if (typeExternal || field.directives?.some((d) => NOT_ALONE.has(d.name.value))) {
        found.add(`${definition.name.value}.${field.name.value}`);
      }
    }
  }
  return found;
}

export function selectsAnythingUnsafe(
  document: DocumentNode,
  candidate: PlannedSubgraph<PlannableSubgraph>,
): boolean {
  let unsafe = false;
  const { typeInfo } = candidate;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const name = node.name.value;
        const parent = typeInfo.getParentType();
        if (
          name === '__schema' ||
          name === '__type' ||
          (parent && candidate.unsafe.has(`${parent.name}.${name}`))
        ) {
          unsafe = true;
        }
      },
      Directive(node) {
        if (NOT_LOCAL_DIRECTIVES.has(node.name.value)) unsafe = true;
      },
    }),
  );
  return unsafe;
}

/** One operation handed whole to a subgraph, with what the gateway knows of the caller. */
export interface DirectOperation {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  identity: Identity;
  /** The same identity signed, for a subgraph reached over HTTP (signed when asked for). */
  signedIdentity(): string;
  requestId: string;
  /** W3C trace context to send a subgraph reached over HTTP, when tracing is on. */
  traceHeaders?: Record<string, string>;
  /** False for a document made for this request only (a planner's): not worth compiling. */
  reused?: boolean;
  /** Coerced against the supergraph by the caller (LocalOperation.variablesCoerced). */
  variablesCoerced?: boolean;
}

/** A subgraph the gateway can hand whole operations to. */
export interface DirectSubgraph extends PlannableSubgraph {
  execute(operation: DirectOperation): Promise<LocalResult>;
  /** Lets go of what it holds (a remote subgraph's connections). */
  close?(): Promise<void>;
}

/** A subgraph in this process: executed against its schema, no HTTP, no identity token. */
export function inProcessSubgraph(subgraph: Subgraph): DirectSubgraph {
  return {
    name: subgraph.name,
    typeDefs: subgraph.typeDefs,
    schema: subgraph.schema,
    execute: ({ identity, signedIdentity: _, traceHeaders: __, ...operation }) =>
      subgraph.executeLocally({
        ...operation,
        // As the subgraph reads it from the signed header: empty strings are absent.
        identity: receivedIdentity(identity),
      }),
  };
}

/**
 * A subgraph served by another process: the operation is sent to it as the client wrote it, with
 * the signed identity and the correlation id, and its answer is the operation's answer. Only the
 * operation and the fragments it spreads are sent (printed once per operation): the document's
 * other operations may select what this subgraph does not have, and would fail its validation.
 * Failing to reach it is reported as the planner reports it (`SUBREQUEST_HTTP_ERROR`, which the
 * gateway turns into SERVICE_UNAVAILABLE). Errors come back as the subgraph wrote them; the
 * plugin names the subgraph on them.
 */
export function remoteSubgraph(
  definition: { name: string; typeDefs: string; url: string },
  /** The upstream timeout, as the runtime applies to planned requests (docs/security.md). */
  timeoutMs?: number,
): DirectSubgraph {
  const printed = new PerOperation<string>();
  const unavailable = (reason: string): LocalResult => ({
    result: {
      data: null,
      errors: [new GraphQLError(reason, { extensions: { code: 'SUBREQUEST_HTTP_ERROR' } })],
    },
    responseHeaders: new Headers(),
  });
  // One pool of keep-alive connections per subgraph, through undici's request API: the fetch API
  // over the same client cost the gateway several times more per request (Request, Headers and
  // stream objects for every call).
  const target = new URL(definition.url);
  const pool = new Pool(target.origin);
  const path = `${target.pathname}${target.search}`;
  return {
    name: definition.name,
    typeDefs: definition.typeDefs,
    schema: buildSubgraphSchema({ typeDefs: parse(definition.typeDefs) }),
    async execute(operation) {
      const query = printed.get(operation.document, operation.operationName, () => {
        const chosen = getOperationAST(operation.document, operation.operationName);
        return print(chosen ? operationAlone(operation.document, chosen) : operation.document);
      });
      const headers: Record<string, string> = {
        ...operation.traceHeaders,
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        [REQUEST_ID_HEADER]: operation.requestId,
      };
      headers[IDENTITY_HEADER] = operation.signedIdentity();
      let status: number;
      let responseHeaders: Headers;
      let text: string;
      let body: ExecutionResult;
      // The whole exchange, answer's body included, within the timeout: one timer, cleared when
      // it is over (AbortSignal.timeout would also register every signal for finalisation).
      let timer: NodeJS.Timeout | undefined;
      let signal: AbortSignal | undefined;
      if (timeoutMs) {
        const controller = new AbortController();
        timer = setTimeout(
          () => controller.abort(new DOMException('The upstream timed out', 'TimeoutError')),
          timeoutMs,
        );
        signal = controller.signal;
      }
      try {
        const response = await pool.request({
          path,
          method: 'POST',
          headers,
          body: JSON.stringify({
            query,
            operationName: operation.operationName ?? undefined,
            variables: operation.variableValues ?? undefined,
          }),
          ...(signal ? { signal } : {}),
        });
        status = response.statusCode;
        responseHeaders = relayable(response.headers);
        text = await response.body.text();
        if (status >= 200 && status < 300 && text.startsWith('{"data":') && !text.includes('"errors":')) {
          // No errors (looked for anywhere, not trusted to come first): the subgraph's JSON is
          // the answer as it stands, so it is passed on as text and parsed only if someone reads
          // it. A property named `errors` somewhere in the data only costs the parse.
          return { result: passedOn(text), responseHeaders };
        }
        body = JSON.parse(text) as ExecutionResult;
      } catch (e) {
        if ((e as Error).name === 'TimeoutError')
          return { result: { data: null, errors: [upstreamTimedOut()] }, responseHeaders: new Headers() };
        return unavailable((e as Error).message);
      } finally {
        clearTimeout(timer);
      }
      if (!body || typeof body !== 'object' || (!('data' in body) && !body.errors)) {
        return unavailable(`unexpected answer with status ${status}`);
      }
      // A request error (no `data`, status 400: variables that do not coerce, a limit) is the
      // client's, as executeLocally marks it in one process: answered 400 by this gateway too,
      // not 200 (Yoga writes the status, not the `http` extension that set it).
      const refused = status === 400 && !('data' in body);
      const errors = body.errors?.map(
        (e) =>
          new GraphQLError(e.message, {
            path: e.path,
            extensions: { ...e.extensions, ...(refused ? { http: { status: 400 } } : {}) },
          }),
      );
      return {
        result: { ...body, ...(errors ? { errors } : {}) },
        responseHeaders,
      };
    },
    close: () => pool.close(),
  };
}

/** What of a subgraph's answer headers may reach the client: a session change (the session cookie and header). */
function relayable(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const name of ['set-cookie', SESSION_HEADER]) {
    const value = raw[name];
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** The subgraph's JSON text of a {@link passedOn} answer, and the answer parsed once asked for. */
const TEXT = Symbol('text');
const PARSED = Symbol('parsed');
type PassedOn = ExecutionResult & { [TEXT]: string; [PARSED]?: ExecutionResult };

/**
 * An answer kept as the subgraph's JSON text: Yoga writes `stringify(result)`, `data` parses on
 * demand. The getter and the serialiser are shared functions, not closures over each answer's
 * text: with an accessor made for each answer, the text outlived the request to be collected only
 * by a full collection, 17 kB a page of 100 wells (docs/performance.md, "Rows that outlived their
 * statement").
 */
function passedOn(text: string): ExecutionResult {
  const result = { [TEXT]: text, stringify: passedOnText } as PassedOn;
  Object.defineProperty(result, 'data', { enumerable: true, get: passedOnData });
  return result;
}

function passedOnText(result: PassedOn): string {
  return result[TEXT];
}

function passedOnData(this: PassedOn): ExecutionResult['data'] {
  this[PARSED] ??= JSON.parse(this[TEXT]) as ExecutionResult;
  return this[PARSED].data;
}
