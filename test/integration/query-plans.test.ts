import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAssets } from '../../src/subgraphs/assets/assets.repository.ts';
import { compileFilter } from '../../src/subgraphs/assets/filters/compile.ts';
import { createAssetLoaders } from '../../src/subgraphs/assets/loaders.ts';
import type { EffectiveProfile } from '../../src/subgraphs/assets/profiles/definition.ts';
import { applyProfiles } from '../../src/subgraphs/assets/profiles/profiles.service.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * The indexes the asset queries rely on, checked with EXPLAIN on a table big enough for the
 * planner to care (the same on PGlite and PostgreSQL: both run PostgreSQL's planner).
 */
const GROUP = 'plans';
const N = 100_000;
let database: TestDatabase;
const statements: { text: string; values: unknown[] }[] = [];
let item: EffectiveProfile;
let parent: EffectiveProfile;

beforeAll(async () => {
  database = await freshDatabase({
    onConnect(client: pg.PoolClient) {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        const [q, v] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
        if (typeof q === 'string') statements.push({ text: q, values: v ?? [] });
        else if (q && typeof q === 'object' && 'text' in q)
          statements.push({ text: q.text, values: q.values ?? [] });
        return query(...args);
      };
    },
  });
  const outcome = await applyProfiles(database.db, GROUP, 'tester', [
    {
      profile: 'parent',
      title: 'Parent',
      displayNameProperty: 'name',
      properties: [{ name: 'name', type: 'STRING' }],
      relationships: [
        {
          relationship: 'items',
          type: 'MANY',
          profile: 'item',
          referenceType: 'ID',
          lookupType: 'PROPERTY',
          lookupProperty: 'parentId',
        },
      ],
    },
    {
      profile: 'item',
      title: 'Item',
      displayNameProperty: 'name',
      properties: [
        { name: 'name', type: 'STRING' },
        { name: 'parentId', type: 'STRING' },
        { name: 'depth', type: 'NUMBER' },
      ],
    },
  ]);
  expect(outcome.ok).toBe(true);
  const names = await sql<{ profile: string; lookup_names: string[] }>`
    select profile, lookup_names from asset_profiles where user_group = ${GROUP} order by profile`.execute(
    database.db,
  );
  expect(names.rows).toEqual([
    { profile: 'item', lookup_names: ['parentId'] },
    { profile: 'parent', lookup_names: [] },
  ]);
  // Items on a 400 x 250 grid of points 0.01 degrees apart, west of Edmonton.
  // `lookup`: the properties relationships find items by (parentId), as every writer keeps it.
  await sql`insert into assets (user_group, profile, id, properties, lookup, display_name, geometry)
    select ${GROUP}, 'item', 'I-' || lpad(i::text, 6, '0'),
      jsonb_build_object('name', 'Item ' || i || ' ' || md5(i::text), 'parentId', 'P-' || (i % 500), 'depth', i % 3000),
      jsonb_build_object('parentId', 'P-' || (i % 500)),
      'Item ' || i || ' ' || md5(i::text),
      jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(-118 + (i % 400) * 0.01, 52 + (i / 400) * 0.01))
    from generate_series(1, ${N}) as i`.execute(database.db);
  await sql`insert into assets (user_group, profile, id, properties, display_name)
    select ${GROUP}, 'parent', 'P-' || i, jsonb_build_object('name', 'Parent ' || i), 'Parent ' || i
    from generate_series(0, 499) as i`.execute(database.db);
  await sql`analyze assets`.execute(database.db);
  const loaders = createAssetLoaders(database.db, GROUP);
  item = (await loaders.profile.load('item'))!;
  parent = (await loaders.profile.load('parent'))!;
}, 120_000);
afterAll(() => database?.close());

