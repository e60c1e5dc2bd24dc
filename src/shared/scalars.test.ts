import { GraphQLError } from 'graphql';
import { DateTimeResolver } from 'graphql-scalars';
import { describe, expect, it } from 'vitest';
import { SPEC_SCALARS } from './scalars.ts';

const { DateTime } = SPEC_SCALARS;

describe('DateTime', () => {
  it('serialises a Date, or any text graphql-scalars takes, to the text JSON wrote for it', () => {
    const date = new Date('2026-11-29T04:05:06.007Z');
    for (const value of [
      date,
      date.getTime(),
      '2026-11-29T04:05:06.007Z',
      '2026-11-29T05:05:06.007+01:00',
      '2024-02-29T00:00:00.000Z',
    ]) {
      const ours = DateTime.serialize(value);
      expect(typeof ours).toBe('string');
      expect(ours).toBe(JSON.parse(JSON.stringify(DateTimeResolver.serialize(value))));
    }
  });

  it('refuses what graphql-scalars refuses, days a month lacks and invalid dates included', () => {
    for (const value of [
      '2023-02-29T00:00:00.000Z',
      '2023-02-31T00:00:00.000Z',
      '2026-04-31T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      'not a date',
    ]) {
      expect(() => DateTimeResolver.serialize(value), value).toThrow();
      expect(() => DateTime.serialize(value), value).toThrow(GraphQLError);
    }
    expect(() => DateTime.serialize(Number.NaN)).toThrow(GraphQLError);
    expect(() => DateTime.serialize(8.64e15 + 1)).toThrow(GraphQLError);
  });

  it('parses input as graphql-scalars does', () => {
    expect(DateTime.parseValue).toBe(DateTimeResolver.parseValue);
    expect(DateTime.parseLiteral).toBe(DateTimeResolver.parseLiteral);
  });
});
