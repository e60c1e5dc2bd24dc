import {
  defaultFieldResolver,
  type FieldNode,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  isUnionType,
  Kind,
  type SelectionSetNode,
} from 'graphql';

/** The `extensions.code` of a request stopped for resolving too much (docs/security.md). */
export const RESPONSE_TOO_LARGE = 'RESPONSE_TOO_LARGE';

/**
 * How many fields a response resolves before it lets the event loop turn (I/O and other
 * requests' work first): a page of 1,000 assets with three fields each is produced in eight
 * slices, not in one stretch that every other tenant's request waits behind, while an ordinary
 * page of 100 never waits (docs/security.md#slices).
 */
export const SLICE_FIELDS = 500;

/** One turn of the event loop: whatever I/O and timers are due run first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What a request may resolve in all, counted while it runs. */
export interface BudgetLimits {
  /** Fields resolved for one request. */
  readonly maxFields: number;
  /** Related assets reached through `Asset.related` by one request. */
  readonly maxRelated: number;
  /** Errors in one response. */
  readonly maxErrors: number;
}

/**
 * The runtime bounds of one request, where a static estimate cannot see (the estimate assumes
 * the largest lists; this counts what the data really gives): fields resolved, related assets
 * reached, and errors. The first charge over a bound throws a typed error, and so does every
 * charge after it, so execution stops growing; {@link stoppedResult} then answers with that error
 * alone. Whoever runs the request may stop it the same way ({@link stop}): its time is up, or its
 * client has gone.
 */
export class ResponseBudget {
  #fields = 0;
  #related = 0;
  #errors = 0;
  #error: GraphQLError | undefined;
  /** Fields charged since the response last let the event loop turn. */
  #slice = 0;
  /** The turn that ends the latest slice, until it has passed. */
  #turn: Promise<void> | undefined;
  #turns = 0;

  readonly limits: BudgetLimits;
  readonly #sliceFields: number;

  constructor(limits: BudgetLimits, sliceFields = SLICE_FIELDS) {
    this.limits = limits;
    this.#sliceFields = sliceFields;
  }

  /** How many times this response has let the event loop turn. */
  get turns(): number {
    return this.#turns;
  }

