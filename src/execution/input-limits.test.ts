import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkInputs, representationVariables } from './input-limits.ts';
import { ParsedDocument } from './operation.ts';

/** A parsed document's record, as a place keeps it. */
const record = (text: string) => new ParsedDocument(parse(text));

const LIMITS = { maxStringLength: 10, maxListLength: 3 };

describe('checkInputs', () => {
  it('refuses a long literal every time a document is checked, with an error of its own each time', () => {
    const document = record('{ a(x: "01234567890123") }');
    const first = checkInputs(document, {}, LIMITS);
    const second = checkInputs(document, {}, { ...LIMITS });
    expect(first?.extensions.limit).toBe('maxStringLength');
    expect(second?.message).toBe(first?.message);
    expect(second).not.toBe(first);
  });

  it('checks the variables of every request, whatever it found in the document before', () => {
    const document = record('query($x: String, $l: [String]) { a(x: $x, l: $l, y: ["a", "b"]) }');
    expect(checkInputs(document, { x: 'short' }, LIMITS)).toBeNull();
    expect(checkInputs(document, { x: 'much too long here' }, LIMITS)?.message).toContain('$x');
    expect(checkInputs(document, { l: ['a', 'b', 'c', 'd'] }, LIMITS)?.extensions.limit).toBe(
      'maxListLength',
    );
    expect(checkInputs(document, { x: 'short' }, LIMITS)).toBeNull();
  });

  it('holds a document to the limits it is checked against, not to those of an earlier check', () => {
    const document = record('{ a(l: ["a", "b", "c", "d"]) }');
    expect(checkInputs(document, {}, { ...LIMITS, maxListLength: 10 })).toBeNull();
    expect(checkInputs(document, {}, LIMITS)?.extensions.limit).toBe('maxListLength');
    expect(checkInputs(document, {}, { ...LIMITS, maxListLength: 10 })).toBeNull();
  });

  it('lets a list of entity representations through by its length, as a literal or a variable', () => {
    const literal = record(
      '{ _entities(representations: [{ a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }]) { __typename } }',
    );
    expect(checkInputs(literal, {}, LIMITS)).toBeNull();
    const variable = record('query($r: [_Any!]!) { _entities(representations: $r) { __typename } }');
    const exempt = representationVariables(variable.operation(null));
    expect(checkInputs(variable, { r: [1, 2, 3, 4, 5] }, LIMITS, exempt)).toBeNull();
    expect(checkInputs(variable, { r: [1, 2, 3, 4, 5] }, LIMITS, exempt)).toBeNull();
  });

  it('exempts only what the running operation passes as representations, declared [_Any!]!', () => {
    // Another operation of the document passing $r to _entities exempts nothing of B's $r (#36).
    const two = record(`query A($r: [_Any!]!) { _entities(representations: $r) { __typename } }
      query B($r: [String!]) { a(l: $r) }`);
    expect([...representationVariables(two.operation('A'))]).toEqual(['r']);
    expect([...representationVariables(two.operation('B'))]).toEqual([]);
    const b = representationVariables(two.operation('B'));
    expect(checkInputs(two, { r: ['a', 'b', 'c', 'd'] }, LIMITS, b)?.extensions.limit).toBe('maxListLength');
    // A representations variable of another type is a client's list like any other.
    const loose = record('query($r: [String]) { _entities(representations: $r) { __typename } }');
    expect([...representationVariables(loose.operation(null))]).toEqual([]);
    // In a fragment the operation spreads, it counts.
    const spread = record(
      'query($r: [_Any!]!) { ...F } fragment F on Query { _entities(representations: $r) { __typename } }',
    );
    expect([...representationVariables(spread.operation(null))]).toEqual(['r']);
  });
});
