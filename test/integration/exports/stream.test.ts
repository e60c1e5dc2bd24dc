import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { to as copyTo } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backlog,
  decodeCopyChunks,
  decodeCopyLines,
  inlineParameters,
  sheetName,
} from '../../../src/subgraphs/assets/exports/stream.ts';
import { ExportTokens } from '../../../src/subgraphs/assets/exports/tokens.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.close());

describe('inlineParameters', () => {
  const cases: [string, unknown[]][] = [
    ['select $1::text as a, $2::int as b', ["it's \\ here", 42]],
    ['select $1::text as a, \'$1\' as b, "$1" as c from (select 1 as "$1") s', ['x']],
    [
      'select $1::text[] as a, $2::jsonb as b, $3::text as c',
      [['a', 'b"c', "d'e", null], '{"k": "v\'"}', null],
    ],
    [
      'select $1::timestamptz as a, $2::boolean as b, $3::int + $4::int + $5::int + $6::int + $7::int + $8::int + $9::int as s, $10::text as c',
      [new Date('2026-01-02T03:04:05.678Z'), true, 3, 4, 5, 6, 7, 8, 9, 'ten'],
    ],
    ["select E'\\'$1' as a, $1::text as b", ['q']],
  ];
  it.each(cases)('gives the same rows as bound parameters: %s', async (text, values) => {
    if (text.includes("E'") && database.engine === 'pglite') return;
    const bound = await database.pool.query(text, values);
    const inlined = await database.pool.query(inlineParameters(text, values));
    expect(inlined.rows).toEqual(bound.rows);
  });

  it('refuses a parameter without a value', () => {
    expect(() => inlineParameters('select $2', [1])).toThrow(/\$2/);
  });
});

describe('decodeCopyLines', () => {
  const values = [
    'plain',
    'tab\there',
    'new\nline and\r\nCRLF',
    'back\\slash \\N \\t',
    '\\N',
    '\b\f\v\u0001',
    'Ünïcødé — 井 🛢️',
    '',
    null,
  ];

  it('decodes what COPY TO writes in text format back to the values selected', async () => {
    if (database.engine !== 'postgres') return; // PGlite's socket carries no COPY
    const client = await database.pool.connect();
    try {
      const text = `select v, upper(v), i from unnest($1::text[]) with ordinality as t(v, i)`;
      const selected = await client.query({ text, values: [values], rowMode: 'array' });
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(
        copyTo(`copy (${inlineParameters(text, [values])}) to stdout`),
      ) as AsyncIterable<Buffer>)
        chunks.push(chunk);
      const decoded = decodeCopyLines(Buffer.concat(chunks).toString('utf8'));
      expect(decoded).toEqual(
        selected.rows.map((r: unknown[]) => r.map((v) => (v === null ? null : String(v)))),
      );
    } finally {
      client.release();
    }
  });

  it('gives the same rows however the bytes are split into chunks', async () => {
    const field = fc.oneof(
      fc.constant('\\N'),
      fc
        .string({ unit: 'binary' })
        .map((v) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t')),
    );
    const lines = fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(
        lines,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat(40_000),
        async (rows, cuts, long) => {
          // One row longer than a decoding piece, so pieces and chunks both end mid-row.
          const text = [...rows.map((r) => r.join('\t')), 'x'.repeat(long)].map((l) => `${l}\n`).join('');
          const bytes = Buffer.from(text);
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i) => bytes.subarray(from, [...at, bytes.length][i]));
          const decoded: (string | null)[][] = [];
          for await (const piece of decodeCopyChunks(
            (async function* () {
              yield* chunks;
            })(),
          ))
            decoded.push(...piece);
          expect(decoded).toEqual(decodeCopyLines(text));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses bytes that end inside a row', async () => {
    const chunks = (async function* () {
      yield Buffer.from('a\tb\nc');
    })();
    await expect(async () => {
      for await (const _ of decodeCopyChunks(chunks));
    }).rejects.toThrow(/inside a row/);
  });

  it('reads a backslash before any other character as that character', () => {
    expect(decodeCopyLines('a\\qb\t\\N\n')).toEqual([['aqb', null]]);
  });
});

describe('sheetName', () => {
  it('fits Excel’s rules', () => {
    expect(sheetName('well')).toBe('well');
    expect(sheetName('a/b:c*d?e[f]g\\h')).toBe('a_b_c_d_e_f_g_h');
    expect(sheetName('x'.repeat(40))).toHaveLength(31);
  });
});

describe('ExportTokens', () => {
  const key = new Uint8Array(32).fill(7);
  const tokens = new ExportTokens(key);
  const body = { k: 'd' as const, g: 'demo', d: 'abc', e: 2_000_000_000 };

  it('round-trips, and refuses other keys, expiry and any changed character', () => {
    const token = tokens.sign(body);
    expect(tokens.verify(token, 1_000)).toEqual({ ok: true, value: body });
    expect(tokens.verify(token, 2_000_000_000)).toEqual({
      ok: false,
      type: 'EXPIRED',
      message: 'The token has expired.',
    });
    expect(new ExportTokens(new Uint8Array(32).fill(8)).verify(token, 1_000)).toEqual({
      ok: false,
      type: 'INVALID',
      message: 'The token is not valid.',
    });
    for (let i = 0; i < token.length; i++) {
      const c = token[i] === 'A' ? 'B' : 'A';
      const changed = token.slice(0, i) + c + token.slice(i + 1);
      if (changed === token) continue;
      expect(tokens.verify(changed, 1_000).ok, `position ${i}`).toBe(false);
    }
  });

  it('refuses short keys', () => {
    expect(() => new ExportTokens(new Uint8Array(16))).toThrow();
  });
});

describe('backlog', () => {
  it('reads how far exceljs has run ahead of the zip compressor', async () => {
    const sink = new Writable({ write: (_c, _e, done) => done() });
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: sink,
      useStyles: false,
      useSharedStrings: false,
    });
    const sheet = workbook.addWorksheet('w');
    expect(backlog(sheet)).toBe(0);
    for (let i = 0; i < 20_000; i++) sheet.addRow([`W-${i}`, i, true]).commit();
    // Written without yielding: the compressor has not had a turn, so the XML waits.
    expect(backlog(sheet)).toBeGreaterThan(100_000);
    sheet.commit();
    await workbook.commit();
  });
});
