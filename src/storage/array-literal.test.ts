import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { numberArray, textArray } from './array-literal.ts';

/** PostgreSQL's array_in for one-dimensional literals of quoted or bare elements, as a reference. */
function parse(literal: string): (string | null)[] {
  expect(literal.startsWith('{') && literal.endsWith('}')).toBe(true);
  const body = literal.slice(1, -1);
  const out: (string | null)[] = [];
  let i = 0;
  if (body === '') return out;
  for (;;) {
    if (body[i] === '"') {
      let s = '';
      i++;
      while (body[i] !== '"') {
        if (body[i] === '\\') i++;
        s += body[i++];
      }
      i++;
      out.push(s);
    } else {
      let j = i;
      while (j < body.length && body[j] !== ',') j++;
      const bare = body.slice(i, j);
      out.push(bare === 'NULL' ? null : bare);
      i = j;
    }
    if (i >= body.length) return out;
    expect(body[i]).toBe(',');
    i++;
  }
}

describe('array literals', () => {
  it('give back every text, quotes, backslashes, commas, braces and NULL words included', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ unit: 'grapheme' }), { nil: null })), (values) => {
        expect(parse(textArray(values))).toEqual(values);
      }),
      { seed: 20261129 },
    );
    expect(textArray(['NULL', '', 'a,b', '{x}', 'q"\\'])).toBe('{"NULL","","a,b","{x}","q\\"\\\\"}');
  });

  it('give back every number exactly, nulls as NULL', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.double({ noNaN: true }), { nil: null })), (values) => {
        const back = parse(numberArray(values)).map((v) => (v === null ? null : Number(v)));
        expect(back).toEqual(values.map((v) => (Object.is(v, -0) ? 0 : v)));
      }),
      { seed: 20261129 },
    );
    expect(numberArray([1, 2.5, null, '42'])).toBe('{1,2.5,NULL,42}');
    expect(() => numberArray(['1); drop table x'])).toThrow(TypeError);
  });
});
