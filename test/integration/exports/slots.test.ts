/**
 * Export slots shared fairly between tenants: one tenant's stalled or abusive downloads cannot
 * leave another tenant with 503s, and every slot comes back after an abort, a stall, or a
 * download nobody starts reading.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/shared/logger.ts';
import { createExportHandler } from '../../../src/subgraphs/assets/exports/handler.ts';
import { ExportTokens } from '../../../src/subgraphs/assets/exports/tokens.ts';
import { applyProfiles } from '../../../src/subgraphs/assets/profiles/profiles.service.ts';
import { createAccountStanding } from '../../../src/subgraphs/auth/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

const TENANTS = ['alpha', 'bravo', 'charlie', 'delta'] as const;
type Tenant = (typeof TENANTS)[number];
/** Enough rows that a download is many chunks: a reader that stops part-way holds its slot. */
const ROWS = 20_000;

let t: TestApp;
const sessions = {} as Record<Tenant, Record<string, string>>;

beforeAll(async () => {
  t = await startTestApp({ config: { exportLimits: { maxConcurrent: 3 } } });
  for (const tenant of TENANTS) {
    const applied = await applyProfiles(t.database.db, tenant, 'owner', [
      {
        profile: 'item',
        title: 'Item',
        displayNameProperty: 'name',
        properties: [{ name: 'name', type: 'STRING' }],
      },
    ]);
    expect(applied.ok).toBe(true);
    await sql`insert into assets (user_group, profile, id, properties, display_name)
      select ${tenant}, 'item', 'I-' || lpad(i::text, 6, '0'), jsonb_build_object('name', 'Item ' || i), 'Item ' || i
      from generate_series(1, ${ROWS}::int) as i`.execute(t.database.db);
    sessions[tenant] = { 'x-svc-sessionid': await t.sessionFor(`${tenant}-user`, tenant) };
  }
}, 120_000);
afterAll(() => t?.close());

