/**
 * `AssetsConnection.totalCount` and `totalCountIsExact`: the listing's size with its filter,
 * whatever the page, in one statement for both fields; counted up to 10,000; at most 10 listings
 * counted per request.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_COUNTS_PER_REQUEST, MAX_TOTAL_COUNT } from '../../src/subgraphs/assets/total-count.ts';
import { type DemoApp, startDemoApp } from '../helpers/app.ts';

let demo: DemoApp;

beforeAll(async () => {
  demo = await startDemoApp();
}, 120_000);
afterAll(async () => {
  await demo?.app.close();
});

const q = (query: string, variables?: Record<string, unknown>) =>
  demo.app.graphql<any>(query, variables, demo.demo);

describe('totalCount', () => {
  it('counts the listing with its filter, whatever the page and the direction', async () => {
    const all = await q(`{ assets(profile: "well") {
      first: all(first: 2) { totalCount totalCountIsExact }
      last: all(last: 3) { totalCount }
      producing: all(first: 1, filter: { property: { name: "status", equals: "producing" } }) { totalCount edges { node { id } } }
    } }`);
    expect(all.body.errors).toBeUndefined();
    const wells = all.body.data.assets;
    expect(wells.first).toEqual({ totalCount: 24, totalCountIsExact: true });
    expect(wells.last.totalCount).toBe(24);
    const producing = await demo.app.database.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .where(sql<boolean>`properties->>'status' = 'producing'`)
      .executeTakeFirstOrThrow();
    expect(wells.producing.totalCount).toBe(Number(producing.n));
    expect(wells.producing.totalCount).toBeLessThan(24);
    // The same through a profile and a saved filter.
    const other = await q(`{
      assetProfiles { byId(profile: "sensor") { assets(first: 1) { totalCount } } }
      assetFilter(id: "wells-producing") { assets(first: 1) { totalCount } }
    }`);
    expect(other.body.errors).toBeUndefined();
    expect(other.body.data.assetProfiles.byId.assets.totalCount).toBe(143);
    expect(other.body.data.assetFilter.assets.totalCount).toBe(wells.producing.totalCount);
  });

  it('counts up to 10,000 and says when a listing holds more, in one statement for both fields', async () => {
    await sql`insert into asset_profiles (user_group, profile, title, owner_username, definition)
      values ('demo', 'meter-reading', 'Meter readings', 'demo', '{"properties": []}'::jsonb)`.execute(
      demo.app.database.db,
    );
    await sql`insert into assets (user_group, profile, id, properties, display_name)
      select 'demo', 'meter-reading', 'R-' || lpad(g::text, 6, '0'), '{}'::jsonb, 'reading ' || g
      from generate_series(1, ${MAX_TOTAL_COUNT + 50}) g`.execute(demo.app.database.db);
    const statements: string[] = [];
    const r = await (async () => {
      const pool = demo.app.database.pool;
      const wrapped = new WeakSet<object>();
      const listen = (client: { query: (...a: any[]) => any }) => {
        if (wrapped.has(client)) return;
        wrapped.add(client);
        const query = client.query.bind(client);
        client.query = (...args: any[]) => {
          const text = typeof args[0] === 'string' ? args[0] : args[0]?.text;
          if (typeof text === 'string' && text.includes('count(*)')) statements.push(text);
          return query(...args);
        };
      };
      pool.on('acquire', listen);
      try {
        return await q(
          `{ assets(profile: "meter-reading") { all(first: 1) { totalCount totalCountIsExact } } }`,
        );
      } finally {
        pool.off('acquire', listen);
      }
    })();
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.assets.all).toEqual({ totalCount: MAX_TOTAL_COUNT, totalCountIsExact: false });
    expect(statements).toHaveLength(1);
  });

  it(`counts at most ${MAX_COUNTS_PER_REQUEST} listings a request; the others are errors, the rest answers`, async () => {
    const aliases = Array.from(
      { length: MAX_COUNTS_PER_REQUEST + 2 },
      (_, i) => `c${i}: all(first: ${i + 1}) { totalCount edges { node { id } } }`,
    );
    const r = await q(`{ assets(profile: "well") { ${aliases.join('\n')} } }`);
    const counted = Object.values(r.body.data?.assets ?? {}).filter((c: any) => c?.totalCount === 24);
    expect(counted).toHaveLength(MAX_COUNTS_PER_REQUEST);
    expect(r.body.errors).toHaveLength(2);
    for (const e of r.body.errors ?? [])
      expect(e).toMatchObject({
        message: expect.stringContaining(`at most ${MAX_COUNTS_PER_REQUEST} listings`),
        extensions: { code: 'BAD_USER_INPUT' },
      });
  });
});
