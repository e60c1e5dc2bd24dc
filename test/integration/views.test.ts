import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;
/** The well views the demo tenant comes with, which the tests here leave alone. */
let seeded: { id: string; version: number }[];
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);

beforeAll(async () => {
  ({ app: t, demo, east } = await startDemoApp());
  const r = await t.graphql<any>(
    '{ assetProfiles { byId(profile: "well") { viewConfigurations { id version } } } }',
    {},
    demo,
  );
  seeded = r.body.data.assetProfiles.byId.viewConfigurations;
  expect(seeded.map((v) => v.id)).not.toContain('field');
});
afterAll(() => t.close());

const VIEW = `mutation($input: UpdateAssetProfileViewConfigurationInput!) { updateAssetProfileViewConfiguration(input: $input) {
  correlationId errors { type message } viewConfiguration { id name version map { center zoom baseLayer layers { id name visible labelProperty filter } } } } }`;
const LAYOUT = `mutation($input: UpdateAssetProfileViewLayoutInput) { updateAssetProfileViewLayout(input: $input) {
  errors { type message } layout { mediaType widgets { id name widget settings layout { x y w h } } } viewConfiguration { version } } }`;

const widgets = [
  { id: 'map', layout: { x: 0, y: 0, w: 8, h: 6 }, name: 'Map', widget: 'map', settings: { layer: 'all' } },
  { id: 'props', layout: { x: 8, y: 0, w: 4, h: 6 }, name: 'Properties', widget: 'properties' },
];

