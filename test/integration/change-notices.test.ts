/**
 * The database's change notices as a process hears them (src/storage/change-notices.ts): live
 * only once its own probe has come back through the pool; `settled()` resolves only after every
 * notice committed before it has been handed on, however many; a channel subscribed after the
 * connection listened is not reported live; and on PGlite, which passes no notice between
 * connections, nothing is ever live.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/logger.ts';
import { ChangeNotices } from '../../src/storage/change-notices.ts';
import { freshDatabase, onOwnConnection, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let notices: ChangeNotices;
const heard: string[] = [];
const liveness: boolean[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  notices = new ChangeNotices(database.pool, createLogger('silent'));
  notices.subscribe('assetql_test', {
    notice: (payload) => heard.push(payload),
    live: (live) => liveness.push(live),
  });
  await notices.start();
}, 60_000);
afterAll(async () => {
  await notices?.close();
  await database?.close();
});

const postgres = Boolean(process.env.DATABASE_URL);

describe.runIf(postgres)('change notices (PostgreSQL)', () => {
  it('are live once the probe came back, and hand on what another connection sends', async () => {
    expect(notices.live).toBe(true);
    expect(liveness).toEqual([false, true]);
    await onOwnConnection(database, `select pg_notify('assetql_test', 'one')`);
    expect(await notices.settled()).toBe(true);
    expect(heard).toEqual(['one']);
  });

  it('settle after every notice committed before, however many are ahead', async () => {
    heard.length = 0;
    await onOwnConnection(
      database,
      `begin; select pg_notify('assetql_test', 'n' || g) from generate_series(1, 50000) g; commit;`,
    );
    // Nothing waited for them: the commit has returned, the notices are still on their way.
    expect(await notices.settled()).toBe(true);
    expect(heard.length).toBe(50_000);
    expect(heard.at(-1)).toBe('n50000');
  });

  it('do not report a channel subscribed after the connection listened as live', async () => {
    const late: boolean[] = [];
    const unsubscribe = notices.subscribe('assetql_late', { notice: () => {}, live: (l) => late.push(l) });
    expect(late).toEqual([false]);
    unsubscribe();
  });
});

describe.runIf(!postgres)('change notices on PGlite', () => {
  it('are never live: notices do not travel between connections', async () => {
    expect(notices.live).toBe(false);
    expect(liveness.every((l) => !l)).toBe(true);
    expect(await notices.settled()).toBe(false);
  });
});
