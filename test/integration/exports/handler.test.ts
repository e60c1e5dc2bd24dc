import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/shared/clock.ts';
import { createLogger } from '../../../src/shared/logger.ts';
import { createExportHandler } from '../../../src/subgraphs/assets/exports/handler.ts';
import { ExportTokens } from '../../../src/subgraphs/assets/exports/tokens.ts';
import { applyProfiles } from '../../../src/subgraphs/assets/profiles/profiles.service.ts';
import { createAccountStanding } from '../../../src/subgraphs/auth/index.ts';
import { ensureMember } from '../../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/database.ts';

const GROUP = 'handler';
let database: TestDatabase;
const clock = new ManualClock(new Date('2026-11-22T12:00:00Z'));
const tokens = new ExportTokens(new Uint8Array(32).fill(3));

beforeAll(async () => {
  database = await freshDatabase();
  await ensureMember(database, 'tester', GROUP);
  const outcome = await applyProfiles(database.db, GROUP, 'tester', [
    {
      profile: 'item',
      title: 'Item',
      displayNameProperty: 'name',
      properties: [{ name: 'name', type: 'STRING' }],
    },
  ]);
  expect(outcome.ok).toBe(true);
  await sql`insert into assets (user_group, profile, id, properties, display_name)
    select ${GROUP}, 'item', 'I-' || lpad(i::text, 6, '0'), jsonb_build_object('name', 'Item ' || i), 'Item ' || i
    from generate_series(1, 20000) as i`.execute(database.db);
});
afterAll(() => database?.close());

function link() {
  const token = tokens.sign({
    k: 'q',
    g: GROUP,
    u: 'tester',
    p: 'item',
    c: ['name'],
    f: 'XLSX',
    w: null,
    n: 'items',
    e: Math.floor(clock.now().getTime() / 1000) + 3600,
  });
  return new Request(`http://assets.internal/exports/${token}`);
}

describe('export handler', () => {
  it('streams at most maxConcurrent exports at once and frees a slot when one ends', async () => {
    const handle = createExportHandler({
      database,
      tokens,
      standing: createAccountStanding({ db: database.db }),
      clock,
      log: createLogger('silent'),
      limits: { maxConcurrent: 1 },
    });
    const first = await handle(link());
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    expect((await reader.read()).done).toBe(false);

    const second = await handle(link());
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('10');
    expect(await second.json()).toMatchObject({ status: 503, title: 'Exports busy' });

    await reader.cancel();
    const third = await handle(link());
    expect(third.status).toBe(200);
    expect((await third.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    // Read to the end, the slot is free again.
    const fourth = await handle(link());
    expect(fourth.status).toBe(200);
    await fourth.body!.cancel();
    await expect.poll(() => database.pool.totalCount - database.pool.idleCount).toBe(0);
  });
});
