import { describe, expect, it } from 'vitest';
import { useRequestErrorStatus } from './request-error-status.ts';

describe('useRequestErrorStatus', () => {
  const { onResultProcess } = useRequestErrorStatus();

  it('answers a request error 400 under every media type, and leaves partial data alone', () => {
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
