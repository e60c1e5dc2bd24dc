import {
  BREAK,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  getArgumentValues,
  isObjectType,
  Kind,
  locatedError,
  type SelectionSetNode,
  visit,
} from 'graphql';
import type { OperationPlanner } from '../../execution/executors/plans.ts';
import type { PageInfo } from '../../shared/cursors.ts';
import { isAuthenticated } from '../../shared/identity.ts';
import { type CompactAsset, listAssetIds } from './assets.repository.ts';
import type { AssetsContext } from './context.ts';
import type { EffectiveProfile } from './profiles/definition.ts';
import { effectiveProperties, onlyProperties, propertyDefaults } from './profiles/effective-properties.ts';
import { type AssetArgs, assetPageRequest, pageConnection } from './resolvers/common.ts';

/**
 * Planned pages: a query that reads one page of a profile's assets, and of each asset only what
 * its stored row holds,
 *
 *     { assets(profile: "well") { all(first: 100, filter: …) {
 *         edges { cursor node { id properties(only: [...]) } }
 *         pageInfo { hasNextPage endCursor } } } }
 *
 * is answered with the resolvers' statement for two columns (id and properties) instead of eight,
 * and the response is built from its rows directly, as `Assets.all`'s resolvers would build it: no
 * resolver call and no response path per row.
 *
 * What is planned: the fields above (any of them, aliased or not) and `__typename`, with literal or
 * variable arguments. Anything else in the operation (another field, a fragment, a directive, two
 * selections under one response key) leaves it to execution, and so does a request the plan would
 * answer with a client's error (not signed in, no such profile, a bad argument or filter) or a page
 * its response budget might not hold: those run through the resolvers, which report them. A
 * failure of the database is reported here, once, as the resolvers report it. The plan
 * shares the resolvers' rules (resolvers/common.ts for the page, profiles/effective-properties.ts
 * for what `properties` shows), and a test sends the same requests down both
 * (test/integration/parity.test.ts).
 */
