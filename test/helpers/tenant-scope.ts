import { fingerprintSync, loadModule, parseSync } from 'libpg-query';
import type { Recorded } from './sql-recorder.ts';
import { CROSS_GROUP_STATEMENTS } from './tenant-scope-allowlist.ts';

/**
 * Whether a SQL statement keeps to one tenant: every reference it makes to a tenant table is
 * narrowed by that reference's `user_group` (docs/deploy.md, "Sharding by group"). A sharded
 * PostgreSQL (Citus distributing the tenant tables by `user_group`) routes such a statement to
 * one shard; one without it runs on every shard, or not at all (a join of two distributed
 * tables on anything but the distribution column).
 *
 * Statements are parsed by PostgreSQL's own parser (libpg-query, the parser compiled to
 * WebAssembly), not matched as text. What counts as narrowed, per reference to a tenant table
 * in a SELECT, UPDATE, DELETE, a CTE, a subquery, a join, an `exists` or `in`:
 *
 * - an equality of its `user_group` with a value: a parameter, a literal, an expression of
 *   those (`= $1`, `= any($1)`, `in ($1, $2)`, `(user_group, id) in (($1, $2), …)`);
 * - an equality with the `user_group` of another reference that is narrowed (a join's `on` or
 *   `using (user_group, …)`, a correlated subquery's `= outer.user_group`), or of a derived
 *   table (a CTE, a subquery in FROM, a function such as `unnest($1)`), which is checked itself;
 * - `user_group in (select …)` whose subquery answers a `user_group` (checked itself).
 *
 * An INSERT or COPY into a tenant table must name its `user_group` column (or give every column
 * in order), and an `on conflict` target must include it (Citus requires the distribution
 * column in every unique key). A TRUNCATE, a MERGE, or a COPY out of a whole tenant table are
 * reported as such.
 *
 * Conditions under OR or NOT are not taken as narrowing (conservative). DDL, transaction control,
 * settings and notifications touch no tenant's rows and are not checked.
 */

/**
 * The tables a sharded deployment distributes by `user_group`: every table with that column but
 * {@link DIRECTORY_TABLES}. test/integration/tenant-scope.test.ts checks this list against the
 * migrated schema, so a new tenant table cannot be missed.
 */
export const TENANT_TABLES: ReadonlySet<string> = new Set([
  'asset_conversions',
  'asset_dataset_rows',
  'asset_dataset_stats',
  'asset_downloads',
  'asset_filters',
  'asset_profile_extensions',
  'asset_profiles',
  'asset_views',
  'assets',
  'change_horizons',
  'change_relay_positions',
  'changes',
  'issues',
  'observation_retention',
  'observation_series',
  'webhook_attempts',
  'webhook_deliveries',
  'webhooks',
]);

/**
 * Tables with a `user_group` column that are not a tenant's data but the user directory, found
 * by user or session before any group is known (sign-in, a session's lookup, an API key's): a
 * sharded deployment keeps them as reference tables or distributes them by user.
 */
export const DIRECTORY_TABLES: ReadonlySet<string> = new Set(['api_keys', 'sessions', 'user_groups']);

let loaded: Promise<void> | undefined;

/** Loads the parser (WebAssembly) once; needed before {@link tenantScopeViolations}. */
export function loadParser(): Promise<void> {
  loaded ??= loadModule();
  return loaded;
}

/** The parser's fingerprint of a statement: the same for any values of its parameters and literals. */
export function fingerprint(text: string): string {
  return fingerprintSync(text);
}

/** A statement naming no tenant table needs no parse. */
const MENTIONS = new RegExp(`\\b(${[...TENANT_TABLES].join('|')})\\b`, 'i');

/** Each text's problems, once per process (the files of a test worker share it). */
const verdicts = new Map<string, string[]>();

/**
 * The product's statements among `statements` that reach a tenant table without its
 * `user_group` and do not cross groups on purpose (`allowed`, by fingerprint), each described
 * with what it misses, its fingerprint, where it was sent from and its text. A test's own and a
 * migration's are not checked. Call {@link loadParser} first.
 */
