import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangeStamp, withChangeStamp } from '../../src/storage/change-log.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { relatedIds } from '../helpers/assets.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * Migrations over data an older release wrote (every other test starts from an empty schema).
 */
describe('20261124T0100_lookup_keys and 20261124T0200_profile_check_per_statement', () => {
  const GROUP = 'upgraded';
  let database: TestDatabase;

  beforeAll(async () => {
    database = await freshDatabase({ upTo: '20261123T2200_partial_geometry_index' });
    const profile = (name: string, definition: object) =>
      sql`insert into asset_profiles (user_group, profile, title, owner_username, definition)
        values (${GROUP}, ${name}, ${name}, 'tester', ${JSON.stringify(definition)}::jsonb)`.execute(
        database.db,
      );
    const property = (name: string, type = 'STRING') => ({ name, type });
    await profile('well', {
      displayNameProperty: 'name',
      properties: [property('name'), property('facilityId')],
    });
    await profile('facility', {
      displayNameProperty: 'name',
      properties: [property('name'), property('code')],
      relationships: [
        {
          relationship: 'wells',
          type: 'MANY',
          profile: 'well',
          referenceType: 'ID',
          lookupType: 'PROPERTY',
          lookupProperty: 'facilityId',
        },
      ],
    });
    await profile('site', { displayNameProperty: 'name', properties: [property('name')] });
    // A relationship that only an extension declares counts as well.
    await sql`insert into asset_profile_extensions (user_group, profile, extension, definition)
      values (${GROUP}, 'site', 'codes', ${JSON.stringify({
        relationships: [
          {
            relationship: 'byCode',
            type: 'MANY',
            profile: 'facility',
            referenceType: 'PROPERTY',
            referenceProperty: 'name',
            lookupType: 'PROPERTY_LIST',
            lookupProperty: 'code',
          },
        ],
      })}::jsonb)`.execute(database.db);
    await sql`insert into assets (user_group, profile, id, properties, display_name) values
      (${GROUP}, 'well', 'W-1', '{"name": "One", "facilityId": "F-1"}', 'One'),
      (${GROUP}, 'well', 'W-2', '{"name": "Two", "facilityId": "F-1"}', 'Two'),
      (${GROUP}, 'well', 'W-3', '{"name": "Three", "facilityId": null}', 'Three'),
      (${GROUP}, 'well', 'W-4', '{"name": "Four"}', 'Four'),
      (${GROUP}, 'facility', 'F-1', '{"name": "Plant", "code": ["K-1", "K-2"]}', 'Plant'),
      (${GROUP}, 'site', 'S-1', '{"name": "K-2"}', 'K-2')`.execute(database.db);
    const report = await migrateToLatest(database.db);
    expect(report.applied).toEqual(
      expect.arrayContaining(['20261124T0100_lookup_keys', '20261124T0200_profile_check_per_statement']),
    );
  });
  afterAll(() => database?.close());

  it('derives the lookup names and keys of the assets already stored', async () => {
    const names = await sql<{ profile: string; lookup_names: string[] }>`
      select profile, lookup_names from asset_profiles order by profile`.execute(database.db);
    expect(names.rows).toEqual([
      { profile: 'facility', lookup_names: ['code'] },
      { profile: 'site', lookup_names: [] },
      { profile: 'well', lookup_names: ['facilityId'] },
    ]);
    const keys = await sql<{
      id: string;
      lookup: unknown;
    }>`select id, lookup from assets order by id`.execute(database.db);
    expect(keys.rows).toEqual([
      { id: 'F-1', lookup: { code: ['K-1', 'K-2'] } },
      { id: 'S-1', lookup: null },
      { id: 'W-1', lookup: { facilityId: 'F-1' } },
      { id: 'W-2', lookup: { facilityId: 'F-1' } },
      { id: 'W-3', lookup: null },
      { id: 'W-4', lookup: null },
    ]);
  });

  it('resolves relationships through the new index as before', async () => {
    const follow = (profile: string, id: string, relationship: string) =>
      relatedIds(database.db, GROUP, profile, id, relationship);
    expect(await follow('facility', 'F-1', 'wells')).toEqual(['W-1', 'W-2']);
    expect(await follow('site', 'S-1', 'byCode')).toEqual(['F-1']);
    const indexes = await sql<{ indexname: string }>`
      select indexname from pg_indexes where tablename = 'assets' order by indexname`.execute(database.db);
    expect(indexes.rows.map((r) => r.indexname)).toEqual([
      'assets_display_name_trgm',
      'assets_geometry_bbox',
      'assets_lookup',
      'assets_pkey',
    ]);
  });

  it('replaces the foreign key with the per-statement check', async () => {
    const refused = await sql`insert into assets (user_group, profile, id, display_name)
      values (${GROUP}, 'pump', 'P-1', '')`
      .execute(database.db)
      .then(
        () => null,
        (e: { code?: string }) => e.code,
      );
    expect(refused).toBe('23503');
    const constraints = await sql<{ conname: string }>`
      select conname from pg_constraint where conrelid = 'assets'::regclass and contype = 'f'`.execute(
      database.db,
    );
    expect(constraints.rows).toEqual([]);
  });
});

