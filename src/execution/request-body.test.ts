import { describe, expect, it } from 'vitest';
import { heldToDeclaredLength, parsedJsonBody, readBody } from './request-body.ts';

const URL_ = 'http://localhost/api/graphql';
const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(URL_, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
const stream = (parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });

describe('readBody', () => {
  const text = JSON.stringify({ query: '{ session { username } }', variables: { name: 'Zoë ✓' } });
  const bytes = Buffer.byteLength(text) + URL_.length;

  it("reads a body of declared length whole where node's parser holds it to that length, else as it streams: the same", async () => {
    const parsed = post(text, { 'content-length': String(Buffer.byteLength(text)) });
    heldToDeclaredLength(parsed);
    for (const request of [
      parsed,
      post(text, { 'content-length': String(Buffer.byteLength(text)) }),
      post(stream([text.slice(0, 30), text.slice(30)])),
    ]) {
      const read = await readBody(request, 1000);
      expect(read?.bytes).toBe(bytes);
      expect(parsedJsonBody(read!.request)).toEqual({ params: JSON.parse(text) });
    }
  });

  it('refuses a body over the bound, declared, streamed, or longer than it declared', async () => {
    const big = 'x'.repeat(2000);
    expect(await readBody(post(big, { 'content-length': '2000' }), 1000)).toBeNull();
    expect(await readBody(post(stream([big.slice(0, 900), big.slice(900)])), 1000)).toBeNull();
    // In process, nothing holds a request to the length it declares: what it sends is read only
    // up to the bound, however much more it has.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1000));
      },
    });
    expect(await readBody(post(endless, { 'content-length': '10' }), 10_000)).toBeNull();
    expect(pulled).toBeLessThan(20);
  });

  it('keeps a multi-byte character split across chunks whole', async () => {
    const body = JSON.stringify({ query: '{ a }', variables: { s: '✓✓✓' } });
    const cut = Buffer.from(body);
    const at = cut.indexOf(Buffer.from('✓')) + 1;
    const read = await readBody(
      post(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(cut.subarray(0, at));
            controller.enqueue(cut.subarray(at));
            controller.close();
          },
        }),
      ),
      1000,
    );
    expect(parsedJsonBody(read!.request)).toEqual({ params: JSON.parse(body) });
  });
});