export function unscopedStatements(
  statements: readonly Recorded[],
  allowed: ReadonlyMap<string, string> = CROSS_GROUP_STATEMENTS,
): string[] {
  const found: string[] = [];
  for (const s of statements) {
    if (s.origin !== 'app' || !MENTIONS.test(s.text)) continue;
    let problems = verdicts.get(s.text);
    if (!problems) {
      problems = tenantScopeViolations(s.text);
      verdicts.set(s.text, problems);
    }
    if (problems.length === 0) continue;
    const print = problems[0]!.startsWith('not parsed') ? undefined : fingerprint(s.text);
    if (print && allowed.has(print)) continue;
    found.push(
      `- ${problems.join('; ')}\n  fingerprint ${print ?? '-'}, sent from ${s.at ?? 'an unknown caller'}:\n  ${s.text.replace(/\s+/g, ' ').trim()}`,
    );
  }
  return found;
}

/** What in `text` reaches a tenant table without its `user_group`; empty when nothing does. */
export function tenantScopeViolations(
  text: string,
  tenantTables: ReadonlySet<string> = TENANT_TABLES,
): string[] {
  let tree: { stmts?: { stmt?: unknown }[] };
  try {
    tree = parseSync(text) as typeof tree;
  } catch (e) {
    return [`not parsed: ${(e as Error).message}`];
  }
  const check = new Checker(tenantTables);
  for (const { stmt } of tree.stmts ?? []) check.statement(stmt, undefined);
  return check.problems;
}

type J = Record<string, unknown>;

