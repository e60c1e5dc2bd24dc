import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createDocumentCache } from './document-cache.ts';
import { PreparedOperations, regularMediaType } from './prepared-operations.ts';

/** A document as the gateway's cache keeps it: from its second parse on. */
function kept(cache: ReturnType<typeof createDocumentCache>, text: string) {
  const document = parse(text);
  cache.set(text, document);
  cache.set(text, document);
  return document;
}

describe('PreparedOperations', () => {
  it('finds an operation by its text and name only while the document cache keeps the document', () => {
    const cache = createDocumentCache({ maxDocuments: 2, maxBytes: 1_000_000, maxEntryBytes: 100_000 });
    const operations = new PreparedOperations<string>(cache);
    const text = 'query A { a } query B { b }';
    const document = kept(cache, text);
    operations.record(document, 'A', 'one');
    expect(operations.find(text, 'A')?.subgraph).toBe('one');
    expect(operations.find(text, 'B')).toBeUndefined();
    expect(operations.find(text, null)).toBeUndefined();
    // Pushed out of the cache by two other documents: not found, though noted.
    kept(cache, '{ c }');
    kept(cache, '{ d }');
    expect(operations.find(text, 'A')).toBeUndefined();
  });

  it('keeps no operation that takes variables, and none of a subscription', () => {
    const cache = createDocumentCache();
    const operations = new PreparedOperations<string>(cache);
    const withVariables = 'query ($x: Int) { a(x: $x) }';
    operations.record(kept(cache, withVariables), null, 'one');
    expect(operations.find(withVariables, null)).toBeUndefined();
    const subscription = 'subscription { a }';
    operations.record(kept(cache, subscription), null, 'one');
    expect(operations.find(subscription, null)).toBeUndefined();
    const plain = '{ a }';
    operations.record(kept(cache, plain), undefined, 'one');
    expect(operations.find(plain, null)).toMatchObject({ operationName: null, name: null, subgraph: 'one' });
  });
});

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
