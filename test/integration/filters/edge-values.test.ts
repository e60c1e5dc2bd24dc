import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compileFilter } from '../../../src/subgraphs/assets/filters/compile.ts';
import { evaluateFilter } from '../../../src/subgraphs/assets/filters/evaluate.ts';
import type { AssetFilterInput } from '../../../src/subgraphs/assets/filters/types.ts';
import { validateFilter } from '../../../src/subgraphs/assets/filters/validate.ts';
import type { EffectiveProfile } from '../../../src/subgraphs/assets/profiles/definition.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/database.ts';

/**
 * Every property comparison on values at the edges of JSON and of the jsonpath written for them
 * (docs/performance.md "Filters"): each type's operators and operands against stored values of
 * every JSON type, numbers at the ends of their range, text that jsonpath or SQL would read as
 * syntax, and a property name that is itself odd. SQL must select what the reference selects.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.close());

const ODD = 'we"ird\\k\u2028😀';
const profile = {
  userGroup: 'g',
  profile: 'p',
  title: 'p',
  ownerUsername: 'o',
  document: {},
  extensions: [],
  relationships: [],
  propertyMaps: [],
  lookupNames: [],
  properties: [
    { name: 'n', type: 'NUMBER', extension: null },
    { name: 'i', type: 'INTEGER', extension: null },
    { name: 's', type: 'STRING', extension: null },
    { name: 'e', type: 'ENUM', enumValues: ['a', 'b'], extension: null },
    { name: 'd', type: 'DATE_TIME', extension: null },
    { name: ODD, type: 'STRING', extension: null },
    { name: 'nd', type: 'NUMBER', extension: null },
    { name: 'nd', type: 'NUMBER', default: 3, extension: null },
    { name: 'sd', type: 'STRING', default: null, extension: null },
  ],
} as unknown as EffectiveProfile;
const NAMES = ['n', 'i', 's', 'e', 'd', ODD, 'nd', 'sd'];
const VALUES: unknown[] = [
  ...[null, 0, -0, 1, -1, 1.5, 1e21, -1e21, 1e-7, 5e-324, 1.7976931348623157e308, 2 ** 53],
  ...['1', '', 'a', 'A', 'a"b', 'a\\b', '\n', '\u2028', '😀', 'é', '$.x', '" || true'],
  ...[true, false, [], [1], ['a'], {}, { a: 1 }, [null]],
];
const OPERANDS: unknown[] = [
  ...[0, -0, 1, -1, 1.5, 1e21, -1e21, 1e-7, 5e-324, 1.7976931348623157e308, 2 ** 53],
  ...['', 'a', 'A', 'a"b', 'a\\b', '\n', '\u2028', '😀', 'é', '1', '$.x', '" || true'],
];
const OPERATORS = ['equals', 'notEquals', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'startsWith'];

it('SQL selects what the reference selects, for every comparison of edge values', async () => {
  const rows: { id: string; properties: Record<string, unknown> }[] = [{ id: 'empty', properties: {} }];
  for (const v of VALUES)
    for (const name of NAMES) rows.push({ id: `r${rows.length}`, properties: { [name]: v } });
  const table = JSON.stringify(
    rows.map((r) => ({ ...r, display_name: '', is_deleted: false, modified_at: '2026-01-01T00:00:00Z' })),
  );
  const disagreements: string[] = [];
  let checked = 0;
  for (const name of NAMES)
    for (const op of OPERATORS)
      for (const o of OPERANDS)
        for (const caseInsensitive of [false, true]) {
          const filter = {
            property: { name, [op]: op === 'in' ? [o] : o, ...(caseInsensitive ? { caseInsensitive } : {}) },
          } as unknown as AssetFilterInput;
          if (!validateFilter(filter, profile, () => null).ok) continue;
          checked++;
          const where = compileFilter(filter, { profile, profiles: () => null, group: 'g' });
          const { rows: got } = await sql<{ id: string }>`select a.id from jsonb_to_recordset(${table}::jsonb)
            as a(id text, properties jsonb, display_name text, is_deleted boolean, modified_at timestamptz,
                 lookup jsonb, geometry jsonb)
            where ${where}`.execute(database.db);
          const selected = got.map((r) => r.id).sort();
          const expected = rows
            .filter((r) =>
              evaluateFilter(
                filter,
                {
                  ...r,
                  geometry: null,
                  display_name: '',
                  is_deleted: false,
                  modified_at: new Date(),
                } as never,
                { profile, profiles: () => null, assetsOf: () => [] } as never,
              ),
            )
            .map((r) => r.id)
            .sort();
          if (JSON.stringify(selected) !== JSON.stringify(expected))
            disagreements.push(
              `${JSON.stringify(filter)}: SQL ${selected.length}, reference ${expected.length}`,
            );
        }
  expect(disagreements.slice(0, 20)).toEqual([]);
  // Most comparisons are valid ones (each type refuses the other type's operands).
  expect(checked).toBeGreaterThan(800);
});