/** A fresh ad-hoc link of `tenant`'s items, made through the API. */
async function linkOf(tenant: Tenant): Promise<string> {
  const r = await t.graphql<any>(
    `{ assetProfiles { byId(profile: "item") { assetsExport(isExcel: true) { csvFileDownloadUrl } } } }`,
    {},
    sessions[tenant],
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data.assetProfiles.byId.assetsExport.csvFileDownloadUrl;
}

const inUse = () => t.database.pool.totalCount - t.database.pool.idleCount;

/** Reads the first chunk and then nothing more: a stalled reader. */
async function stall(response: Response) {
  const reader = response.body!.getReader();
  expect((await reader.read()).done).toBe(false);
  return reader;
}

async function expectBusy(response: Response, detail: RegExp) {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('10');
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(await response.json()).toMatchObject({
    status: 503,
    title: 'Exports busy',
    detail: expect.stringMatching(detail),
  });
}

describe('export slots between tenants', () => {
  it('give 20 parallel downloads of one tenant its share, 503 with Retry-After beyond it, and leave the rest to others', async () => {
    const alpha = await linkOf('alpha');
    const attack = await Promise.all(Array.from({ length: 20 }, () => t.handle(new Request(alpha))));
    const served = attack.filter((r) => r.status === 200);
    // Three slots in all, so one tenant may hold max(1, floor(3 / 2)) = 1.
    expect(served).toHaveLength(1);
    for (const r of attack.filter((r) => r.status !== 200))
      await expectBusy(r, /Your group already has 1 export/);
    const readers = [await stall(served[0]!)];

    // Other tenants still get theirs while alpha's reader is stalled...
    for (const tenant of ['bravo', 'charlie'] as const) {
      const r = await t.handle(new Request(await linkOf(tenant)));
      expect(r.status, tenant).toBe(200);
      readers.push(await stall(r));
    }
    // ...and the process-wide bound still holds.
    await expectBusy(await t.handle(new Request(await linkOf('delta'))), /Too many exports/);

    for (const reader of readers) await reader.cancel();
    await expect.poll(inUse, { timeout: 5000 }).toBe(0);
    const after = await t.handle(new Request(await linkOf('delta')));
    expect(after.status).toBe(200);
    expect((await after.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it('leave another tenant served whatever one tenant’s stalled readers hold', async () => {
    const held: ReadableStreamDefaultReader<Uint8Array>[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.handle(new Request(await linkOf('alpha')));
      if (r.status === 200) held.push(await stall(r));
      else await expectBusy(r, /Your group/);
    }
    expect(held).toHaveLength(1);
    const bravo = await t.handle(new Request(await linkOf('bravo')));
    expect(bravo.status).toBe(200);
    expect((await bravo.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    await held[0]!.cancel();
  });
});

describe('export slots come back', () => {
  const GROUP = 'alpha';
  const tokens = () => new ExportTokens(new Uint8Array(32).fill(9));
  let handle: (request: Request) => Promise<Response>;
  let sign: (maker?: string) => string;
  /** How often the handler asked auth's standing rule: it comes after the slot is taken. */
  let asked = 0;

  beforeAll(() => {
    const keys = tokens();
    const standing = createAccountStanding({ db: t.database.db });
    handle = createExportHandler({
      database: t.database,
      tokens: keys,
      standing: {
        inGoodStanding: (username, group) => {
          asked++;
          return standing.inGoodStanding(username, group);
        },
      },
      clock: t.clock,
      log: createLogger('silent'),
      limits: { maxConcurrent: 2, maxPerTenant: 1, firstByteSeconds: 0.3, idleSeconds: 0.3 },
    });
    sign = (maker = `${GROUP}-user`) =>
      `http://assets.internal/exports/${keys.sign({
        k: 'q',
        g: GROUP,
        u: maker,
        p: 'item',
        c: ['name'],
        f: 'CSV',
        w: null,
        n: 'items',
        e: Math.floor(t.clock.now().getTime() / 1000) + 3600,
      })}`;
  });

  /** The tenant's one slot is free again: the next download is served (polled: release is async). */
  async function expectSlotBack(withinMs = 3000) {
    const until = Date.now() + withinMs;
    for (;;) {
      const r = await handle(new Request(sign()));
      if (r.status === 200) {
        await r.body!.cancel();
        break;
      }
      expect(r.status).toBe(503);
      expect(Date.now()).toBeLessThan(until);
      await sleep(20);
    }
    await expect.poll(inUse, { timeout: 5000 }).toBe(0);
  }

  it('after the client aborts part-way', async () => {
    const abort = new AbortController();
    const r = await handle(new Request(sign(), { signal: abort.signal }));
    const reader = await stall(r);
    expect((await handle(new Request(sign()))).status).toBe(503);
    abort.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await expectSlotBack();
  });

  it('after the reader stops reading for the idle limit, which its next read learns', async () => {
    const reader = await stall(await handle(new Request(sign())));
    expect((await handle(new Request(sign()))).status).toBe(503);
    await sleep(500);
    await expect(reader.read()).rejects.toThrow(/stopped reading/);
    await expectSlotBack(100);
  });

  it('at once after a refusal, and a burst beyond the share costs no database work', async () => {
    for (let i = 0; i < 3; i++) expect((await handle(new Request(sign('not-a-member')))).status).toBe(403);
    asked = 0;
    const burst = await Promise.all(Array.from({ length: 20 }, () => handle(new Request(sign()))));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(1);
    expect(asked).toBe(1);
    for (const r of burst) await r.body?.cancel();
    await expectSlotBack();
  });

  it('soon when nobody starts reading, without taking a database connection', async () => {
    const unread = await handle(new Request(sign()));
    expect(unread.status).toBe(200);
    expect((await handle(new Request(sign()))).status).toBe(503);
    expect(inUse()).toBe(0);
    await sleep(500);
    await expectSlotBack(100);
    await expect(unread.body!.getReader().read()).rejects.toThrow(/did not start reading/);
  });
});