  /**
   * What an object of `fields` selected fields waits for before they are resolved: the turn of
   * the event loop that ends the slice it falls in, if that turn has not passed. A slice is
   * `sliceFields` fields, counted as objects are handed to the executor (a list's items together,
   * before any of their fields is resolved); each turn is taken after the one before it has
   * passed, so a large list is resolved one slice per iteration of the loop, with I/O and other
   * requests' work in between.
   */
  pace(fields: number): Promise<void> | undefined {
    this.#slice += fields;
    if (this.#slice >= this.#sliceFields) {
      this.#slice = 0;
      const before = this.#turn;
      const turn: Promise<void> = (before ? before.then(nextTurn) : nextTurn()).then(() => {
        this.#turns += 1;
        if (this.#turn === turn) this.#turn = undefined;
      });
      this.#turn = turn;
    }
    return this.#turn;
  }

  /**
   * A list whose items each wait for the turn ending their slice ({@link pace}): the list itself
   * when none has to wait, else a copy whose waiting items are promises of themselves.
   */
  paceList<T>(list: readonly T[], fieldsPerItem: number): readonly (T | Promise<T>)[] {
    let paced: (T | Promise<T>)[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const item = list[i] as T;
      if (item === null || item === undefined) continue;
      const turn = this.pace(countItems(item) * fieldsPerItem);
      if (turn) {
        paced ??= list.slice();
        paced[i] = turn.then(() => item);
      }
    }
    return paced ?? list;
  }

  /** The error that stopped the request, if one did. */
  get error(): GraphQLError | undefined {
    return this.#error;
  }

  /** Whether `n` more fields fit in the bound (nothing is charged). */
  fits(n: number): boolean {
    return !this.#error && this.#fields + n <= this.limits.maxFields;
  }

  spendFields(n: number): void {
    this.#fields += n;
    if (this.#fields > this.limits.maxFields)
      this.#stop(
        'maxFields',
        this.limits.maxFields,
        `The response would have more than ${this.limits.maxFields} fields; ask for fewer items or fields.`,
      );
  }

  spendRelated(n: number): void {
    this.#related += n;
    if (this.#related > this.limits.maxRelated)
      this.#stop(
        'maxRelated',
        this.limits.maxRelated,
        `The request reaches more than ${this.limits.maxRelated} related assets; ask for fewer.`,
      );
  }

  /** Counts errors the response holds (a resolver's, as it fails). */
  spendErrors(n: number): void {
    this.#errors += n;
    if (this.#errors > this.limits.maxErrors)
      this.#stop('maxErrors', this.limits.maxErrors, tooManyErrors(this.limits.maxErrors).message);
  }

  /**
   * Stops the request from outside with `error` (its time is up, its client has gone): every charge
   * from now on throws it, so execution stops at the next object it resolves. The first stop holds.
   */
  stop(error: GraphQLError): void {
    this.#error ??= error;
  }

  #stop(limit: keyof BudgetLimits, maximum: number, message: string): never {
    this.#error ??= new GraphQLError(message, { extensions: { code: RESPONSE_TOO_LARGE, limit, maximum } });
    throw this.#error;
  }
}

/** The refusal of a response with more than `maximum` errors. */
export function tooManyErrors(maximum: number): GraphQLError {
  return new GraphQLError(
    `The response would have more than ${maximum} errors; ask for fewer items or fields, or fix the first.`,
    { extensions: { code: RESPONSE_TOO_LARGE, limit: 'maxErrors', maximum } },
  );
}

/**
 * A result with at most `maximum` errors: one with more is answered with that refusal alone, no
 * partial data, as a response its budget stopped (errors made where no resolver is wrapped, a
 * scalar's, are counted here, after the fact).
 */
export function boundedErrors<R extends { errors?: readonly unknown[] }>(
  result: R,
  maximum: number,
): R | { data: null; errors: GraphQLError[] } {
  return (result.errors?.length ?? 0) > maximum ? { data: null, errors: [tooManyErrors(maximum)] } : result;
}

/** The result of a request its budget stopped: the one typed error, no partial data. */
export function stoppedResult(budget: ResponseBudget | undefined) {
  return budget?.error ? { data: null, errors: [budget.error] } : undefined;
}

/**
 * Makes every field of `schema` that returns an object (or a list of them) charge its context's
 * {@link ResponseBudget} for the fields selected on what it resolved: one per selected field per
 * object, and hand the object on after a turn of the event loop when the response's running
 * slice is used up ({@link ResponseBudget.pace}). Scalar fields are counted by their parent, so
 * their resolution (graphql-jit inlines it) is untouched.
 *
 * So are fields that return one object (not a list) and have no resolver, such as a
 * connection's `edges { node }` or `pageInfo`: what they return is a property of an object already
 * charged, so their selections are charged with their parent's, by the nearest field that charges.
 * Wrapped in a resolver, each would have cost graphql-jit a resolve info and a response path per
 * row, for a property read.
 */
export function chargeFieldsResolved(schema: GraphQLSchema): void {
  const inline = new Set<string>();
  const selected = new SelectedFields(schema, inline);
  // A root field has no parent to be charged with.
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isCompositeType(getNamedType(field.type))) continue;
      if (!field.resolve && !roots.has(type) && !isListType(getNullableType(field.type))) {
        inline.add(`${type.name}.${field.name}`);
        continue;
      }
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        let value: unknown;
        try {
          value = resolve(source, args, context, info);
        } catch (e) {
          throw failed(e, context);
        }
        return value instanceof Promise
          ? value.then(
              (v) => charge(v, context, info, selected),
              (e) => {
                throw failed(e, context);
              },
            )
          : charge(value, context, info, selected);
      };
    }
  }
}

/**
 * A resolver's failure, counted as an error of the response: past the budget's `maxErrors`, the
 * budget's own error stops the request instead of one more error being made.
 */
function failed(error: unknown, context: unknown): unknown {
  const budget = (context as { budget?: ResponseBudget } | null)?.budget;
  if (!budget || error === budget.error) return error;
  try {
    budget.spendErrors(1);
  } catch (stopped) {
    return stopped;
  }
  return error;
}

