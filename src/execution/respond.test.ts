import { describe, expect, it } from 'vitest';
import { finishErrors, regularMediaType } from './respond.ts';

describe('regularMediaType', () => {
  it("chooses as Yoga's result processors do", () => {
    expect(regularMediaType(null)).toBe('application/json');
    expect(regularMediaType('*/*')).toBe('application/json');
    expect(regularMediaType('application/graphql-response+json, application/json')).toBe(
      'application/graphql-response+json',
    );
    expect(regularMediaType('application/json, application/graphql-response+json')).toBe('application/json');
    expect(regularMediaType('text/event-stream')).toBeNull();
    expect(regularMediaType('application/json; charset=latin1')).toBeNull();
    expect(regularMediaType('text/html')).toBeNull();
  });

  it('decides a value again the same way, however many others came between', () => {
    const values = (round: number) =>
      Array.from({ length: 150 }, (_, i): [string, string | null] =>
        i % 3 === 0
          ? [`text/event-stream, x/y${i}`, null]
          : i % 3 === 1
            ? [`application/json, x/y${i}`, 'application/json']
            : [
                `application/graphql-response+json, x/y${i}${round ? ' ' : ''}`,
                'application/graphql-response+json',
              ],
      );
    for (const round of [0, 1, 0])
      for (const [accept, chosen] of values(round)) expect(regularMediaType(accept)).toBe(chosen);
    const long = `text/event-stream, ${'x/y,'.repeat(100)}`;
    expect(regularMediaType(long)).toBeNull();
    expect(regularMediaType(long)).toBeNull();
  });
});

describe('finishErrors', () => {
  const onResultProcess = ({ result }: { result: unknown }) => finishErrors(result);

  it("answers a request error 400 under every media type, drops the parser's message, and leaves partial data alone", () => {
    const refused = {
      data: null,
      errors: [
        { extensions: { code: 'BAD_REQUEST', http: { spec: true }, originalError: { message: 'x' } } },
      ],
    };
    const partial = {
      data: { a: 1 },
      errors: [{ extensions: { code: 'BAD_REQUEST', http: { spec: true } } }],
    };
    onResultProcess({ result: [refused, partial] });
    expect(refused.errors[0]!.extensions).toEqual({
      code: 'BAD_REQUEST',
      http: { spec: false, status: 400 },
    });
    expect(partial.errors[0]!.extensions).toEqual({ code: 'BAD_REQUEST', http: { spec: true } });
  });

  it('does not read the data of an answer without errors (a subgraph JSON passed on as text)', () => {
    let reads = 0;
    const passedOn = {};
    Object.defineProperty(passedOn, 'data', {
      enumerable: true,
      get: () => {
        reads++;
        return { parsed: true };
      },
    });
    onResultProcess({ result: passedOn });
    onResultProcess({ result: [passedOn, passedOn] });
    expect(reads).toBe(0);
  });
});
