import { type DocumentNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  createDocumentCache,
  type DocumentCache,
  estimatedSize,
  parserCacheStores,
} from './document-cache.ts';

/** Parsed twice: a text is kept from its second parse on. */
function twice(cache: DocumentCache, text: string, parsed: DocumentNode) {
  cache.set(text, parsed);
  cache.set(text, parsed);
}

const fields = (n: number, tag = '') => `{ ${Array.from({ length: n }, (_, i) => `f${tag}${i}`).join(' ')} }`;

describe('createDocumentCache', () => {
  it('estimates a document by its tokens and its text', () => {
    const small = fields(10);
    const large = fields(1_000);
    expect(estimatedSize(large, parse(large))).toBeGreaterThan(50 * estimatedSize(small, parse(small)));
    expect(estimatedSize('{', new Error('Syntax Error'))).toBeLessThan(2_000);
  });

  it('keeps documents within the bytes it is given, the most recently used first', () => {
    const cache = createDocumentCache({ maxDocuments: 1_000, maxBytes: 200_000, maxEntryBytes: 100_000 });
    const texts = Array.from({ length: 50 }, (_, i) => fields(50, `d${i}_`));
    for (const text of texts) twice(cache, text, parse(text));
    expect(cache.calculatedSize).toBeLessThanOrEqual(200_000);
    expect(cache.size).toBeGreaterThan(1);
    expect(cache.size).toBeLessThan(50);
    expect(cache.get(texts.at(-1)!)).toBeDefined();
    expect(cache.get(texts[0]!)).toBeUndefined();
  });

  it('keeps no document larger than its largest entry, and forgets the one it replaces', () => {
    const cache = createDocumentCache({ maxDocuments: 10, maxBytes: 10_000_000, maxEntryBytes: 100_000 });
    const large = fields(1_000);
    twice(cache, large, parse(large));
    expect(cache.get(large)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps a text from its second parse on, so that texts used once leave nothing behind', () => {
    const cache = createDocumentCache();
    const text = fields(5);
    cache.set(text, parse(text));
    expect(cache.get(text)).toBeUndefined();
    for (let i = 0; i < 100; i++) cache.set(fields(5, `n${i}_`), parse(fields(5, `n${i}_`)));
    expect(cache.size).toBe(0);
    cache.set(text, parse(text));
    expect(cache.get(text)).toBeDefined();
    // A stream of one-off texts, many times what the cache holds, pushes the kept one out not.
    const small = createDocumentCache({ maxDocuments: 4, maxBytes: 1_000_000, maxEntryBytes: 100_000 });
    twice(small, text, parse(text));
    for (let i = 0; i < 1_000; i++) small.set(`{ once${i} }`, parse(`{ once${i} }`));
    expect(small.get(text)).toBeDefined();
  });

  it('forgets a kept document when told to (it failed validation), and no other', () => {
    const cache = createDocumentCache();
    const [a, b] = ['{ a }', '{ b }'];
    const [docA, docB] = [parse(a), parse(b)];
    twice(cache, a, docA);
    twice(cache, b, docB);
    cache.forget(docA);
    cache.forget(parse(b));
    expect(cache.get(a)).toBeUndefined();
    expect(cache.get(b)).toBe(docB);
  });

  it('keeps at most its number of documents', () => {
    const cache = createDocumentCache({ maxDocuments: 3, maxBytes: 10_000_000, maxEntryBytes: 1_000_000 });
    for (let i = 0; i < 10; i++) twice(cache, `{ f${i} }`, parse(`{ f${i} }`));
    expect(cache.size).toBe(3);
  });

  it('gives Yoga documents and parse errors apart', () => {
    const cache = createDocumentCache();
    const stores = parserCacheStores(cache);
    const document = parse('{ a }');
    for (let i = 0; i < 2; i++) {
      stores.documentCache.set('{ a }', document);
      stores.errorCache.set('{', new Error('Syntax Error'));
    }
    expect(stores.documentCache.get('{ a }')).toBe(document);
    expect(stores.errorCache.get('{ a }')).toBeUndefined();
    expect(stores.errorCache.get('{')).toBeInstanceOf(Error);
    expect(stores.documentCache.get('{')).toBeUndefined();
  });
});
