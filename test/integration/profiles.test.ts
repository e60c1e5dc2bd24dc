import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyProfiles, getProfileDocument } from '../../src/subgraphs/assets/profiles/profiles.service.ts';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let demo: Record<string, string>;

beforeAll(async () => {
  ({ app: t, demo } = await startDemoApp());
});
afterAll(() => t.close());

const UPDATE = `mutation($input: UpdateAssetProfileInput) { updateAssetProfile(input: $input) {
  correlationId errors { type message } assetProfile { profile title displayNameTemplate secondaryDisplayNameProperty } } }`;
const PUT = `mutation($input: putAssetProfileExtensionInput!) { putAssetProfileExtension(input: $input) {
  errors { type message } assetProfile { profile extensions properties { name extension } relationships { relationship extension } } } }`;
const REMOVE = `mutation($input: removeAssetProfileExtensionInput!) { removeAssetProfileExtension(input: $input) {
  errors { type message } assetProfile { extensions properties { name } } } }`;

async function stored() {
  return getProfileDocument(t.database.db, 'demo', 'well');
}

async function displayNames() {
  const rows = await t.database.db
    .selectFrom('assets')
    .select(['id', 'display_name'])
    .where('user_group', '=', 'demo')
    .where('profile', '=', 'well')
    .orderBy('id')
    .limit(2)
    .execute();
  return rows;
}

describe('updateAssetProfile (§4.3)', () => {
  it('changes the display template, and asset display names follow', async () => {
    const r = await t.graphql<any>(
      UPDATE,
      { input: { profile: 'well', displayNameTemplate: '{name} — {uwi|"no UWI"}', title: 'Oil well' } },
      { ...demo, 'x-request-id': 'req-1' },
    );
    expect(r.body.data.updateAssetProfile).toEqual({
      correlationId: 'req-1',
      errors: [],
      assetProfile: {
        profile: 'well',
        title: 'Oil well',
        displayNameTemplate: '{name} — {uwi|"no UWI"}',
        secondaryDisplayNameProperty: 'uwi',
      },
    });
    const asset = await t.graphql<any>(
      '{ assets(profile: "well") { byId(id: "W-100-1-1") { displayName properties(only: ["name", "uwi"]) } } }',
      {},
      demo,
    );
    const { displayName, properties } = asset.body.data.assets.byId;
    expect(displayName).toBe(`${properties.name} — ${properties.uwi}`);
    const [first] = await displayNames();
    expect(first!.display_name).toBe(displayName); // the stored name used by search follows too
  });

  it('refuses bad changes with a typed error and changes nothing', async () => {
    const before = await stored();
    const namesBefore = await displayNames();
    const cases: [Record<string, unknown>, string][] = [
      [{ profile: 'well', displayNameTemplate: '{name' }, 'INVALID_TEMPLATE'],
      [{ profile: 'well', displayNameTemplate: '{nope}' }, 'INVALID_TEMPLATE'],
      [{ profile: 'well', displayNameProperty: 'nope' }, 'UNKNOWN_PROPERTY'],
      [{ profile: 'well', isDeletedProperty: 'depth' }, 'INVALID_INPUT'],
      [{ profile: 'well', title: null }, 'INVALID_INPUT'],
      [{ profile: 'pump' }, 'NOT_FOUND'],
    ];
    for (const [input, type] of cases) {
      const r = await t.graphql<any>(UPDATE, { input }, demo);
      expect(r.body.data.updateAssetProfile, JSON.stringify(input)).toMatchObject({
        assetProfile: null,
        errors: [{ type }],
      });
    }
    const none = await t.graphql<any>(UPDATE, {}, demo);
    expect(none.body.data.updateAssetProfile.errors[0].type).toBe('INVALID_INPUT');
    expect(await stored()).toEqual(before);
    expect(await displayNames()).toEqual(namesBefore);
  });

  it('needs a signed-in caller', async () => {
    const r = await t.graphql<any>(UPDATE, { input: { profile: 'well', title: 'x' } });
    expect(r.body.data.updateAssetProfile.errors[0].type).toBe('UNAUTHENTICATED');
  });
});

