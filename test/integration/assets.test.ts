import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PROFILE_DOCUMENTS, seedDemo } from '../../src/demo/seed.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

// Counts every statement the service sends, to show that batching holds.
let statements = 0;
let database: TestDatabase;
let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;
/** Every demo profile, in the order `assetProfiles.all` lists them. */
const PROFILE_NAMES = Object.keys(DEMO_PROFILE_DOCUMENTS).sort();

beforeAll(async () => {
  database = await freshDatabase({
    onConnect(client) {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        statements++;
        if (process.env.LOG_SQL)
          console.log(
            'SQL',
            String((args[0] as any)?.text ?? args[0])
              .replace(/\s+/g, ' ')
              .slice(0, 140),
          );
        return query(...args);
      };
    },
  });
  t = await startTestApp({ database });
  await seedDemo(database.db, t.config);
  demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
  east = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo-east') };
});
afterAll(async () => {
  await t.close();
  await database.close();
});

async function counted<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const before = statements;
  const r = await fn();
  return [r, statements - before];
}

describe('asset profiles (§2.1, §2.4)', () => {
  it('lists the group’s profiles in pages, with their definitions', async () => {
    const first = await t.graphql<any>(
      '{ assetProfiles { all(first: 2) { edges { node { profile title } } pageInfo { hasNextPage endCursor } } } }',
      {},
      demo,
    );
    const page = first.body.data.assetProfiles.all;
    expect(page.edges.map((e: any) => e.node.profile)).toEqual(PROFILE_NAMES.slice(0, 2));
    expect(page.pageInfo.hasNextPage).toBe(true);
    const seen = page.edges.map((e: any) => e.node.profile);
    let after = page.pageInfo.endCursor;
    for (;;) {
      const rest = await t.graphql<any>(
        'query($a: String) { assetProfiles { all(first: 2, after: $a) { edges { node { profile } } pageInfo { hasNextPage hasPreviousPage endCursor } } } }',
        { a: after },
        demo,
      );
      const next = rest.body.data.assetProfiles.all;
      expect(next.pageInfo.hasPreviousPage).toBe(true);
      seen.push(...next.edges.map((e: any) => e.node.profile));
      expect(next.pageInfo.hasNextPage).toBe(seen.length < PROFILE_NAMES.length);
      if (!next.pageInfo.hasNextPage) break;
      after = next.pageInfo.endCursor;
    }
    expect(seen).toEqual(PROFILE_NAMES);
  });

  it('shows a profile’s fields', async () => {
    const r = await t.graphql<any>(
      `{ assetProfiles { byId(profile: "well") {
          profile title owner { username group } displayNameProperty displayNameTemplate secondaryDisplayNameProperty
          isDeletedProperty forceAssetStateUpdates extensions
          properties { name type title unit required default enumValues extension }
          relationships { relationship type profile assetProfile { profile } referenceProperty referenceType lookupProperty lookupType parameters { name } }
      } } }`,
      {},
      demo,
    );
    expect(r.body.errors).toBeUndefined();
    const p = r.body.data.assetProfiles.byId;
    expect(p).toMatchObject({
      profile: 'well',
      title: 'Well',
      owner: { username: 'demo', group: 'demo' },
      displayNameProperty: 'name',
      displayNameTemplate: null,
      secondaryDisplayNameProperty: 'uwi',
      isDeletedProperty: 'abandoned',
      forceAssetStateUpdates: false,
      extensions: [],
    });
    expect(p.properties.find((d: any) => d.name === 'depth')).toEqual({
      name: 'depth',
      type: 'NUMBER',
      title: 'Total depth',
      unit: 'm',
      required: false,
      default: null,
      enumValues: null,
      extension: null,
    });
    expect(p.relationships[0]).toEqual({
      relationship: 'facility',
      type: 'ONE',
      profile: 'facility',
      assetProfile: { profile: 'facility' },
      referenceProperty: 'facilityId',
      referenceType: 'PROPERTY',
      lookupProperty: null,
      lookupType: 'ID',
      parameters: null,
    });
    // Relationships added later (the equipment on a well's pad) come after the first one.
    expect(p.relationships.map((r: any) => r.relationship)).toEqual(
      DEMO_PROFILE_DOCUMENTS.well!.document.relationships!.map((r) => r.relationship),
    );
  });
});

