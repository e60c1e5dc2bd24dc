import { describe, expect, it } from 'vitest';
import { Api, ApiError, describe as explain, payloadError, SessionEndedError } from './api.ts';

/** An Api whose server answers `status` with `body` (JSON unless a string) and `headers`. */
function answering(status: number, body: unknown, headers: Record<string, string> = {}) {
  const sent: RequestInit[] = [];
  const api = new Api('/api/graphql', async (_url, init) => {
    sent.push(init!);
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers });
  });
  return { api, sent };
}

describe('the console API client', () => {
  it('posts JSON to its endpoint with the cookie, and gives the data', async () => {
    const { api, sent } = answering(200, { data: { session: { authenticated: true } } });
    expect(await api.request('{ session { authenticated } }', { a: 1 })).toEqual({
      session: { authenticated: true },
    });
    expect(sent[0]).toMatchObject({ method: 'POST', credentials: 'same-origin' });
    expect(new Headers(sent[0]!.headers).get('content-type')).toBe('application/json');
    expect(JSON.parse(String(sent[0]!.body))).toEqual({
      query: '{ session { authenticated } }',
      variables: { a: 1 },
    });
  });

  it('says the session ended when any error is UNAUTHENTICATED', async () => {
    const { api } = answering(200, {
      data: { assets: null },
      errors: [{ message: 'Sign in first.', extensions: { code: 'UNAUTHENTICATED' } }],
    });
    await expect(api.request('{ x }')).rejects.toBeInstanceOf(SessionEndedError);
    expect(() => payloadError([{ type: 'UNAUTHENTICATED', message: 'no' }])).toThrow(SessionEndedError);
  });

  it('says the session ended when only trusted documents run and a text it ran before is refused', async () => {
    const { api } = answering(400, {
      errors: [
        {
          message: 'Only trusted documents run here.',
          extensions: { code: 'QUERY_NOT_IN_SAFELIST' },
        },
      ],
    });
    await expect(api.request('{ x }')).rejects.toBeInstanceOf(SessionEndedError);
  });

  it('gives other errors their message and the request id to quote', async () => {
    const { api } = answering(
      500,
      {
        errors: [
          { message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'r-1' } },
        ],
      },
      { 'x-request-id': 'r-1' },
    );
    const error = await api.request('{ x }').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(explain(error)).toBe('Unexpected error. Quote request id r-1 to support.');
    const bad = await answering(400, { errors: [{ message: 'Cannot query field "x".' }] })
      .api.request('{ x }')
      .catch((e: unknown) => e);
    expect(explain(bad)).toBe('Cannot query field "x".');
  });

  it('names an answer that is not GraphQL, and a server it cannot reach', async () => {
    const proxy = await answering(502, '<html>Bad gateway</html>', { 'x-request-id': 'r-2' })
      .api.request('{ x }')
      .catch((e: unknown) => e);
    expect(proxy).toMatchObject({ code: 'HTTP_502', requestId: 'r-2' });
    const offline = new Api('/api/graphql', () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(offline.request('{ x }')).rejects.toMatchObject({ code: 'NETWORK' });
  });

  it('lets an abort through as it is', async () => {
    const aborted = new Api('/api/graphql', () => Promise.reject(new DOMException('gone', 'AbortError')));
    await expect(aborted.request('{ x }')).rejects.toMatchObject({ name: 'AbortError' });
  });

  it("reads a mutation's own errors", () => {
    expect(payloadError([])).toBeNull();
    expect(payloadError(null)).toBeNull();
    expect(payloadError([{ type: 'DUPLICATE_ID', message: 'taken' }])).toBe('taken');
  });
});
