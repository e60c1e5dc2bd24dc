/**
 * An export link acts for whoever made it: it streams only while its maker is in good standing
 * in the link's group (auth's rule: the user exists, is not disabled, still belongs to the group),
 * checked on every download, ad-hoc and saved links alike.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deriveKey } from '../../../src/shared/secrets.ts';
import { ExportTokens } from '../../../src/subgraphs/assets/exports/tokens.ts';
import { applyProfiles } from '../../../src/subgraphs/assets/profiles/profiles.service.ts';
import { createAccountStanding } from '../../../src/subgraphs/auth/index.ts';
import { addGroups, replaceGroups } from '../../../src/subgraphs/auth/repository/users.ts';
import { disableUser } from '../../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

const GROUP = 'standing';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  const applied = await applyProfiles(t.database.db, GROUP, 'owner', [
    {
      profile: 'item',
      title: 'Item',
      displayNameProperty: 'name',
      properties: [{ name: 'name', type: 'STRING' }],
    },
  ]);
  expect(applied.ok).toBe(true);
  const upsert = await t.graphql<any>(
    `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type } } }`,
    { input: { profile: 'item', assets: [{ id: 'I-1', properties: { name: 'One' } }] } },
    { 'x-svc-sessionid': await t.sessionFor('owner', GROUP) },
  );
  expect(upsert.body.data.upsertAssets.errors).toEqual([]);
  await t.graphql(
    `mutation { createAssetFilter(input: { id: "all", displayName: "All", profile: "item", subProfiles: [] }) { errors { type } } }`,
    {},
    { 'x-svc-sessionid': await t.sessionFor('owner', GROUP) },
  );
});
afterAll(() => t?.close());

/** An ad-hoc and a saved link, both made by `username` through the API. */
async function linksOf(username: string): Promise<string[]> {
  const headers = { 'x-svc-sessionid': await t.sessionFor(username, GROUP) };
  const adHoc = await t.graphql<any>(
    `{ assetProfiles { byId(profile: "item") { assetsExport { csvFileDownloadUrl } } } }`,
    {},
    headers,
  );
  const saved = await t.graphql<any>(
    `mutation { createAssetFilterDownload(input: { filterId: "all", isExcel: true }) { errors { type } download { downloadUrl } } }`,
    {},
    headers,
  );
  expect(saved.body.data.createAssetFilterDownload.errors).toEqual([]);
  return [
    adHoc.body.data.assetProfiles.byId.assetsExport.csvFileDownloadUrl,
    saved.body.data.createAssetFilterDownload.download.downloadUrl,
  ];
}

async function expectServed(url: string) {
  const res = await t.handle(new Request(url));
  expect(res.status, url).toBe(200);
  expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(20);
}

async function expectWithdrawn(url: string) {
  for (const method of ['GET', 'HEAD']) {
    const res = await t.handle(new Request(url, { method }));
    expect(res.status, `${method} ${url}`).toBe(403);
    if (method === 'GET') {
      const body = await res.json();
      expect(body).toMatchObject({ status: 403, title: 'Link withdrawn' });
      expect(JSON.stringify(body)).not.toContain('One');
    }
  }
}

describe('export links and their maker’s standing', () => {
  let user: string;
  let n = 0;
  beforeEach(() => {
    user = `maker-${++n}`;
  });

  it('stop when the maker is disabled', async () => {
    const links = await linksOf(user);
    for (const url of links) await expectServed(url);
    await disableUser(t.database.db, user);
    for (const url of links) await expectWithdrawn(url);
  });

  it('stop while the maker is out of the group, and work again once back', async () => {
    const links = await linksOf(user);
    await replaceGroups(t.database.db, user, ['elsewhere']);
    for (const url of links) await expectWithdrawn(url);
    await addGroups(t.database.db, user, [GROUP]);
    for (const url of links) await expectServed(url);
  });

  it('never stream for a maker who is not a user, or for none at all', async () => {
    const tokens = new ExportTokens(deriveKey(t.config.secret, 'exports'));
    for (const maker of ['nobody-of-that-name', '']) {
      const token = tokens.sign({
        k: 'q',
        g: GROUP,
        u: maker,
        p: 'item',
        c: ['name'],
        f: 'CSV',
        w: null,
        n: 'items',
        e: Math.floor(t.clock.now().getTime() / 1000) + 3600,
      });
      await expectWithdrawn(`${t.config.baseUrl}/api/exports/${token}`);
    }
  });

  it('follow the rule sessions follow', async () => {
    const standing = createAccountStanding({ db: t.database.db });
    await t.sessionFor(user, GROUP);
    expect(await standing.inGoodStanding(user, GROUP)).toBe(true);
    expect(await standing.inGoodStanding(user, 'another-group')).toBe(false);
    expect(await standing.inGoodStanding('nobody-of-that-name', GROUP)).toBe(false);
    await disableUser(t.database.db, user);
    expect(await standing.inGoodStanding(user, GROUP)).toBe(false);
  });
});