export const planPage: OperationPlanner<AssetsContext> = (schema, _document, operation) => {
  const query = schema.getQueryType();
  const root = fieldsOf(operation.selectionSet, ['assets']);
  const assets = root?.filter((e) => e.field === 'assets');
  if (!query || !root || assets?.length !== 1) return null;
  const assetsEntry = assets[0]!;
  const level = fieldsOf(assetsEntry.node.selectionSet, ['all']);
  const all = level?.filter((e) => e.field === 'all');
  if (!level || all?.length !== 1) return null;
  const allEntry = all[0]!;
  const connectionFields = fieldsOf(allEntry.node.selectionSet, ['edges', 'pageInfo']);
  if (!connectionFields) return null;
  // The connection's selections, each with what is selected under it, worked out here once.
  const connection: ConnectionField[] = [];
  for (const e of connectionFields) {
    if (e.field === 'edges') {
      const edgeFields = fieldsOf(e.node.selectionSet, ['cursor', 'node']);
      if (!edgeFields) return null;
      const edge: EdgeField[] = [];
      for (const n of edgeFields) {
        if (n.field !== 'node') {
          edge.push({ key: n.key, field: n.field });
          continue;
        }
        const fields = fieldsOf(n.node.selectionSet, ['id', 'properties']);
        if (!fields) return null;
        edge.push({ key: n.key, field: 'node', fields });
      }
      connection.push({ key: e.key, field: 'edges', edge });
    } else if (e.field === 'pageInfo') {
      const fields = fieldsOf(e.node.selectionSet, [
        'hasNextPage',
        'hasPreviousPage',
        'startCursor',
        'endCursor',
      ]);
      if (!fields) return null;
      connection.push({ key: e.key, field: 'pageInfo', fields });
    } else connection.push({ key: e.key, field: '__typename' });
  }
  const nodeFields = connection.flatMap((c) =>
    c.field === 'edges' ? c.edge.flatMap((f) => (f.field === 'node' ? f.fields : [])) : [],
  );
  const fieldDef = (type: string, field: string) => {
    const t = schema.getType(type);
    return isObjectType(t) ? t.getFields()[field] : undefined;
  };
  const assetsDef = fieldDef(query.name, 'assets');
  const allDef = fieldDef('Assets', 'all');
  const propertiesDef = fieldDef('Asset', 'properties');
  if (!assetsDef || !allDef || !propertiesDef) return null;
  const withProperties = nodeFields.some((f) => f.field === 'properties');
  // What the resolvers would charge the response budget (execution/response-budget.ts): each field
  // selected on each object a field returns, a connection's pageInfo and an edge's node with it.
  let fixed = level.length + connection.length;
  let perRow = 0;
  for (const c of connection) {
    if (c.field === 'pageInfo') fixed += c.fields.length;
    else if (c.field === 'edges')
      for (const f of c.edge) perRow += 1 + (f.field === 'node' ? f.fields.length : 0);
  }

  const assetsArgs = argumentsOf(assetsDef, assetsEntry.node);
  const allArgs = argumentsOf(allDef, allEntry.node);
  const propertiesArgs = new Map<
    FieldNode,
    (variables: Record<string, unknown>) => Record<string, unknown>
  >();
  for (const f of nodeFields)
    if (f.field === 'properties') propertiesArgs.set(f.node, argumentsOf(propertiesDef, f.node));

  return async (ctx, variables) => {
    if (!isAuthenticated(ctx.identity)) return undefined;
    const group = ctx.identity.userGroup;
    const rootObject = (assetsValue: unknown) => {
      const out: Record<string, unknown> = {};
      for (const e of root) out[e.key] = e.field === '__typename' ? query.name : assetsValue;
      return out;
    };
    // A client's error (a GraphQLError: a bad argument, cursor, filter) is declined, for the
    // resolvers to report where it arose; any other failure (the database's) is reported here as
    // the resolvers would report it, not met twice: at `assets`, or at `all`, which is non-null,
    // so `assets` is null either way.
    const reported = (e: unknown, at: 'assets' | 'all') => ({
      errors: [
        at === 'assets'
          ? locatedError(e, [assetsEntry.node], [assetsEntry.key])
          : locatedError(e, [allEntry.node], [assetsEntry.key, allEntry.key]),
      ],
      data: rootObject(null),
    });
    const failed = (e: unknown, at: 'assets' | 'all') =>
      e instanceof GraphQLError ? undefined : reported(e, at);
    let profile: EffectiveProfile | null;
    let profileName: string;
    try {
      profileName = (assetsArgs(variables) as { profile: string }).profile;
      profile = await ctx.loaders.profile.load(profileName);
    } catch (e) {
      return failed(e, 'assets');
    }
    if (!profile) return undefined;
    let page: Awaited<ReturnType<typeof assetPageRequest>>;
    const only = new Map<FieldNode, readonly string[] | null>();
    try {
      page = await assetPageRequest(ctx, profileName, allArgs(variables) as AssetArgs);
      for (const [node, args] of propertiesArgs)
        only.set(node, (args(variables).only as string[] | null) ?? null);
    } catch (e) {
      return failed(e, 'all');
    }
    if (!ctx.budget.fits(fixed + page.limit * perRow)) return undefined;

    let rows: CompactAsset[];
    try {
      rows = await listAssetIds(ctx.db, group, profileName, page, withProperties, page.where);
    } catch (e) {
      // Whatever it was, not run twice: reported as the resolver's error.
      return reported(e, 'all');
    }
    const rowsShown = pageConnection(rows, page, (r) => [r[0]]);
    ctx.budget.spendFields(fixed + rowsShown.edges.length * perRow);
    const defaults = withProperties ? propertyDefaults(profile) : [];
    // Every property of a row, worked out once however many selections show it (as `shown`).
    const everyProperty = new Map<CompactAsset, Record<string, unknown>>();
    const every = (r: CompactAsset) => {
      let props = everyProperty.get(r);
      if (!props) {
        props = effectiveProperties(defaults, r[1]);
        everyProperty.set(r, props);
      }
      return props;
    };
    const node = (fields: readonly Entry<NodeField>[], r: CompactAsset) => {
      const out: Record<string, unknown> = {};
      for (const f of fields) {
        if (f.field === 'id') out[f.key] = r[0];
        else if (f.field === 'properties') {
          const names = only.get(f.node);
          out[f.key] = names ? onlyProperties(profile, r[1], names) : every(r);
        } else out[f.key] = 'Asset';
      }
      return out;
    };
    const connectionObject: Record<string, unknown> = {};
    for (const c of connection) {
      if (c.field === '__typename') connectionObject[c.key] = 'AssetsConnection';
      else if (c.field === 'edges') {
        connectionObject[c.key] = rowsShown.edges.map((e) => {
          const out: Record<string, unknown> = {};
          for (const f of c.edge)
            out[f.key] =
              f.field === 'node' ? node(f.fields, e.node) : f.field === 'cursor' ? e.cursor : 'AssetEdge';
          return out;
        });
      } else {
        const out: Record<string, unknown> = {};
        for (const f of c.fields)
          out[f.key] = f.field === '__typename' ? 'PageInfo' : rowsShown.pageInfo[f.field];
        connectionObject[c.key] = out;
      }
    }
    const assetsObject: Record<string, unknown> = {};
    for (const e of level) assetsObject[e.key] = e.field === '__typename' ? 'Assets' : connectionObject;
    return { data: rootObject(assetsObject) } satisfies ExecutionResult;
  };
};

