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

describe('AssetProfile.version (what ifVersion takes)', () => {
  const READ = `{ assetProfiles {
    byId(profile: "well") { version title history(first: 1) { edges { node { entity kind version } } } }
    all(first: 500) { edges { node { profile version } } } }
    assets(profile: "well") { byId(id: "W-100-1-1") { assetProfile { version } } } }`;
  const VERSIONED = `mutation($input: UpdateAssetProfileInput) { updateAssetProfile(input: $input) {
    errors { type message } assetProfile { profile title version } } }`;

  /** The version every way of reading the profile shows, in a request of its own. */
  async function read() {
    const r = await t.graphql<any>(READ, {}, demo);
    expect(r.body.errors).toBeUndefined();
    const { byId, all } = r.body.data.assetProfiles;
    const listed = all.edges.find((e: any) => e.node.profile === 'well').node.version;
    expect(listed).toBe(byId.version);
    expect(r.body.data.assets.byId.assetProfile.version).toBe(byId.version);
    expect((await stored())!.version).toBe(byId.version);
    return {
      version: byId.version as number,
      title: byId.title as string,
      last: byId.history.edges[0]?.node,
    };
  }

  it('is answered by a write made at it, one more, and read so afterwards and in the change log', async () => {
    const { version } = await read();
    const r = await t.graphql<any>(
      VERSIONED,
      { input: { profile: 'well', title: 'Versioned well', ifVersion: version } },
      demo,
    );
    expect(r.body.data.updateAssetProfile).toEqual({
      errors: [],
      assetProfile: { profile: 'well', title: 'Versioned well', version: version + 1 },
    });
    const after = await read();
    expect(after).toMatchObject({ version: version + 1, title: 'Versioned well' });
    expect(after.last).toEqual({ entity: 'ASSET_PROFILE', kind: 'UPDATED', version: version + 1 });
  });

  it('refuses the version before with VERSION_CONFLICT, writing nothing', async () => {
    const { version, title } = await read();
    const before = await stored();
    const stale = await t.graphql<any>(
      VERSIONED,
      { input: { profile: 'well', title: 'Stale', ifVersion: version - 1 } },
      demo,
    );
    expect(stale.body.data.updateAssetProfile).toEqual({
      errors: [
        {
          type: 'VERSION_CONFLICT',
          message: `The profile is at version ${version}, not ${version - 1}; reload it.`,
        },
      ],
      assetProfile: null,
    });
    expect(await stored()).toEqual(before);
    expect(await read()).toMatchObject({ version, title });
  });

  it('lets one of two writes at the same version through', async () => {
    const { version } = await read();
    const answers = await Promise.all(
      ['First', 'Second'].map((title) =>
        t.graphql<any>(VERSIONED, { input: { profile: 'well', title, ifVersion: version } }, demo),
      ),
    );
    const results = answers.map((a) => a.body.data.updateAssetProfile);
    expect(results.filter((x) => x.errors.length === 0).map((x) => x.assetProfile.version)).toEqual([
      version + 1,
    ]);
    expect(results.filter((x) => x.errors[0]?.type === 'VERSION_CONFLICT')).toHaveLength(1);
    expect((await read()).version).toBe(version + 1);
  });

  it('moves with an extension added and removed, as the answers say', async () => {
    const { version } = await read();
    const put = await t.graphql<any>(
      `mutation($input: putAssetProfileExtensionInput!) { putAssetProfileExtension(input: $input) {
        errors { type message } assetProfile { extensions version } } }`,
      {
        input: {
          profile: 'well',
          extension: 'versioned',
          properties: [{ name: 'versionNote', type: 'STRING' }],
        },
      },
      demo,
    );
    expect(put.body.data.putAssetProfileExtension).toEqual({
      errors: [],
      assetProfile: { extensions: ['versioned'], version: version + 1 },
    });
    expect(await read()).toMatchObject({
      version: version + 1,
      last: { entity: 'ASSET_PROFILE_EXTENSION', kind: 'CREATED' },
    });
    const removed = await t.graphql<any>(
      `mutation($input: removeAssetProfileExtensionInput!) { removeAssetProfileExtension(input: $input) {
        errors { type message } assetProfile { extensions version } } }`,
      { input: { profile: 'well', extension: 'versioned' } },
      demo,
    );
    expect(removed.body.data.removeAssetProfileExtension).toEqual({
      errors: [],
      assetProfile: { extensions: [], version: version + 2 },
    });
    expect((await read()).version).toBe(version + 2);
    // The version an extension change moved to is the one a profile write must state.
    const stale = await t.graphql<any>(
      VERSIONED,
      { input: { profile: 'well', title: 'Well', ifVersion: version } },
      demo,
    );
    expect(stale.body.data.updateAssetProfile.errors[0].type).toBe('VERSION_CONFLICT');
    const fresh = await t.graphql<any>(
      VERSIONED,
      { input: { profile: 'well', title: 'Well', ifVersion: version + 2 } },
      demo,
    );
    expect(fresh.body.data.updateAssetProfile.assetProfile.version).toBe(version + 3);
  });
});
