import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let demo: Record<string, string>;

beforeAll(async () => {
  ({ app: t, demo } = await startDemoApp());
});
afterAll(() => t.close());

const PUT = `mutation($input: UpdateAssetProfileAssetConversionConfigurationInput!) {
  updateAssetProfileAssetConversionConfiguration(input: $input) { correlationId errors { type message }
    assetConversionConfiguration { id name targetProfile targetAssetProfile { profile } propertyMappings { targetProperty sourceProperty value } sourceRelationship deleteSource } } }`;

describe('asset conversion configurations (§2.1, §4.3)', () => {
  it('stores a recipe validated against both profiles, and lists it', async () => {
    const r = await t.graphql<any>(
      PUT,
      {
        input: {
          profile: 'facility',
          id: 'to-site',
          name: 'Promote to site',
          targetProfile: 'site',
          propertyMappings: [
            { targetProperty: 'name', sourceProperty: 'name' },
            { targetProperty: 'region', value: 'Alberta' },
          ],
          deleteSource: true,
        },
      },
      demo,
    );
    expect(r.body.data.updateAssetProfileAssetConversionConfiguration).toMatchObject({
      errors: [],
      assetConversionConfiguration: {
        id: 'to-site',
        targetProfile: 'site',
        targetAssetProfile: { profile: 'site' },
        propertyMappings: [
          { targetProperty: 'name', sourceProperty: 'name', value: null },
          { targetProperty: 'region', sourceProperty: null, value: 'Alberta' },
        ],
        sourceRelationship: null,
        deleteSource: true,
      },
    });
    const listed = await t.graphql<any>(
      '{ assetProfiles { byId(profile: "facility") { assetConversionConfigurations { id name } } } }',
      {},
      demo,
    );
    expect(listed.body.data.assetProfiles.byId.assetConversionConfigurations).toEqual([
      { id: 'to-site', name: 'Promote to site' },
    ]);
  });

  it('refuses mappings that do not fit either profile', async () => {
    const base = { profile: 'facility', id: 'bad', targetProfile: 'site' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, targetProfile: 'pump' }, 'NOT_FOUND'],
      [
        { ...base, propertyMappings: [{ targetProperty: 'nope', sourceProperty: 'name' }] },
        'UNKNOWN_PROPERTY',
      ],
      [
        { ...base, propertyMappings: [{ targetProperty: 'name', sourceProperty: 'nope' }] },
        'UNKNOWN_PROPERTY',
      ],
      [
        { ...base, propertyMappings: [{ targetProperty: 'name', sourceProperty: 'name', value: 'x' }] },
        'INVALID_INPUT',
      ],
      [{ ...base, propertyMappings: [] }, 'INVALID_INPUT'], // site.name is required
      [
        {
          ...base,
          propertyMappings: [{ targetProperty: 'name', sourceProperty: 'name' }],
          sourceRelationship: 'nope',
        },
        'INVALID_RELATIONSHIP',
      ],
    ];
    for (const [input, type] of cases) {
      const r = await t.graphql<any>(PUT, { input }, demo);
      expect(r.body.data.updateAssetProfileAssetConversionConfiguration, JSON.stringify(input)).toMatchObject(
        {
          assetConversionConfiguration: null,
          errors: [{ type }],
        },
      );
    }
    const del = await t.graphql<any>(PUT, { input: { ...base, id: 'to-site', delete: true } }, demo);
    expect(del.body.data.updateAssetProfileAssetConversionConfiguration).toMatchObject({
      errors: [],
      assetConversionConfiguration: null,
    });
  });
});

describe('convertAssets (assetql addition)', () => {
  const CONVERT = `mutation($input: ConvertAssetsInput!) { convertAssets(input: $input, correlationId: "cv") {
    correlationId inserted updated deleted errors { type message } assets { id profile displayName properties } } }`;

  it('turns chosen assets into assets of the target profile and retires the sources, all or none', async () => {
    await t.graphql<any>(
      PUT,
      {
        input: {
          profile: 'facility',
          id: 'promote',
          targetProfile: 'site',
          propertyMappings: [
            { targetProperty: 'name', sourceProperty: 'name' },
            { targetProperty: 'region', value: 'Alberta' },
          ],
          deleteSource: true,
        },
      },
      demo,
    );
    const bad = await t.graphql<any>(
      CONVERT,
      { input: { profile: 'facility', conversion: 'promote', ids: ['F-100-1', 'F-nope'] } },
      demo,
    );
    expect(bad.body.data.convertAssets).toMatchObject({ assets: null, errors: [{ type: 'NOT_FOUND' }] });
    const r = await t.graphql<any>(
      CONVERT,
      { input: { profile: 'facility', conversion: 'promote', ids: ['F-100-1', 'F-100-2'] } },
      demo,
    );
    const result = r.body.data.convertAssets;
    expect(result).toMatchObject({ correlationId: 'cv', inserted: 2, updated: 0, deleted: 2, errors: [] });
    expect(result.assets.map((a: any) => [a.id, a.profile, a.properties.region])).toEqual([
      ['F-100-1', 'site', 'Alberta'],
      ['F-100-2', 'site', 'Alberta'],
    ]);
    const source = await t.graphql<any>(
      '{ assets(profile: "facility") { byId(id: "F-100-1") { isDeleted } } }',
      {},
      demo,
    );
    expect(source.body.data.assets.byId.isDeleted).toBe(true);
  });
});