function haversine(lon1: number, lat1: number, lon2: number, lat2: number) {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** The plan of a statement as one string of node types and index names. */
async function plan(text: string, values: readonly unknown[]): Promise<string> {
  const { rows } = await database.pool.query(`explain (format json) ${text}`, values as unknown[]);
  const nodes: string[] = [];
  const walk = (n: Record<string, unknown>) => {
    nodes.push(`${n['Node Type']}${n['Index Name'] ? `(${n['Index Name']})` : ''}`);
    for (const child of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((rows[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
  return nodes.join(' > ');
}

function pageQuery(filter: unknown, after?: string) {
  const where =
    filter === undefined
      ? undefined
      : compileFilter(filter as never, {
          profile: item,
          profiles: (n) => (n === 'item' ? item : n === 'parent' ? parent : null),
          group: GROUP,
        });
  let q = database.db
    .selectFrom('assets as a')
    .select(['a.id'])
    .where('a.user_group', '=', GROUP)
    .where('a.profile', '=', 'item');
  if (where) q = q.where(where);
  if (after) q = q.where('a.id', '>', after);
  return q.orderBy('a.id').limit(101).compile();
}

describe('query plans', () => {
  it('a page deep in the list reads the primary key from the cursor on', async () => {
    const q = pageQuery(undefined, 'I-018000');
    const p = await plan(q.sql, q.parameters);
    expect(p).toMatch(/Index (Only )?Scan\(assets_pkey\)/);
    expect(p).not.toMatch(/Sort|Seq Scan/);
    // The repository's own listing reads the same way.
    const rows = await listAssets(database.db, GROUP, 'item', {
      limit: 100,
      after: 'I-018000',
      backwards: false,
    });
    expect(rows[0]!.id).toBe('I-018001');
  });

  it('an equality on a lookup property narrows through the lookup-key index', async () => {
    const expected = (parents: number[]) =>
      Array.from({ length: N }, (_, k) => k + 1)
        .filter((i) => parents.includes(i % 500))
        .map((i) => `I-${String(i).padStart(6, '0')}`)
        .slice(0, 101);
    for (const [filter, parents] of [
      [{ property: { name: 'parentId', equals: 'P-7' } }, [7]],
      [{ property: { name: 'parentId', in: ['P-7', 'P-321'] } }, [7, 321]],
    ] as const) {
      const q = pageQuery(filter);
      const p = await plan(q.sql, q.parameters);
      expect(p).toContain('assets_lookup');
      expect(p).not.toMatch(/Seq Scan/);
      const { rows } = await database.pool.query(q.sql, q.parameters as unknown[]);
      expect(rows.map((r) => r.id)).toEqual(expected([...parents]));
    }
    // Case-insensitive equality is not what the keys hold: read in key order, as before.
    const q = pageQuery({ property: { name: 'parentId', equals: 'p-7', caseInsensitive: true } });
    expect(await plan(q.sql, q.parameters)).not.toContain('assets_lookup');
  });

  it('a search for a rare word uses the trigram index on the display name', async () => {
    const q = pageQuery({ search: 'c4ca4238a0b923820dcc509a6f75849b' }); // md5('1')
    const p = await plan(q.sql, q.parameters);
    expect(p).toContain('assets_display_name_trgm');
    const { rows } = await database.pool.query(q.sql, q.parameters as unknown[]);
    expect(rows.map((r) => r.id)).toEqual(['I-000001']);
  });

  it('a search for a common word reads the primary key in order and stops at the page', async () => {
    const q = pageQuery({ search: 'Item' });
    const p = await plan(q.sql, q.parameters);
    expect(p).toMatch(/^Limit > Index Scan\(assets_pkey\)/);
  });

  it('a small bounding box or distance uses the GiST index on the vertices’ box', async () => {
    type Geometry =
      | { bbox: [number, number, number, number] }
      | { near: { longitude: number; latitude: number; distanceMeters: number } };
    const cases: Geometry[] = [
      { bbox: [-117.005, 52.495, -116.985, 52.515] },
      { near: { longitude: -116.995, latitude: 52.505, distanceMeters: 800 } },
    ];
    for (const geometry of cases) {
      const q = pageQuery({ geometry });
      const p = await plan(q.sql, q.parameters);
      expect(p, JSON.stringify(geometry)).toContain('assets_geometry_bbox');
      const { rows } = await database.pool.query(q.sql, q.parameters as unknown[]);
      // The same grid in plain TypeScript: a prefilter that dropped any point would show.
      const expected: string[] = [];
      for (let i = 1; i <= N; i++) {
        const lon = -118 + (i % 400) * 0.01;
        const lat = 52 + Math.floor(i / 400) * 0.01;
        const inside =
          'bbox' in geometry
            ? lon >= geometry.bbox[0]! &&
              lon <= geometry.bbox[2]! &&
              lat >= geometry.bbox[1]! &&
              lat <= geometry.bbox[3]!
            : haversine(geometry.near.longitude, geometry.near.latitude, lon, lat) <=
              geometry.near.distanceMeters;
        if (inside) expected.push(`I-${String(i).padStart(6, '0')}`);
      }
      expect(expected.length).toBeGreaterThan(1);
      expect(rows.map((r) => r.id)).toEqual(expected);
    }
  });

  it('related MANY by property looks targets up in the GIN index on lookup keys', async () => {
    const loaders = createAssetLoaders(database.db, GROUP);
    const sources = await listAssets(database.db, GROUP, 'parent', { limit: 99, backwards: false });
    const relationship = parent.relationships[0]!;
    statements.length = 0;
    const related = await Promise.all(
      sources.slice(0, 100).map((source) => loaders.related.load({ source, relationship, params: null })),
    );
    expect(related.every((r) => r.length === N / 500)).toBe(true);
    const lookups = statements.filter((s) => /\bjoin assets\b/.test(s.text) && s.text.includes('@>'));
    expect(lookups).toHaveLength(1);
    const p = await plan(lookups[0]!.text, lookups[0]!.values);
    expect(p).toContain('assets_lookup');
    expect(p).not.toMatch(/Seq Scan on assets|Seq Scan$/);
    // Without a pending list: after a bulk load every probe would read it whole until a vacuum.
    const { rows } = await sql<{ reloptions: string[] }>`
      select reloptions from pg_class where relname = 'assets_lookup'`.execute(database.db);
    expect(rows[0]!.reloptions).toContain('fastupdate=off');
  });

  it('runs without JIT compilation on PostgreSQL (it cost 120-170 ms on this lookup at a million wells)', async () => {
    // PGlite has no JIT; on PostgreSQL every pooled connection turns it off when it connects.
    if (database.engine !== 'postgres') return;
    const clients = await Promise.all([database.pool.connect(), database.pool.connect()]);
    try {
      for (const client of clients) expect((await client.query('show jit')).rows[0].jit).toBe('off');
    } finally {
      for (const client of clients) client.release();
    }
  });
});
