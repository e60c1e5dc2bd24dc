import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIFF_OF_DOCUMENTS, LOGGED } from '../../src/storage/migrations/20261128T0100_change_log.ts';
import { diffOfMembers, MEMBERS } from '../../src/storage/migrations/20261128T0400_change_diff_cached.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

// The update triggers diff documents member by member (20261128T0400_change_diff_cached.ts): for
// any old and new row, the same patch, before and after as the diff of whole documents.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.close());

/** A small deterministic generator, so that a failure can be run again. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TEXTS = [null, '', 'a', 'Deep wells', "o'brien", 'a/b~c', 'ünïcode'];
const SCALARS = [null, 0, 1, 2.5, 'x', 'y', true, false, [1, 2], { k: 1 }, { k: 2 }];

/** What the query below turns into a JSON null stored as such (beside SQL's null). */
const JSON_NULL = '(json null)';

function jsonValue(next: () => number, deep: boolean): unknown {
  if (next() < 0.1) return JSON_NULL;
  if (!deep) return SCALARS[Math.floor(next() * SCALARS.length)];
  // An object whose keys come and go and whose values change, or now and then not an object.
  if (next() < 0.1) return SCALARS[Math.floor(next() * SCALARS.length)] ?? {};
  const out: Record<string, unknown> = {};
  for (const key of ['a', 'b', 'c/d', 'e~f', 'depth', 'status'])
    if (next() < 0.6) out[key] = SCALARS[Math.floor(next() * SCALARS.length)];
  return out;
}

function rowOf(next: () => number, table: string, base?: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...base };
  for (const m of MEMBERS[table]!) {
    // Half the members keep their value, so that most rows change a few members.
    if (base && next() < 0.5) continue;
    const column = m.column;
    if (column === 'is_deleted' || column === 'delete_source') row[column] = next() < 0.5;
    else if (column === 'expires_at')
      row[column] = new Date(Date.UTC(2026, 10, 1 + Math.floor(next() * 3))).toISOString();
    else if (m.json) row[column] = jsonValue(next, m.deep ?? false);
    else row[column] = TEXTS[Math.floor(next() * TEXTS.length)];
  }
  return row;
}

describe('the member-by-member diff', () => {
  for (const l of LOGGED.filter((l) => MEMBERS[l.table])) {
    it(`answers as the diff of whole documents for ${l.table}`, async () => {
      const next = random(l.table.length * 7919);
      const pairs: [Record<string, unknown>, Record<string, unknown>][] = [];
      for (let i = 0; i < 400; i++) {
        const old = rowOf(next, l.table);
        pairs.push([old, rowOf(next, l.table, old)]);
      }
      const columns = MEMBERS[l.table]!.map((m) =>
        m.json
          ? `case when r.${m.column} = '"${JSON_NULL}"' then 'null'::jsonb else r.${m.column} end as ${m.column}`
          : `r.${m.column}`,
      );
      const record = (side: number) =>
        `(select ${columns.join(', ')} from jsonb_populate_record(null::${l.table}, p.pair -> ${side}) r)`;
      const r = await database.pool.query(
        `select p.i, d.patch, d.before, d.after, g.patch as g_patch, g.before as g_before, g.after as g_after
         from jsonb_array_elements($1::jsonb) with ordinality p(pair, i)
           cross join lateral ${record(0)} o
           cross join lateral ${record(1)} n
           cross join lateral ${diffOfMembers(MEMBERS[l.table]!)} d
           cross join lateral ${DIFF_OF_DOCUMENTS(l)} g
         order by p.i`,
        [JSON.stringify(pairs)],
      );
      expect(r.rows).toHaveLength(pairs.length);
      let changed = 0;
      for (const row of r.rows) {
        expect(
          { patch: row.patch, before: row.before, after: row.after },
          JSON.stringify(pairs[row.i - 1]),
        ).toEqual({
          patch: row.g_patch,
          before: row.g_before,
          after: row.g_after,
        });
        if (row.patch.length) changed++;
      }
      // Both kinds of pair were tried: changed, and not.
      expect(changed).toBeGreaterThan(100);
      expect(changed).toBeLessThan(pairs.length);
    });
  }
});
