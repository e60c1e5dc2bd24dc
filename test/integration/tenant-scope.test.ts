import { beforeAll, describe, expect, it } from 'vitest';
import { kyselyExec } from '../../src/subgraphs/assets/exec.ts';
import { forgetReadings } from '../../src/subgraphs/assets/telemetry/store.ts';
import { anyWebhook } from '../../src/subgraphs/events/webhooks/repository.ts';
import { startTestApp } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/database.ts';
import { recordedStatements, startRecord } from '../helpers/sql-recorder.ts';
import {
  DIRECTORY_TABLES,
  fingerprint,
  loadParser,
  TENANT_TABLES,
  tenantScopeViolations,
  unscopedStatements,
} from '../helpers/tenant-scope.ts';
import { CROSS_GROUP_STATEMENTS } from '../helpers/tenant-scope-allowlist.ts';

/**
 * Tenant scoping by construction (docs/deploy.md, "Sharding by group"). Every integration test
 * file's statements are checked after its tests (test/helpers/tenant-scope-setup.ts); this file
 * tests that check: that it flags each way a statement can miss a tenant's `user_group`, passes
 * the ways the code gives it, knows every tenant table of the schema, and records what the app
 * sends apart from what a test sends itself.
 */
beforeAll(loadParser);

describe('the check', () => {
  it.each([
    ['a select', 'select * from assets where id = $1', ['assets: read']],
    ['an update', 'update assets set display_name = $1 where id = $2', ['assets: updated']],
    ['a delete', 'delete from issues where id = $1', ['issues: deleted from']],
    [
      'a join on anything but user_group',
      'select * from assets a join asset_profiles p on p.profile = a.profile where a.user_group = $1',
      ['asset_profiles (as p): read'],
    ],
    [
      'a join using the profile only',
      'select * from assets a join asset_profiles p using (profile) where a.user_group = $1',
      ['asset_profiles (as p): read'],
    ],
    ['a CTE', 'with x as (select id from assets where profile = $1) select * from x', ['assets: read']],
    [
      'an insert without the column',
      'insert into issues (id, display_name) values ($1, $2)',
      ['issues: inserted without its user_group column'],
    ],
    [
      'an on conflict key without it',
      'insert into assets (user_group, id) values ($1, $2) on conflict (id) do nothing',
      ['assets: on conflict (id) without user_group in the key'],
    ],
    [
      'an exists subquery',
      'select * from assets a where a.user_group = $1 and exists (select 1 from issues i where i.subject_reference = a.id)',
      ['issues (as i): read'],
    ],
    [
      'a subquery correlated to an outer reference that is not narrowed',
      'select * from assets a where exists (select 1 from asset_profiles p where p.user_group = a.user_group)',
      ['assets (as a): read', 'asset_profiles (as p): read'],
    ],
    [
      'an in subquery',
      'select * from assets where user_group = $1 and id in (select asset_id from asset_dataset_rows)',
      ['asset_dataset_rows: read'],
    ],
    ['a condition under OR', 'select * from assets where user_group = $1 or id = $2', ['assets: read']],
    ['a condition under NOT', 'select * from assets where not (user_group <> $1)', ['assets: read']],
    [
      'one arm of a union',
      'select id from assets where user_group = $1 union all select id from issues',
      ['issues: read'],
    ],
    [
      "an update's other table",
      'update assets a set display_name = p.title from asset_profiles p where a.user_group = $1 and p.profile = a.profile',
      ['asset_profiles (as p): read'],
    ],
    [
      "a delete's other table",
      'delete from assets a using issues i where a.user_group = $1 and i.subject_reference = a.id',
      ['issues (as i): read'],
    ],
    [
      'a condition outside a derived table',
      'select * from (select * from assets) s where s.user_group = $1',
      ['assets: read'],
    ],
    [
      'a data-modifying CTE',
      'with gone as (delete from changes where at < $1 returning 1) select count(*) from gone',
      ['changes: deleted from'],
    ],
    [
      'a join to a directory table that is not narrowed itself',
      'select * from assets a join user_groups g on g.user_group = a.user_group where a.id = $1',
      ['assets (as a): read'],
    ],
    [
      "a subquery in a join's condition",
      'select * from assets a join asset_profiles p on p.user_group = a.user_group and p.profile in (select profile from asset_views) where a.user_group = $1',
      ['asset_views: read'],
    ],
    ['a scalar subquery in the select list', 'select (select count(*) from issues) as n', ['issues: read']],
    ['a copy in without the column', 'copy assets (id, profile) from stdin', ['copied in without']],
    ['a copy out of a whole table', 'copy assets to stdout', ['copied out whole']],
    ['a truncate', 'truncate webhooks', ['truncated']],
  ])('flags %s', (_, text, expected) => {
    const problems = tenantScopeViolations(text);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(problems[i]).toContain(e);
    });
  });

  it.each([
    'select * from assets where user_group = $1 and id = $2',
    'select * from assets where id = $2 and $1 = user_group',
    'select * from "assets" where "assets"."user_group" = $1::text',
    'select * from assets where user_group = any($1) and is_deleted = false',
    "select * from assets where user_group in ('a', 'b')",
    'select * from assets a join asset_profiles p using (user_group, profile) where a.user_group = $1',
    'select * from assets a join asset_profiles p using (user_group, profile) where user_group = $1',
    'select * from assets a left join asset_profiles p on p.user_group = a.user_group and p.profile = a.profile where a.user_group = $1',
    'select * from assets a, issues i where a.user_group = $1 and i.user_group = a.user_group',
    'select * from assets a join user_groups g on g.user_group = a.user_group where g.username = $1 and g.user_group = $2',
    'update assets a set display_name = s.display_name from assetql_staging s where a.user_group = s.user_group and a.id = s.id',
    'select * from assets a where a.user_group = $1 and exists (select 1 from issues i where i.user_group = a.user_group and i.subject_reference = a.id)',
    'select * from assets where (user_group, id) in (($1, $2), ($3, $4))',
    'select * from assets where (user_group, id) = ($1, $2)',
    'select * from assets where user_group = $1 and id in (select asset_id from asset_dataset_rows where user_group = $1)',
    'select * from assets where (user_group, id) in (select user_group, asset_id from asset_dataset_rows where user_group = $1)',
    'delete from assets where user_group = $1 and id = any($2)',
    'update assets set display_name = $3 where user_group = $1 and id = $2 returning version',
    'with x as (select id, user_group from assets where user_group = $1) update assets set display_name = $2 from x where assets.user_group = x.user_group and assets.id = x.id',
    'update assets a set display_name = v.name from unnest($1::text[], $2::text[], $3::text[]) as v(user_group, id, name) where a.user_group = v.user_group and a.id = v.id',
    'insert into assets (user_group, profile, id) values ($1, $2, $3) on conflict (user_group, profile, id) do update set display_name = excluded.display_name',
    'insert into issues (user_group, id) select user_group, id from assets where user_group = $1',
    'insert into assets values ($1, $2, $3)',
    'select id from assets where user_group = $1 union all select id from issues where user_group = $1',
    'copy assets (user_group, profile, id) from stdin',
    "copy (select * from assets where user_group = 'g') to stdout",
    'with recursive r as (select id from assets where user_group = $1 union select a.id from assets a join r on a.id = r.id where a.user_group = $1) select * from r',
    'select * from users where username = $1',
    'select * from sessions where id_hash = $1',
    'begin',
    'set jit = off',
    'listen assetql_changes',
    'create index if not exists assets_x on assets (user_group, id)',
  ])('passes %s', (text) => {
    expect(tenantScopeViolations(text)).toEqual([]);
  });

  it('reports a text the parser refuses rather than passing it', () => {
    expect(tenantScopeViolations('select * from assets where')[0]).toMatch(/^not parsed/);
  });

  it('keys the cross-group statements by fingerprints that ignore values', () => {
    expect(fingerprint('select * from webhooks where user_group = $1 and id in ($2, $3)')).toBe(
      fingerprint("select * from webhooks where user_group = 'x' and id in ($2)"),
    );
    for (const [print, reason] of CROSS_GROUP_STATEMENTS) {
      expect(print).toMatch(/^[0-9a-f]{16}$/);
      expect(reason.length).toBeGreaterThan(20);
    }
  });
});