describe('view configurations (§2.5)', () => {
  it('creates a view with a map, then lays out widgets per media type', async () => {
    const created = await t.graphql<any>(
      VIEW,
      {
        input: {
          profile: 'well',
          id: 'field',
          name: 'Field view',
          map: {
            center: [-113.8, 52.3],
            zoom: 8,
            baseLayer: 'satellite',
            layers: [
              {
                id: 'producing',
                name: 'Producing',
                labelProperty: 'name',
                filter: { property: { name: 'status', equals: 'producing' } },
              },
            ],
          },
        },
      },
      demo,
    );
    expect(created.body.data.updateAssetProfileViewConfiguration).toMatchObject({
      errors: [],
      viewConfiguration: {
        id: 'field',
        name: 'Field view',
        version: 1,
        map: {
          center: [-113.8, 52.3],
          zoom: 8,
          baseLayer: 'satellite',
          layers: [{ id: 'producing', visible: true, labelProperty: 'name' }],
        },
      },
    });
    const web = await t.graphql<any>(
      LAYOUT,
      {
        input: { profile: 'well', viewConfiguration: 'field', mediaType: 'WEB', widgets, expectedVersion: 1 },
      },
      demo,
    );
    expect(web.body.data.updateAssetProfileViewLayout.errors).toEqual([]);
    expect(web.body.data.updateAssetProfileViewLayout.layout.widgets[1]).toEqual({
      ...widgets[1],
      settings: {},
    });
    await t.graphql<any>(
      LAYOUT,
      {
        input: {
          profile: 'well',
          viewConfiguration: 'field',
          mediaType: 'MOBILE',
          widgets: [{ ...widgets[0], layout: { x: 0, y: 0, w: 12, h: 4 } }],
        },
      },
      demo,
    );
    const read = await t.graphql<any>(
      `{ assetProfiles { byId(profile: "well") {
          viewConfigurations { id version }
          viewConfiguration(id: "field") { all: layouts { mediaType } mobile: layouts(mediaTypes: [MOBILE]) { mediaType widgets { id layout { w } } } }
      } } }`,
      {},
      demo,
    );
    const p = read.body.data.assetProfiles.byId;
    expect(p.viewConfigurations).toEqual([...seeded, { id: 'field', version: 3 }].sort(byId));
    expect(p.viewConfiguration.all.map((l: any) => l.mediaType)).toEqual(['WEB', 'MOBILE']);
    expect(p.viewConfiguration.mobile).toEqual([
      { mediaType: 'MOBILE', widgets: [{ id: 'map', layout: { w: 12 } }] },
    ]);
  });

  it('gives the second of two editors a conflict instead of overwriting', async () => {
    const first = await t.graphql<any>(
      LAYOUT,
      {
        input: {
          profile: 'well',
          viewConfiguration: 'field',
          mediaType: 'PRINTABLE',
          widgets,
          expectedVersion: 3,
        },
      },
      demo,
    );
    expect(first.body.data.updateAssetProfileViewLayout.viewConfiguration.version).toBe(4);
    const second = await t.graphql<any>(
      LAYOUT,
      {
        input: {
          profile: 'well',
          viewConfiguration: 'field',
          mediaType: 'PRINTABLE',
          widgets: [],
          expectedVersion: 3,
        },
      },
      demo,
    );
    expect(second.body.data.updateAssetProfileViewLayout).toMatchObject({
      layout: null,
      errors: [{ type: 'VERSION_CONFLICT' }],
    });
    const rename = await t.graphql<any>(
      VIEW,
      { input: { profile: 'well', id: 'field', name: 'Stale', expectedVersion: 2 } },
      demo,
    );
    expect(rename.body.data.updateAssetProfileViewConfiguration.errors[0].type).toBe('VERSION_CONFLICT');
  });

  it('refuses invalid layouts and maps with typed errors', async () => {
    const layout = async (ws: unknown[]) =>
      (
        await t.graphql<any>(
          LAYOUT,
          { input: { profile: 'well', viewConfiguration: 'field', mediaType: 'WEB', widgets: ws } },
          demo,
        )
      ).body.data.updateAssetProfileViewLayout.errors[0]?.type;
    expect(await layout([widgets[0], { ...widgets[1], id: 'map' }])).toBe('INVALID_LAYOUT');
    expect(await layout([{ ...widgets[0], layout: { x: 6, y: 0, w: 8, h: 2 } }])).toBe('INVALID_LAYOUT');
    expect(await layout([{ ...widgets[0], layout: { x: -1, y: 0, w: 2, h: 2 } }])).toBe('INVALID_LAYOUT');
    const missing = await t.graphql<any>(
      LAYOUT,
      { input: { profile: 'well', viewConfiguration: 'nope', mediaType: 'WEB', widgets: [] } },
      demo,
    );
    expect(missing.body.data.updateAssetProfileViewLayout.errors[0].type).toBe('NOT_FOUND');
    const map = async (m: unknown) =>
      (await t.graphql<any>(VIEW, { input: { profile: 'well', id: 'other', map: m } }, demo)).body.data
        .updateAssetProfileViewConfiguration.errors[0]?.type;
    expect(await map({ center: [200, 0] })).toBe('INVALID_INPUT');
    expect(await map({ layers: [{ id: 'a', name: 'A', labelProperty: 'nope' }] })).toBe('UNKNOWN_PROPERTY');
    expect(
      await map({ layers: [{ id: 'a', name: 'A', filter: { property: { name: 'nope', equals: 1 } } }] }),
    ).toBe('INVALID_FILTER');
    const read = await t.graphql<any>(
      '{ assetProfiles { byId(profile: "well") { viewConfigurations { id } } } }',
      {},
      demo,
    );
    expect(read.body.data.assetProfiles.byId.viewConfigurations).toEqual(
      [...seeded.map(({ id }) => ({ id })), { id: 'field' }].sort(byId),
    );
  });

  it('deletes a view, and keeps views to their group', async () => {
    const other = await t.graphql<any>(
      '{ assetProfiles { byId(profile: "well") { viewConfigurations { id } } } }',
      {},
      east,
    );
    expect(other.body.data.assetProfiles.byId.viewConfigurations).toEqual([]);
    const del = await t.graphql<any>(VIEW, { input: { profile: 'well', id: 'field', delete: true } }, demo);
    expect(del.body.data.updateAssetProfileViewConfiguration).toMatchObject({
      errors: [],
      viewConfiguration: null,
    });
    const gone = await t.graphql<any>(
      '{ assetProfiles { byId(profile: "well") { viewConfiguration(id: "field") { id } } } }',
      {},
      demo,
    );
    expect(gone.body.data.assetProfiles.byId.viewConfiguration).toBeNull();
  });
});