describe('profile extensions (§4.3)', () => {
  it('adds, replaces and removes a named layer of definitions', async () => {
    const put = await t.graphql<any>(
      PUT,
      {
        input: {
          profile: 'well',
          extension: 'inspection',
          properties: [
            { name: 'lastInspected', type: 'DATE', title: 'Last inspected' },
            { name: 'inspector', type: 'STRING' },
          ],
          relationships: [
            {
              relationship: 'site',
              type: 'ONE',
              profile: 'site',
              referenceType: 'PROPERTY',
              referenceProperty: 'siteId',
              lookupType: 'ID',
            },
          ],
        },
      },
      demo,
    );
    // siteId is not defined anywhere: the relationship is refused, and nothing lands.
    expect(put.body.data.putAssetProfileExtension.errors[0].type).toBe('UNKNOWN_PROPERTY');
    const ok = await t.graphql<any>(
      PUT,
      {
        input: {
          profile: 'well',
          extension: 'inspection',
          properties: [
            { name: 'lastInspected', type: 'DATE', title: 'Last inspected' },
            { name: 'inspector', type: 'STRING', default: 'unassigned' },
          ],
        },
      },
      demo,
    );
    const p = ok.body.data.putAssetProfileExtension.assetProfile;
    expect(ok.body.data.putAssetProfileExtension.errors).toEqual([]);
    expect(p.extensions).toEqual(['inspection']);
    expect(p.properties.slice(-2)).toEqual([
      { name: 'lastInspected', extension: 'inspection' },
      { name: 'inspector', extension: 'inspection' },
    ]);
    const asset = await t.graphql<any>(
      '{ assets(profile: "well") { byId(id: "W-100-1-1") { properties(only: ["inspector"]) } } }',
      {},
      demo,
    );
    expect(asset.body.data.assets.byId.properties).toEqual({ inspector: 'unassigned' });

    const clash = await t.graphql<any>(
      PUT,
      { input: { profile: 'well', extension: 'more', properties: [{ name: 'depth', type: 'NUMBER' }] } },
      demo,
    );
    expect(clash.body.data.putAssetProfileExtension.errors[0]).toMatchObject({
      type: 'INVALID_INPUT',
      message: 'Property depth is defined twice.',
    });

    // A template that uses the extension's property blocks removing the extension.
    await t.graphql<any>(
      UPDATE,
      { input: { profile: 'well', displayNameTemplate: '{name} ({inspector})' } },
      demo,
    );
    const blocked = await t.graphql<any>(
      REMOVE,
      { input: { profile: 'well', extension: 'inspection' } },
      demo,
    );
    expect(blocked.body.data.removeAssetProfileExtension.errors[0].type).toBe('INVALID_TEMPLATE');
    await t.graphql<any>(UPDATE, { input: { profile: 'well', displayNameTemplate: null } }, demo);
    const removed = await t.graphql<any>(
      REMOVE,
      { input: { profile: 'well', extension: 'inspection' } },
      demo,
    );
    expect(removed.body.data.removeAssetProfileExtension.errors).toEqual([]);
    expect(removed.body.data.removeAssetProfileExtension.assetProfile.extensions).toEqual([]);
    const again = await t.graphql<any>(REMOVE, { input: { profile: 'well', extension: 'inspection' } }, demo);
    expect(again.body.data.removeAssetProfileExtension.errors[0].type).toBe('NOT_FOUND');
  });
});

describe('profile documents (assetql profiles apply)', () => {
  it('applies several profiles together, validating relationships across them, all or none', async () => {
    const pump = {
      profile: 'pump',
      title: 'Pump',
      displayNameProperty: 'tag',
      properties: [
        { name: 'tag', type: 'STRING', required: true },
        { name: 'wellId', type: 'STRING' },
      ],
      relationships: [
        {
          relationship: 'well',
          type: 'ONE',
          profile: 'well',
          referenceType: 'PROPERTY',
          referenceProperty: 'wellId',
          lookupType: 'ID',
        },
      ],
    };
    const meter = {
      ...pump,
      profile: 'meter',
      title: 'Meter',
      relationships: [{ ...pump.relationships[0]!, profile: 'valve' }],
    };
    const bad = await applyProfiles(t.database.db, 'demo', 'admin', [pump as never, meter as never]);
    expect(bad).toMatchObject({ ok: false, type: 'INVALID_RELATIONSHIP' });
    expect(await getProfileDocument(t.database.db, 'demo', 'pump')).toBeNull();
    const good = await applyProfiles(t.database.db, 'demo', 'admin', [pump as never]);
    expect(good).toEqual({ ok: true, value: ['pump'] });
    const doc = await getProfileDocument(t.database.db, 'demo', 'pump');
    expect(doc).toMatchObject({
      profile: 'pump',
      title: 'Pump',
      displayNameProperty: 'tag',
      version: 1,
      extensions: [],
    });
    const again = await applyProfiles(t.database.db, 'demo', 'admin', [
      { ...pump, title: 'Pump (ESP)' } as never,
    ]);
    expect(again.ok).toBe(true);
    expect(await getProfileDocument(t.database.db, 'demo', 'pump')).toMatchObject({
      title: 'Pump (ESP)',
      version: 2,
    });
  });
});
