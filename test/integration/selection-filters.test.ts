import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;
/** The filters the demo tenant comes with, which the tests here leave alone. */
let seeded: { id: string }[];

beforeAll(async () => {
  ({ app: t, demo, east } = await startDemoApp());
  seeded = (await t.graphql<any>('{ assetFilters { id } }', {}, demo)).body.data.assetFilters;
  expect(seeded.map((f) => f.id)).not.toContain('producing-wells');
});
afterAll(() => t.close());

const FIELDS = `id displayName description profile assetProfile { profile } filter
  subProfiles { relationship profile filter subProfiles { relationship } }
  audit { createdBy updatedBy version createdAt updatedAt }`;
const CREATE = `mutation($input: CreateAssetFilterInput!, $cid: String) {
  createAssetFilter(input: $input, correlationId: $cid) { correlationId errors { type message } assetFilter { ${FIELDS} } } }`;
const UPDATE = `mutation($input: UpdateAssetFilterInput!, $cid: String) {
  updateAssetFilter(input: $input, correlationId: $cid) { correlationId errors { type message } assetFilter { ${FIELDS} } } }`;

const producing = { property: { name: 'status', equals: 'producing' } };

describe('asset selection filters (§2.6, §4.3)', () => {
  it('creates a filter and echoes the correlation id', async () => {
    const r = await t.graphql<any>(
      CREATE,
      {
        input: {
          id: 'producing-wells',
          displayName: 'Producing wells',
          profile: 'well',
          filter: producing,
          subProfiles: [
            { relationship: 'facility', filter: { property: { name: 'kind', in: ['battery', 'plant'] } } },
          ],
        },
        cid: 'c-1',
      },
      demo,
    );
    const result = r.body.data.createAssetFilter;
    expect(result.correlationId).toBe('c-1');
    expect(result.errors).toEqual([]);
    expect(result.assetFilter).toMatchObject({
      id: 'producing-wells',
      displayName: 'Producing wells',
      description: null,
      profile: 'well',
      assetProfile: { profile: 'well' },
      filter: producing,
      subProfiles: [{ relationship: 'facility', profile: 'facility', subProfiles: [] }],
      audit: { createdBy: 'demo', updatedBy: 'demo', version: 1 },
    });
  });

  it('answers DUPLICATE_ID with a null payload for an existing id (§7.3)', async () => {
    const r = await t.graphql<any>(
      CREATE,
      {
        input: { id: 'producing-wells', displayName: 'Again', profile: 'site', subProfiles: [] },
        cid: 'c-2',
      },
      demo,
    );
    expect(r.body.data.createAssetFilter).toEqual({
      correlationId: 'c-2',
      assetFilter: null,
      errors: [{ type: 'DUPLICATE_ID', message: 'An asset filter producing-wells already exists.' }],
    });
  });

  it('refuses filters that do not fit, with typed errors', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ id: 'x1', displayName: 'x', profile: 'pump', subProfiles: [] }, 'NOT_FOUND'],
      [
        {
          id: 'x2',
          displayName: 'x',
          profile: 'well',
          filter: { property: { name: 'nope', equals: 1 } },
          subProfiles: [],
        },
        'INVALID_FILTER',
      ],
      [
        { id: 'x3', displayName: 'x', profile: 'well', subProfiles: [{ relationship: 'nope' }] },
        'INVALID_RELATIONSHIP',
      ],
      [{ id: 'bad id!', displayName: 'x', profile: 'well', subProfiles: [] }, 'INVALID_INPUT'],
    ];
    for (const [input, type] of cases) {
      const r = await t.graphql<any>(CREATE, { input }, demo);
      expect(r.body.data.createAssetFilter, JSON.stringify(input)).toMatchObject({
        assetFilter: null,
        errors: [{ type }],
      });
    }
    const listed = await t.graphql<any>('{ assetFilters { id } }', {}, demo);
    expect(listed.body.data.assetFilters).toEqual(
      [...seeded, { id: 'producing-wells' }].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
  });

  it('updates with optimistic concurrency', async () => {
    const ok = await t.graphql<any>(
      UPDATE,
      {
        input: {
          id: 'producing-wells',
          displayName: 'Producing, deep',
          filter: { ...producing, and: [{ property: { name: 'depth', gt: 2000 } }] },
          expectedVersion: 1,
        },
      },
      demo,
    );
    expect(ok.body.data.updateAssetFilter.errors).toEqual([]);
    expect(ok.body.data.updateAssetFilter.assetFilter).toMatchObject({
      displayName: 'Producing, deep',
      audit: { version: 2 },
    });
    const stale = await t.graphql<any>(
      UPDATE,
      { input: { id: 'producing-wells', displayName: 'Lost edit', expectedVersion: 1 }, cid: 'u-2' },
      demo,
    );
    expect(stale.body.data.updateAssetFilter).toMatchObject({
      correlationId: 'u-2',
      assetFilter: null,
      errors: [{ type: 'VERSION_CONFLICT' }],
    });
    const missing = await t.graphql<any>(UPDATE, { input: { id: 'nope', displayName: 'x' } }, demo);
    expect(missing.body.data.updateAssetFilter.errors[0].type).toBe('NOT_FOUND');
    const bad = await t.graphql<any>(
      UPDATE,
      { input: { id: 'producing-wells', filter: { property: { name: 'depth', contains: 'x' } } } },
      demo,
    );
    expect(bad.body.data.updateAssetFilter.errors[0].type).toBe('INVALID_FILTER');
    const read = await t.graphql<any>(
      '{ assetFilter(id: "producing-wells") { displayName audit { version } } }',
      {},
      demo,
    );
    expect(read.body.data.assetFilter).toEqual({ displayName: 'Producing, deep', audit: { version: 2 } });
  });

  it('lets one of concurrent edits of the same version through, renames and filter changes alike', async () => {
    const kept = (
      await t.graphql<any>('{ assetFilter(id: "producing-wells") { description filter } }', {}, demo)
    ).body.data.assetFilter;
    const version = async () =>
      (await t.graphql<any>('{ assetFilter(id: "producing-wells") { audit { version } } }', {}, demo)).body
        .data.assetFilter.audit.version as number;
    for (const change of [
      (i: number) => ({ displayName: `Rename ${i}` }),
      (i: number) => ({ description: `Note ${i}`, filter: { property: { name: 'depth', gt: 1000 + i } } }),
    ]) {
      const before = await version();
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          t.graphql<any>(
            UPDATE,
            { input: { id: 'producing-wells', expectedVersion: before, ...change(i) } },
            demo,
          ),
        ),
      );
      const types = answers.map((a) => a.body.data.updateAssetFilter.errors[0]?.type ?? 'ok');
      expect(types.filter((x) => x === 'ok')).toHaveLength(1);
      expect(types.filter((x) => x === 'VERSION_CONFLICT')).toHaveLength(7);
      expect(await version()).toBe(before + 1);
    }
    const restored = await t.graphql<any>(UPDATE, { input: { id: 'producing-wells', ...kept } }, demo);
    expect(restored.body.data.updateAssetFilter.errors).toEqual([]);
    // A rename of another group's filter finds nothing (tenancy on the one-statement path too).
    const foreign = await t.graphql<any>(
      UPDATE,
      { input: { id: 'producing-wells', displayName: 'Mine' } },
      east,
    );
    expect(foreign.body.data.updateAssetFilter.errors[0].type).toBe('NOT_FOUND');
    const invalid = await t.graphql<any>(UPDATE, { input: { id: 'nope', displayName: ' ' } }, demo);
    expect(invalid.body.data.updateAssetFilter.errors[0].type).toBe('NOT_FOUND');
  });

  it('resolves to the assets it selects, paginated', async () => {
    const rows = await t.database.db
      .selectFrom('assets')
      .select(['id', 'properties'])
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .orderBy('id')
      .execute();
    const expected = rows
      .filter((a) => a.properties.status === 'producing' && Number(a.properties.depth) > 2000)
      .map((a) => a.id);
    const r = await t.graphql<any>(
      '{ assetFilter(id: "producing-wells") { assets(first: 100) { edges { node { id } } } } }',
      {},
      demo,
    );
    expect(r.body.data.assetFilter.assets.edges.map((e: any) => e.node.id)).toEqual(expected);
  });

  it('keeps filters to their group', async () => {
    const list = await t.graphql<any>(
      '{ assetFilters { id } assetFilter(id: "producing-wells") { id } }',
      {},
      east,
    );
    expect(list.body.data).toEqual({ assetFilters: [], assetFilter: null });
    const anonymous = await t.graphql<any>(CREATE, {
      input: { id: 'a', displayName: 'a', profile: 'well', subProfiles: [] },
    });
    expect(anonymous.body.data.createAssetFilter.errors[0].type).toBe('UNAUTHENTICATED');
  });
});