type NodeField = 'id' | 'properties' | '__typename';

/** A field of a planned selection: its response key, its name, its node. */
interface Entry<F extends string> {
  key: string;
  field: F;
  node: FieldNode;
}

type EdgeField =
  | { key: string; field: 'cursor' | '__typename' }
  | { key: string; field: 'node'; fields: Entry<NodeField>[] };

/** A selection of the connection, with what is selected under it. */
type ConnectionField =
  | { key: string; field: '__typename' }
  | { key: string; field: 'edges'; edge: EdgeField[] }
  | { key: string; field: 'pageInfo'; fields: Entry<keyof PageInfo | '__typename'>[] };

/**
 * The fields of a selection set when each is one of `allowed` or `__typename`, with no directive,
 * and no two share a response key; else null (fragments included: the plan does not merge).
 */
function fieldsOf<F extends string>(
  set: SelectionSetNode | undefined,
  allowed: readonly F[],
): Entry<F | '__typename'>[] | null {
  if (!set) return null;
  const out: Entry<F | '__typename'>[] = [];
  const keys = new Set<string>();
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD || s.directives?.length) return null;
    const field = s.name.value as F | '__typename';
    if (field !== '__typename' && !allowed.includes(field)) return null;
    const key = (s.alias ?? s.name).value;
    if (keys.has(key)) return null;
    keys.add(key);
    out.push({ key, field, node: s });
  }
  return out;
}

/**
 * A field's arguments as its resolver gets them (`getArgumentValues`), for each request: worked out
 * once when they name no variable (the same literals every time), and then frozen, for they are
 * shared by every request; else anew each time.
 */
function argumentsOf(
  def: GraphQLField<unknown, unknown>,
  node: FieldNode,
): (variables: Record<string, unknown>) => Record<string, unknown> {
  let usesVariables = false;
  visit(node, {
    Variable() {
      usesVariables = true;
      return BREAK;
    },
    SelectionSet: () => false,
  });
  if (usesVariables) return (variables) => getArgumentValues(def, node, variables);
  let literal: Record<string, unknown> | undefined;
  return (variables) => {
    literal ??= deepFreeze(getArgumentValues(def, node, variables));
    return literal;
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