describe('assets (§2.2)', () => {
  it('computes display names, defaults, `only`, geometry and the GeoJSON feature', async () => {
    const r = await t.graphql<any>(
      `{ assetProfiles { byId(profile: "facility") { assetById(id: "F-100-1") {
          id profile assetProfile { profile } displayName secondaryDisplayName isDeleted modifiedAt observation
          all: properties only: properties(only: ["kind", "nope"])
          geometry { type bbox ... on GeoJSONPoint { coordinates } }
          geoJSONFeature { type id geometry { type } properties }
      } } } }`,
      {},
      demo,
    );
    expect(r.body.errors).toBeUndefined();
    const a = r.body.data.assetProfiles.byId.assetById;
    expect(a.displayName).toBe(`${a.all.name} (${a.all.kind})`); // the template with its fallback
    expect(a.secondaryDisplayName).toBe(a.all.kind);
    expect(a.only).toEqual({ kind: a.all.kind });
    expect(a.isDeleted).toBe(false);
    expect(a.geometry.type).toBe('Point');
    expect(a.geometry.bbox).toEqual([...a.geometry.coordinates, ...a.geometry.coordinates]);
    expect(a.geoJSONFeature).toMatchObject({
      type: 'Feature',
      id: 'facility/F-100-1',
      geometry: { type: 'Point' },
    });
    const site = await t.graphql<any>(
      '{ assets(profile: "site") { byId(id: "S-100") { properties only: properties(only: ["operator", "constructor", "nope"]) } } }',
      {},
      demo,
    );
    expect(site.body.data.assets.byId.properties.operator).toBe('Northwind Energy'); // the default
    // `only` shows the same: defaults included, names an asset does not hold (even Object's) left out.
    expect(site.body.data.assets.byId.only).toEqual({ operator: 'Northwind Energy' });
  });

  it('pages forwards and backwards with no gaps or repeats, and refuses pages over the maximum', async () => {
    const forward: string[] = [];
    let after: string | null = null;
    for (;;) {
      const r: any = await t.graphql(
        'query($a: String) { assets(profile: "well") { all(first: 5, after: $a) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } }',
        { a: after },
        demo,
      );
      const page = r.body.data.assets.all;
      forward.push(...page.edges.map((e: any) => e.node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(forward).toHaveLength(24);
    expect([...forward].sort()).toEqual(forward);
    const backward: string[] = [];
    let before: string | null = null;
    for (;;) {
      const r: any = await t.graphql(
        'query($b: String) { assets(profile: "well") { all(last: 7, before: $b) { edges { node { id } } pageInfo { hasPreviousPage startCursor } } } }',
        { b: before },
        demo,
      );
      const page = r.body.data.assets.all;
      backward.unshift(...page.edges.map((e: any) => e.node.id));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(forward);
    const tooMany = await t.graphql<any>(
      '{ assets(profile: "well") { all(first: 1001) { edges { node { id } } } } }',
      {},
      demo,
    );
    expect(tooMany.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', maximum: 1000 } });
    const mixed = await t.graphql<any>(
      '{ assets(profile: "well") { all(first: 2, last: 2) { edges { node { id } } } } }',
      {},
      demo,
    );
    expect(mixed.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('relationships (§2.3)', () => {
  it('navigates ONE and MANY relationships', async () => {
    const r = await t.graphql<any>(
      `{ assets(profile: "well") { byId(id: "W-100-1-2") {
          related(relationship: "facility") { __typename ... on AssetRelationshipOne { asset { id profile } observation } }
          default: related { __typename }
      } } }`,
      {},
      demo,
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.assets.byId.related).toEqual({
      __typename: 'AssetRelationshipOne',
      asset: { id: 'F-100-1', profile: 'facility' },
      observation: null,
    });
    expect(r.body.data.assets.byId.default.__typename).toBe('AssetRelationshipOne');
    const many = await t.graphql<any>(
      `{ assets(profile: "facility") { byId(id: "F-100-1") { related(relationship: "wells") {
          ... on AssetRelationshipMany { assets { id } observations } } } } }`,
      {},
      demo,
    );
    expect(many.body.data.assets.byId.related.assets.map((a: any) => a.id)).toEqual([
      'W-100-1-1',
      'W-100-1-2',
      'W-100-1-3',
      'W-100-1-4',
    ]);
    const unknown = await t.graphql<any>(
      '{ assets(profile: "well") { byId(id: "W-100-1-2") { related(relationship: "nope") { __typename } } } }',
      {},
      demo,
    );
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('costs a constant number of statements for a page, however many assets ask', async () => {
    const query = (n: number) => `{ assets(profile: "well") { all(first: ${n}) { edges { node { id
      related(relationship: "facility") { ... on AssetRelationshipOne { asset { id displayName
        related(relationship: "site") { ... on AssetRelationshipOne { asset { displayName } } } } } } } } } } }`;
    const [small, fewStatements] = await counted(() => t.graphql<any>(query(2), {}, demo));
    const [large, manyStatements] = await counted(() => t.graphql<any>(query(24), {}, demo));
    expect(small.body.errors).toBeUndefined();
    expect(large.body.data.assets.all.edges).toHaveLength(24);
    expect(
      large.body.data.assets.all.edges.every((e: any) => e.node.related.asset.related.asset.displayName),
    ).toBe(true);
    expect(manyStatements).toBe(fewStatements);
    // the page, then per level a profile and a relationship lookup: 1 + 2 + 2 + 1 for the site profile
    expect(manyStatements).toBeLessThanOrEqual(6);
  });
});

describe('tenant isolation', () => {
  it('shows another group nothing, not even profile names', async () => {
    const profiles = await t.graphql<any>(
      '{ assetProfiles { all { edges { node { profile } } } byId(profile: "well") { profile } } }',
      {},
      east,
    );
    expect(profiles.body.data.assetProfiles.all.edges.map((e: any) => e.node.profile)).toEqual(PROFILE_NAMES);
    // demo-east has the same profile names but only its own assets.
    const wells = await t.graphql<any>(
      '{ assets(profile: "well") { all { edges { node { id } } } } }',
      {},
      east,
    );
    expect(wells.body.data.assets.all.edges).toEqual([]);
    const sites = await t.graphql<any>(
      '{ assets(profile: "site") { all { edges { node { id } } } } }',
      {},
      east,
    );
    expect(sites.body.data.assets.all.edges.map((e: any) => e.node.id)).toEqual(['S-300']);
    const byId = await t.graphql<any>('{ assets(profile: "site") { byId(id: "S-100") { id } } }', {}, east);
    expect(byId.body.data.assets.byId).toBeNull();
    await database.db
      .deleteFrom('asset_profiles')
      .where('user_group', '=', 'demo-east')
      .where('profile', '=', 'well')
      .execute();
    const gone = await t.graphql<any>(
      '{ assets(profile: "well") { profile } assetProfiles { byId(profile: "well") { profile } } }',
      {},
      east,
    );
    expect(gone.body.data).toEqual({ assets: null, assetProfiles: { byId: null } });
    const anonymous = await t.graphql<any>('{ assetProfiles { all { edges { node { profile } } } } }');
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('filters through the API (docs/schema.md §5)', () => {
  const LIST = `query($p: ID!, $f: AssetFilter, $a: String) { assetProfiles { byId(profile: $p) {
    assets(first: 3, after: $a, filter: $f) { edges { node { id properties } } pageInfo { hasNextPage endCursor } } } } }`;

  async function allIds(profile: string, filter: unknown) {
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const r: any = await t.graphql(LIST, { p: profile, f: filter, a: after }, demo);
      expect(r.body.errors).toBeUndefined();
      const page = r.body.data.assetProfiles.byId.assets;
      ids.push(...page.edges.map((e: any) => e.node.id));
      if (!page.pageInfo.hasNextPage) return ids;
      after = page.pageInfo.endCursor;
    }
  }

  it('pages through the assets a predicate selects, the same as reading them all', async () => {
    const all = await t.database.db
      .selectFrom('assets')
      .select(['id', 'properties'])
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .orderBy('id')
      .execute();
    const expected = all
      .filter((a) => a.properties.status === 'producing' && Number(a.properties.depth) > 2000)
      .map((a) => a.id);
    const ids = await allIds('well', {
      property: { name: 'status', equals: 'producing' },
      and: [{ property: { name: 'depth', gt: 2000 } }],
    });
    expect(ids).toEqual(expected);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('selects through relationships, including “none”', async () => {
    // Facilities whose wells include a shut-in one, and facilities with no shut-in well.
    const some = await allIds('facility', {
      related: { relationship: 'wells', some: { property: { name: 'status', equals: 'shut-in' } } },
    });
    const none = await allIds('facility', {
      related: { relationship: 'wells', none: { property: { name: 'status', equals: 'shut-in' } } },
    });
    expect([...some, ...none].sort()).toEqual((await allIds('facility', {})).sort());
    expect(some.filter((id) => none.includes(id))).toEqual([]);
  });

  it('refuses a filter that does not fit the profile, naming the place', async () => {
    const r = await t.graphql<any>(
      LIST,
      { p: 'well', f: { or: [{ property: { name: 'nope', equals: 1 } }] } },
      demo,
    );
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', type: 'INVALID_FILTER' });
    expect(r.body.errors?.[0]?.message).toMatch(/filter\.or\[0\]\.property\.name/);
  });
});

describe('writing assets (upsertAssets, deleteAssets)', () => {
  const UPSERT = `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input, correlationId: "w1") {
    correlationId inserted updated errors { type message } assets { id displayName properties isDeleted geometry { type } } } }`;
  const DELETE = `mutation($input: DeleteAssetsInput!) { deleteAssets(input: $input) { deleted errors { type message } } }`;

  it('creates and replaces assets in one batch, checked against the profile', async () => {
    const r = await t.graphql<any>(
      UPSERT,
      {
        input: {
          profile: 'well',
          assets: [
            {
              id: 'W-NEW-1',
              properties: { name: 'New 1', depth: 1234, status: 'drilling' },
              geometry: { type: 'Point', coordinates: [-113.5, 52.1] },
            },
            { id: 'W-100-1-1', properties: { name: 'Renamed', status: 'producing' } },
          ],
        },
      },
      demo,
    );
    expect(r.body.data.upsertAssets).toMatchObject({
      correlationId: 'w1',
      inserted: 1,
      updated: 1,
      errors: [],
    });
    expect(r.body.data.upsertAssets.assets.map((a: any) => [a.id, a.displayName, a.geometry?.type])).toEqual([
      ['W-NEW-1', 'New 1', 'Point'],
      ['W-100-1-1', 'Renamed', 'Point'], // geometry kept when none is given
    ]);
  });

  it('writes nothing when any asset is bad, and says which', async () => {
    const before = await t.database.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const r = await t.graphql<any>(
      UPSERT,
      {
        input: {
          profile: 'well',
          assets: [
            { id: 'W-NEW-2', properties: { name: 'Fine' } },
            { id: 'W-NEW-3', properties: { name: 'Bad', depth: 'deep', colour: 'red' } },
            {
              id: 'W-NEW-4',
              properties: { name: 'Bad geometry' },
              geometry: { type: 'Point', coordinates: [500, 0] },
            },
          ],
        },
      },
      demo,
    );
    expect(r.body.data.upsertAssets.assets).toBeNull();
    expect(r.body.data.upsertAssets.errors[0].type).toBe('INVALID_INPUT');
    expect(r.body.data.upsertAssets.errors[0].message).toMatch(/assets\[1\].*depth/);
    expect(r.body.data.upsertAssets.errors[0].message).toMatch(/colour/);
    expect(r.body.data.upsertAssets.errors[0].message).toMatch(/assets\[2\]/);
    const after = await t.database.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('soft-deletes through the profile’s deleted property, and hard-deletes on request', async () => {
    const soft = await t.graphql<any>(DELETE, { input: { profile: 'well', ids: ['W-NEW-1'] } }, demo);
    expect(soft.body.data.deleteAssets).toEqual({ deleted: 1, errors: [] });
    const gone = await t.graphql<any>(
      '{ assets(profile: "well") { byId(id: "W-NEW-1") { isDeleted properties(only: ["abandoned"]) } } }',
      {},
      demo,
    );
    expect(gone.body.data.assets.byId).toEqual({ isDeleted: true, properties: { abandoned: true } });
    const hard = await t.graphql<any>(
      DELETE,
      { input: { profile: 'well', ids: ['W-NEW-1'], hard: true } },
      demo,
    );
    expect(hard.body.data.deleteAssets.deleted).toBe(1);
    const none = await t.graphql<any>('{ assets(profile: "well") { byId(id: "W-NEW-1") { id } } }', {}, demo);
    expect(none.body.data.assets.byId).toBeNull();
  });

  it('keeps writes inside the caller’s group', async () => {
    const r = await t.graphql<any>(
      UPSERT,
      { input: { profile: 'site', assets: [{ id: 'S-100', properties: { name: 'East copy' } }] } },
      east,
    );
    expect(r.body.data.upsertAssets).toMatchObject({ inserted: 1, updated: 0 });
    const demoSite = await t.graphql<any>(
      '{ assets(profile: "site") { byId(id: "S-100") { displayName } } }',
      {},
      demo,
    );
    expect(demoSite.body.data.assets.byId.displayName).toBe('Red Deer Field');
  });
});