function charge<T>(value: T, context: unknown, info: GraphQLResolveInfo, selected: SelectedFields): unknown {
  const budget = (context as { budget?: ResponseBudget } | null)?.budget;
  if (!budget || value === null || value === undefined) return value;
  if (budget.error) throw budget.error;
  const items = countItems(value);
  if (!items) return value;
  const fields = selected.of(info);
  budget.spendFields(items * fields);
  // A long response goes on after a turn of the event loop each time a slice is used up.
  if (Array.isArray(value)) return budget.paceList(value, fields);
  const turn = budget.pace(fields);
  return turn ? turn.then(() => value) : value;
}

/** Non-null items of a (nested) list, or 1 for an object. */
function countItems(value: unknown): number {
  if (!Array.isArray(value)) return 1;
  let n = 0;
  for (const item of value) n += item === null || item === undefined ? 0 : countItems(item);
  return n;
}

/**
 * The fields selected on each object a field resolves, through fragments (all branches: an upper
 * bound), and through the fields that charge nothing themselves ({@link chargeFieldsResolved}):
 * their selections are counted here, once per object of theirs (one per object of the parent's,
 * or none when it is null: an upper bound again).
 */
class SelectedFields {
  /** By field node and the type it returned there (an interface's field may return several). */
  readonly #cache = new WeakMap<FieldNode, Map<GraphQLCompositeType, number>>();
  readonly #schema: GraphQLSchema;
  /** `Type.field` coordinates whose selections their parent's charge counts. */
  readonly #inline: ReadonlySet<string>;

  constructor(schema: GraphQLSchema, inline: ReadonlySet<string>) {
    this.#schema = schema;
    this.#inline = inline;
  }

  of(info: GraphQLResolveInfo): number {
    const type = getNamedType(info.returnType) as GraphQLCompositeType;
    const [first] = info.fieldNodes;
    if (info.fieldNodes.length === 1 && first) {
      let byType = this.#cache.get(first);
      if (!byType) {
        byType = new Map();
        this.#cache.set(first, byType);
      }
      let n = byType.get(type);
      if (n === undefined) {
        n = this.#count(first.selectionSet, type, info, new Set());
        byType.set(type, n);
      }
      return n;
    }
    let n = 0;
    for (const node of info.fieldNodes) n += this.#count(node.selectionSet, type, info, new Set());
    return n;
  }

  /** `seen`: the fragments spread at this level, whose fields merge with the others. */
  #count(
    set: SelectionSetNode | undefined,
    type: GraphQLCompositeType | undefined,
    info: GraphQLResolveInfo,
    seen: Set<string>,
  ): number {
    let n = 0;
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) {
        n += 1;
        const inlined = s.selectionSet && type ? this.#inlined(type, s.name.value) : undefined;
        if (inlined) n += this.#count(s.selectionSet, inlined, info, new Set());
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        n += this.#count(s.selectionSet, this.#condition(s.typeCondition?.name.value) ?? type, info, seen);
      } else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = info.fragments[s.name.value];
        n += this.#count(
          fragment?.selectionSet,
          this.#condition(fragment?.typeCondition.name.value),
          info,
          seen,
        );
      }
    }
    return Math.max(n, 1);
  }

  #condition(name: string | undefined): GraphQLCompositeType | undefined {
    const t = name === undefined ? undefined : this.#schema.getType(name);
    return t && isCompositeType(t) ? t : undefined;
  }

  /**
   * The type of `type.name` when its selections are counted with its parent's: on an interface,
   * when any implementation's field is (an upper bound).
   */
  #inlined(type: GraphQLCompositeType, name: string): GraphQLCompositeType | undefined {
    if (isObjectType(type)) {
      if (!this.#inline.has(`${type.name}.${name}`)) return undefined;
    } else if (!this.#schema.getPossibleTypes(type).some((t) => this.#inline.has(`${t.name}.${name}`))) {
      return undefined;
    }
    const field = isUnionType(type) ? undefined : type.getFields()[name];
    return field ? (getNamedType(field.type) as GraphQLCompositeType) : undefined;
  }
}