describe('20261125T0100_remembered_devices', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await freshDatabase({ upTo: '20261124T0200_profile_check_per_statement' });
    await sql`insert into users (username) values ('old')`.execute(database.db);
    await sql`insert into devices (username, device_key, name) values ('old', 'k-1', 'Phone')`.execute(
      database.db,
    );
    const report = await migrateToLatest(database.db);
    expect(report.applied).toContain('20261125T0100_remembered_devices');
  });
  afterAll(() => database?.close());

  it('keeps the devices already stored, not remembered', async () => {
    const rows =
      await sql`select device_key, name, remembered, secret_hash, remembered_at from devices`.execute(
        database.db,
      );
    expect(rows.rows).toEqual([
      { device_key: 'k-1', name: 'Phone', remembered: false, secret_hash: null, remembered_at: null },
    ]);
  });

  it('refuses a remembered device without its secret and time, and a secret on one not remembered', async () => {
    const refused = (statement: ReturnType<typeof sql>) =>
      statement.execute(database.db).then(
        () => null,
        (e: { code?: string }) => e.code,
      );
    expect(await refused(sql`update devices set remembered = true`)).toBe('23514');
    expect(await refused(sql`update devices set secret_hash = '\\x00'::bytea`)).toBe('23514');
    expect(
      await refused(
        sql`update devices set remembered = true, secret_hash = '\\x00'::bytea, remembered_at = now()`,
      ),
    ).toBeNull();
  });
});

describe('20261202T0100_change_actor_key', () => {
  let database: TestDatabase;
  const key = (apiKeyId: string): ChangeStamp => ({
    actorKind: 'API_KEY',
    actor: 'owner',
    apiKeyId,
    correlationId: null,
  });
  const profile = (name: string) =>
    sql`insert into asset_profiles (user_group, profile, title, owner_username)
      values ('keys', ${name}, ${name}, 'owner')`.execute(database.db);

  beforeAll(async () => {
    database = await freshDatabase({ upTo: '20261201T0200_webhook_start_snapshot' });
    // Written through an API key by a release that did not record which.
    await withChangeStamp(key('old-key'), () => profile('before'));
    const report = await migrateToLatest(database.db);
    expect(report.applied).toContain('20261202T0100_change_actor_key');
  });
  afterAll(() => database?.close());

  it('keeps the entries already logged, their key unknown, and records the key of the next', async () => {
    await withChangeStamp(key('new-key'), () => profile('after'));
    const { rows } = await sql<{
      profile: string;
      actor_kind: string;
      actor: string;
      actor_key: string | null;
    }>`
      select profile, actor_kind, actor, actor_key from changes where user_group = 'keys' order by tx, seq`.execute(
      database.db,
    );
    expect(rows).toEqual([
      { profile: 'before', actor_kind: 'API_KEY', actor: 'owner', actor_key: null },
      { profile: 'after', actor_kind: 'API_KEY', actor: 'owner', actor_key: 'new-key' },
    ]);
  });
});