/** The one key and body of a parse tree node (`{ SelectStmt: {…} }`). */
function tagged(node: unknown): [string, J] | undefined {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const keys = Object.keys(node);
  if (keys.length !== 1) return undefined;
  const body = (node as J)[keys[0]!];
  return body && typeof body === 'object' && !Array.isArray(body) ? [keys[0]!, body as J] : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(node: unknown): string | undefined {
  const t = tagged(node);
  return t?.[0] === 'String' ? (t[1].sval as string) : undefined;
}

/** A range table entry of one query level: a table, or a derived table (CTE, subquery, function). */
interface Ref {
  name: string;
  /** The tenant table it reads, if it is one. */
  table: string | undefined;
  /** A derived table (CTE, subquery, function) or a temporary one: its `user_group` is taken as given. */
  derived: boolean;
  /** What the statement does with it: `read`, `updated`, `deleted from`. */
  role: string;
}

/** One query level: its references, the CTEs it sees, and the level around it (correlation). */
interface Level {
  refs: Ref[];
  ctes: Set<string>;
  parent: Level | undefined;
  /** The references proved narrowed, once the level's conditions are read. */
  narrowed: Set<Ref>;
}

/** Union-find over a level's references and BOUND (narrowed by a value). */
class Equalities {
  readonly #parent = new Map<Ref | 'BOUND', Ref | 'BOUND'>();
  find(x: Ref | 'BOUND'): Ref | 'BOUND' {
    let p = this.#parent.get(x) ?? x;
    while (p !== (this.#parent.get(p) ?? p)) p = this.#parent.get(p)!;
    return p;
  }
  union(a: Ref | 'BOUND', b: Ref | 'BOUND'): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.#parent.set(ra, rb);
  }
  bound(x: Ref): boolean {
    return this.find(x) === this.find('BOUND');
  }
}

/** What one side of an equality is, as far as `user_group` goes. */
type Side = { refs: Ref[] } | 'value' | 'other';

class Checker {
  readonly problems: string[] = [];
  readonly #tenant: ReadonlySet<string>;
  constructor(tenant: ReadonlySet<string>) {
    this.#tenant = tenant;
  }

  statement(node: unknown, parent: Level | undefined, ctes: Set<string> = new Set()): void {
    const t = tagged(node);
    if (!t) return;
    const [tag, s] = t;
    switch (tag) {
      case 'SelectStmt':
        this.select(s, parent, ctes);
        return;
      case 'InsertStmt':
        this.insert(s, parent, ctes);
        return;
      case 'UpdateStmt':
      case 'DeleteStmt':
        this.modify(tag, s, parent, ctes);
        return;
      case 'CopyStmt':
        this.copy(s, parent);
        return;
      case 'ExplainStmt':
        this.statement(s.query, parent, ctes);
        return;
      case 'CreateTableAsStmt':
        this.statement(s.query, parent, ctes);
        return;
      case 'TruncateStmt':
        for (const r of list(s.relations)) {
          const table = this.#tenantOf(tagged(r)?.[1], ctes);
          if (table) this.problems.push(`${table}: truncated, across every group`);
        }
        return;
      case 'MergeStmt': {
        const table = this.#tenantOf(s.relation as J, ctes);
        if (table) this.problems.push(`${table}: MERGE is not analysed`);
        return;
      }
      default:
        return;
    }
  }

  #tenantOf(rangeVar: J | undefined, ctes: Set<string>): string | undefined {
    if (!rangeVar) return undefined;
    const name = rangeVar.relname as string;
    const schema = rangeVar.schemaname as string | undefined;
    if (schema && schema !== 'public') return undefined;
    if (!schema && ctes.has(name)) return undefined;
    return this.#tenant.has(name) ? name : undefined;
  }

  /** The CTEs of a WITH, each checked as a statement of its own; their names, seen from here. */
  #with(withClause: unknown, parent: Level | undefined, outer: Set<string>): Set<string> {
    const ctes = new Set(outer);
    const w = withClause as J | undefined;
    if (!w) return ctes;
    const entries = list(w.ctes)
      .map((c) => tagged(c)?.[1])
      .filter((c): c is J => !!c);
    // A recursive WITH sees all its names in every body; a plain one, those before.
    if (w.recursive) for (const c of entries) ctes.add(c.ctename as string);
    for (const c of entries) {
      this.statement(c.ctequery, parent, ctes);
      ctes.add(c.ctename as string);
    }
    return ctes;
  }

  select(s: J, parent: Level | undefined, outerCtes: Set<string>): void {
    const ctes = this.#with(s.withClause, parent, outerCtes);
    if (s.op && s.op !== 'SETOP_NONE') {
      this.select(s.larg as J, parent, ctes);
      this.select(s.rarg as J, parent, ctes);
      return;
    }
    const level: Level = { refs: [], ctes, parent, narrowed: new Set() };
    const conditions: unknown[] = [s.whereClause];
    const nested: unknown[] = [];
    const usings: [Ref[], Ref[]][] = [];
    for (const item of list(s.fromClause)) this.#from(item, level, conditions, nested, usings);
    this.#narrow(level, conditions, usings);
    this.#report(level);
    this.#nested(level, nested);
    // Subqueries anywhere else: the select list, WHERE, HAVING, ORDER BY, VALUES, LIMIT.
    const { fromClause: _f, withClause: _w, larg: _l, rarg: _r, ...rest } = s;
    this.#sublinks(rest, level);
  }

  insert(s: J, parent: Level | undefined, outerCtes: Set<string>): void {
    const ctes = this.#with(s.withClause, parent, outerCtes);
    const relation = s.relation as J;
    const table = this.#tenantOf(relation, ctes);
    if (table) {
      const cols = list(s.cols).map((c) => tagged(c)?.[1].name as string);
      if (cols.length > 0 && !cols.includes('user_group'))
        this.problems.push(`${table}: inserted without its user_group column`);
      if (cols.length === 0 && !s.selectStmt) this.problems.push(`${table}: inserted with defaults only`);
      const conflict = s.onConflictClause as J | undefined;
      const infer = conflict?.infer as J | undefined;
      const keys = list(infer?.indexElems).map((e) => tagged(e)?.[1].name as string | undefined);
      if (keys.length > 0 && !keys.includes('user_group'))
        this.problems.push(`${table}: on conflict (${keys.join(', ')}) without user_group in the key`);
    }
    this.statement(s.selectStmt, parent, ctes);
    const level: Level = {
      refs: [{ name: (relation.relname as string) ?? '', table: undefined, derived: true, role: 'target' }],
      ctes,
      parent,
      narrowed: new Set(),
    };
    const { selectStmt: _s, withClause: _w, relation: _r, ...rest } = s;
    this.#sublinks(rest, level);
  }

  modify(tag: string, s: J, parent: Level | undefined, outerCtes: Set<string>): void {
    const ctes = this.#with(s.withClause, parent, outerCtes);
    const level: Level = { refs: [], ctes, parent, narrowed: new Set() };
    const conditions: unknown[] = [s.whereClause];
    const nested: unknown[] = [];
    const usings: [Ref[], Ref[]][] = [];
    const verb = tag === 'UpdateStmt' ? 'updated' : 'deleted from';
    this.#from({ RangeVar: s.relation }, level, conditions, nested, usings, verb);
    for (const item of list(tag === 'UpdateStmt' ? s.fromClause : s.usingClause))
      this.#from(item, level, conditions, nested, usings);
    this.#narrow(level, conditions, usings);
    this.#report(level);
    this.#nested(level, nested);
    const { fromClause: _f, usingClause: _u, withClause: _w, relation: _r, ...rest } = s;
    this.#sublinks(rest, level);
  }

  copy(s: J, parent: Level | undefined): void {
    if (s.query) {
      this.statement(s.query, parent);
      return;
    }
    const table = this.#tenantOf(s.relation as J, new Set());
    if (!table) return;
    if (!s.is_from) {
      this.problems.push(`${table}: copied out whole, across every group`);
      return;
    }
    const cols = list(s.attlist).map(str);
    if (cols.length > 0 && !cols.includes('user_group'))
      this.problems.push(`${table}: copied in without its user_group column`);
  }

  /** Adds a FROM item's references to `level`; its join conditions and subqueries for later. */
  #from(
    item: unknown,
    level: Level,
    conditions: unknown[],
    nested: unknown[],
    usings: [Ref[], Ref[]][],
    role = 'read',
  ): Ref[] {
    const t = tagged(item);
    if (!t) return [];
    const [tag, f] = t;
    const alias = (f.alias as J | undefined)?.aliasname as string | undefined;
    if (tag === 'RangeVar') {
      const name = f.relname as string;
      const table = this.#tenantOf(f, level.ctes);
      // A directory table is narrowed by its own conditions or not at all; any other table that
      // is not a tenant's (a temporary table of the request's rows) is taken as given.
      const derived = !table && !(DIRECTORY_TABLES.has(name) && !f.schemaname);
      const ref: Ref = { name: alias ?? name, table, derived, role };
      level.refs.push(ref);
      return [ref];
    }
    if (tag === 'JoinExpr') {
      const left = this.#from(f.larg, level, conditions, nested, usings);
      const right = this.#from(f.rarg, level, conditions, nested, usings);
      conditions.push(f.quals);
      nested.push({ Expressions: { quals: f.quals } });
      if (list(f.usingClause).some((u) => str(u) === 'user_group') || f.isNatural) usings.push([left, right]);
      return [...left, ...right];
    }
    // A subquery, a function, VALUES: checked on its own; its columns are taken as given.
    if (tag === 'RangeSubselect') nested.push(f.subquery);
    else nested.push({ Expressions: f });
    const ref: Ref = { name: alias ?? '', table: undefined, derived: true, role };
    level.refs.push(ref);
    return [ref];
  }

  /** Reads a level's conditions: which of its references are narrowed by `user_group`. */
  #narrow(level: Level, conditions: unknown[], usings: [Ref[], Ref[]][]): void {
    const eq = new Equalities();
    for (const r of level.refs) if (r.derived) eq.union(r, 'BOUND');
    for (const [left, right] of usings) for (const a of left) for (const b of right) eq.union(a, b);
    for (const c of conditions.flatMap(conjuncts)) this.#condition(c, level, eq);
    for (const r of level.refs) if (eq.bound(r)) level.narrowed.add(r);
  }

  #condition(node: unknown, level: Level, eq: Equalities): void {
    const t = tagged(node);
    if (!t) return;
    const [tag, c] = t;
    if (tag === 'A_Expr') {
      const op = list(c.name).map(str).join('.');
      if (op !== '=') return;
      if (c.kind === 'AEXPR_OP') this.#equal(c.lexpr, c.rexpr, level, eq);
      // `x = any(expr)`, `x in (a, b)`, `(x, y) in ((a, b), …)`: narrowed when the right holds no column.
      else if ((c.kind === 'AEXPR_OP_ANY' || c.kind === 'AEXPR_IN') && columnFree(c.rexpr))
        this.#bind(c.lexpr, level, eq);
      return;
    }
    if (tag === 'SubLink' && c.subLinkType === 'ANY_SUBLINK') {
      // `user_group in (select user_group …)`, `(user_group, id) in (select * from unnest($1, $2))`:
      // the subquery is checked itself.
      const targets = list((tagged(c.subselect)?.[1] as J | undefined)?.targetList);
      const star = targets.length === 1 && lastField((tagged(targets[0])?.[1] as J | undefined)?.val) === '*';
      rowItems(c.testexpr).forEach((item, i) => {
        const target = (tagged(targets[i])?.[1] as J | undefined)?.val;
        if (star || (target && (lastField(target) === 'user_group' || columnFree(target))))
          this.#equal(item, { A_Const: {} }, level, eq);
      });
    }
  }

  /** Every `user_group` column in `node` (a column or a row of them) is narrowed. */
  #bind(node: unknown, level: Level, eq: Equalities): void {
    for (const item of rowItems(node)) this.#equal(item, { A_Const: {} }, level, eq);
  }

  #equal(a: unknown, b: unknown, level: Level, eq: Equalities): void {
    const rows = [rowItems(a), rowItems(b)];
    if (rows[0]!.length > 1 && rows[0]!.length === rows[1]!.length) {
      rows[0]!.forEach((x, i) => {
        this.#equal(x, rows[1]![i], level, eq);
      });
      return;
    }
    const left = this.#side(a, level);
    const right = this.#side(b, level);
    const join = (x: Side, y: Side) => {
      if (typeof x !== 'object') return;
      if (y === 'value') for (const r of x.refs) eq.union(r, 'BOUND');
      else if (typeof y === 'object') for (const r of x.refs) for (const s of y.refs) eq.union(r, s);
    };
    join(left, right);
    join(right, left);
  }

  /** A side of an equality: a `user_group` column of this level's references, a value, or other. */
  #side(node: unknown, level: Level): Side {
    const t = tagged(node);
    if (!t) return 'other';
    if (t[0] === 'TypeCast') return this.#side(t[1].arg, level);
    if (t[0] !== 'ColumnRef') return columnFree(node) ? 'value' : 'other';
    const fields = list(t[1].fields).map(str);
    if (fields.at(-1) !== 'user_group' || fields.length > 2) return 'other';
    const qualifier = fields.length === 2 ? fields[0] : undefined;
    // Innermost level first; a level's answer is final when it has a candidate.
    for (let l: Level | undefined = level; l; l = l.parent) {
      // Unqualified: any of the level's references (PostgreSQL refuses an ambiguous one, unless a
      // join's USING made them one column).
      const refs = qualifier === undefined ? l.refs : l.refs.filter((r) => r.name === qualifier);
      if (refs.length === 0) continue;
      if (l === level) return { refs };
      // An outer level's column is as good as a value when that reference is narrowed.
      return refs.every((r) => l.narrowed.has(r)) ? 'value' : 'other';
    }
    return 'other';
  }

  #report(level: Level): void {
    for (const r of level.refs) {
      if (!r.table || level.narrowed.has(r)) continue;
      const as = r.name === r.table ? '' : ` (as ${r.name})`;
      this.problems.push(`${r.table}${as}: ${r.role} without a user_group condition`);
    }
  }

  #nested(level: Level, nested: unknown[]): void {
    for (const n of nested) {
      const t = tagged(n);
      if (t?.[0] === 'Expressions') this.#sublinks(t[1], level);
      else this.statement(n, level, level.ctes);
    }
  }

  /** Checks every subquery in an expression tree, with `level` around it (it may correlate). */
  #sublinks(node: unknown, level: Level): void {
    if (Array.isArray(node)) {
      for (const n of node) this.#sublinks(n, level);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const t = tagged(node);
    if (t?.[0] === 'SubLink') {
      this.#sublinks(t[1].testexpr, level);
      this.statement(t[1].subselect, level, level.ctes);
      return;
    }
    if (t && ['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt'].includes(t[0])) {
      this.statement(node, level, level.ctes);
      return;
    }
    for (const value of Object.values(node)) this.#sublinks(value, level);
  }
}

/** The conditions ANDed in `node`: each must hold, so each may narrow. */
function conjuncts(node: unknown): unknown[] {
  const t = tagged(node);
  if (!t) return [];
  if (t[0] === 'BoolExpr' && t[1].boolop === 'AND_EXPR') return list(t[1].args).flatMap(conjuncts);
  return [node];
}

/** The items of a row constructor `(a, b)`, or the node itself. */
function rowItems(node: unknown): unknown[] {
  const t = tagged(node);
  if (t?.[0] === 'RowExpr') return list(t[1].args);
  return node === undefined ? [] : [node];
}

function lastField(node: unknown): string | undefined {
  const t = tagged(node);
  if (t?.[0] === 'TypeCast') return lastField(t[1].arg);
  if (t?.[0] !== 'ColumnRef') return undefined;
  const last = list(t[1].fields).at(-1);
  return tagged(last)?.[0] === 'A_Star' ? '*' : str(last);
}

/** Whether `node` reads no column (parameters, literals, and functions and operators of them). */
function columnFree(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(columnFree);
  if (!node || typeof node !== 'object') return true;
  const t = tagged(node);
  if (t?.[0] === 'ColumnRef' || t?.[0] === 'SubLink') return false;
  return Object.values(node).every(columnFree);
}