it('knows every table of the schema with a user_group column, and it is in their keys', async () => {
  const database = await freshDatabase();
  try {
    const { rows } = await database.pool.query<{ table_name: string }>(
      `select distinct c.table_name from information_schema.columns c
       join information_schema.tables t using (table_schema, table_name)
       where c.table_schema = 'public' and c.column_name = 'user_group' and t.table_type = 'BASE TABLE'`,
    );
    expect(rows.map((r) => r.table_name).sort()).toEqual([...TENANT_TABLES, ...DIRECTORY_TABLES].sort());
    // Citus takes a unique key of a distributed table only with the distribution column in it.
    const { rows: keys } = await database.pool.query<{ index: string }>(
      `select i.relname as index from pg_index x
       join pg_class t on t.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
       where x.indisunique and t.relname = any($1) and t.relnamespace = 'public'::regnamespace
         and not exists (select 1 from unnest(x.indkey) k
           join pg_attribute a on a.attrelid = t.oid and a.attnum = k where a.attname = 'user_group')`,
      [[...TENANT_TABLES]],
    );
    // The one known exception (docs/deploy.md, "Sharding by group"): readings refer to their
    // series by this id alone.
    expect(keys.map((k) => k.index)).toEqual(['observation_series_pkey']);
  } finally {
    await database.close();
  }
});

