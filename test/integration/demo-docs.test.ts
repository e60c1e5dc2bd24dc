/**
 * The demo tenant as docs/assets.md describes it: each profile's count in the table of its demo
 * data is what the demo loads, read from the data, so that the page cannot drift from the tenant.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoApp, startDemoApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/processes.ts';

let demo: DemoApp;
beforeAll(async () => {
  demo = await startDemoApp();
}, 120_000);
afterAll(async () => {
  await demo?.app.close();
});

/** The profile rows of the "Group `demo`" table of docs/assets.md: profile → the number it states. */
function documented(): Map<string, number> {
  const page = readFileSync(join(ROOT, 'docs/assets.md'), 'utf8');
  const table = page.slice(page.indexOf('| Group `demo` |'), page.indexOf('Group `demo-east`'));
  const counts = new Map<string, number>();
  for (const m of table.matchAll(/^\| `([a-z-]+)` \| (\d+)\b/gm)) counts.set(m[1]!, Number(m[2]));
  return counts;
}

describe('the demo tenant in docs/assets.md', () => {
  it('has each profile as many assets as the table says', async () => {
    const counts = documented();
    expect([...counts.keys()].sort()).toEqual(['equipment', 'facility', 'sensor', 'site', 'well']);
    const rows = await demo.app.database.db
      .selectFrom('assets')
      .select(['profile', (eb) => eb.fn.countAll<number>().as('n')])
      .where('user_group', '=', 'demo')
      .groupBy('profile')
      .execute();
    const loaded = Object.fromEntries(rows.map((r) => [r.profile, Number(r.n)]));
    expect(Object.fromEntries(counts)).toEqual(loaded);
  });
});