it("records the app's statements apart from a test's own", async () => {
  const app = await startTestApp();
  try {
    const from = startRecord();
    const session = await app.sessionFor('scope', 'scope-group');
    const r = await app.graphql(
      `{ issues { all(first: 1) { edges { node { id } } } } }`,
      {},
      {
        'x-svc-sessionid': session,
      },
    );
    expect(r.body.errors).toBeUndefined();
    await app.database.pool.query(`select count(*) from issues where display_name = 'own check'`);
    const sent = recordedStatements(from);
    const own = sent.find((s) => s.text.includes('own check'));
    expect(own).toMatchObject({
      origin: 'test',
      at: expect.stringMatching(/^test\/integration\/tenant-scope/),
    });
    const issues = sent.filter((s) => s.origin === 'app' && /\bfrom "?issues"?/.test(s.text));
    expect(issues.length).toBeGreaterThan(0);
    for (const s of issues) expect(tenantScopeViolations(s.text)).toEqual([]);
  } finally {
    await app.close();
  }
});

it("fails on the app's statements that miss it, but for the allowed ones and a test's own", async () => {
  const database = await freshDatabase();
  try {
    // The webhook dispatcher's question across groups, allowed; and a test's own count of them.
    const from = startRecord();
    await anyWebhook(database.db);
    await database.pool.query('select count(*) from webhooks');
    const sent = recordedStatements(from).filter((s) => / from webhooks\b/.test(s.text));
    expect(sent.map((s) => s.origin).sort()).toEqual(['app', 'test']);
    expect(unscopedStatements(sent)).toEqual([]);
    const found = unscopedStatements(sent, new Map());
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('webhooks: read without a user_group condition');
    expect(found[0]).toContain('sent from src/subgraphs/events/webhooks/repository.ts');
  } finally {
    await database.close();
  }
});

it("keeps forgetting an asset's readings to its group (the series it counts by)", async () => {
  const database = await freshDatabase();
  try {
    const from = startRecord();
    await forgetReadings(
      kyselyExec(database.db),
      'select id, dataset from observation_series where user_group = $1 and profile = $2 and asset_id = any($3::text[])',
      ['g', 'well', ['w1']],
    );
    const [sent] = recordedStatements(from).filter((s) => s.text.includes('observation_readings'));
    expect(sent).toMatchObject({ origin: 'app' });
    expect(tenantScopeViolations(sent!.text)).toEqual([]);
  } finally {
    await database.close();
  }
});
