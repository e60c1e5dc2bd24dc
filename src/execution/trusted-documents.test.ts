import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FORMAT, ManifestError, readManifest } from './manifest.ts';
import { isDocumentId, sha256Hex, TrustedDocuments } from './trusted-documents.ts';

const WHO = 'query Who { me }';
const trusted = [{ id: 'who-1', name: 'Who', type: 'query' as const, body: WHO }];
const apq = (text: string, query?: string) => ({
  ...(query === undefined ? {} : { query }),
  extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(text) } },
});
const anyone = { explorer: false };
const codeOf = (r: ReturnType<TrustedDocuments['resolve']>) =>
  'refused' in r ? r.refused.extensions.code : undefined;
/** Resolves, and registers what the request would register once its text has validated. */
const validating = (docs: TrustedDocuments, params: Record<string, unknown>, caller = anyone) => {
  const r = docs.resolve(params, caller);
  if ('params' in r && r.register) docs.register(r.register);
  return r;
};

describe('document ids', () => {
  it('takes the appendix forms within 256 characters, and nothing else', () => {
    expect(isDocumentId(`sha256:${sha256Hex('x')}`)).toBe(true);
    expect(isDocumentId('x-acme:abc.1')).toBe(true);
    expect(isDocumentId('0123456789abcdef0123456789abcdef')).toBe(true);
    for (const bad of [
      '',
      'sha256:ABC',
      `sha256:${'0'.repeat(63)}`,
      'md5:abc',
      'x-a:b:c',
      'a b',
      'a'.repeat(257),
    ])
      expect(isDocumentId(bad), bad).toBe(false);
  });
});

describe('TrustedDocuments.resolve', () => {
  it('puts the text in place of an id, and takes the id forms out of the parameters', () => {
    const docs = new TrustedDocuments({ mode: 'allow', documents: trusted });
    const forms = [
      { documentId: `sha256:${sha256Hex(WHO)}` },
      { documentId: 'who-1' },
      { doc_id: 'who-1' },
      apq(WHO),
    ];
    for (const params of forms)
      expect(docs.resolve({ ...params, variables: { a: 1 } }, anyone)).toEqual({
        params: { query: WHO, variables: { a: 1 } },
      });
    // Other extensions stay.
    const withOther = { ...apq(WHO), extensions: { ...apq(WHO).extensions, trace: true } };
    expect(docs.resolve(withOther, anyone)).toEqual({ params: { query: WHO, extensions: { trace: true } } });
  });

  it('keeps APQ texts within its bounds: by number, by size, and none too long', () => {
    const docs = new TrustedDocuments({
      mode: 'allow',
      documents: [],
      apq: { maxDocuments: 10, maxBytes: 1_000, maxDocumentBytes: 200 },
    });
    for (let i = 0; i < 50; i++) validating(docs, apq(`{ a${i} }`, `{ a${i} }`));
    expect(docs.registered.count).toBe(10);
    expect(codeOf(docs.resolve(apq('{ a0 }'), anyone))).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(docs.resolve(apq('{ a49 }'), anyone)).toEqual({ params: { query: '{ a49 }' } });
    const long = `{ ${'b'.repeat(150)} }`;
    expect(docs.resolve(apq(long, long), anyone)).toEqual({ params: { query: long } });
    expect(codeOf(docs.resolve(apq(long), anyone))).toBe('PERSISTED_QUERY_NOT_FOUND');
    for (let i = 0; i < 20; i++) {
      const text = `{ ${'c'.repeat(90)}${i} }`;
      validating(docs, apq(text, text));
    }
    expect(docs.registered.bytes).toBeLessThanOrEqual(1_000);
  });

  it('registers a text only once it is known to have parsed and validated, as Apollo Server does', () => {
    const docs = new TrustedDocuments({
      mode: 'allow',
      documents: [],
      apq: { maxDocuments: 2, maxBytes: 1_000, maxDocumentBytes: 200 },
    });
    validating(docs, apq('{ a }', '{ a }'));
    validating(docs, apq('{ b }', '{ b }'));
    // Junk sent with its hash runs as sent (for its parse error) and takes no slot.
    for (const junk of ['{', 'not graphql', '{ a b c'])
      expect(docs.resolve(apq(junk, junk), anyone)).toMatchObject({ params: { query: junk } });
    expect(docs.registered.count).toBe(2);
    expect(codeOf(docs.resolve(apq('{'), anyone))).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(docs.resolve(apq('{ a }'), anyone)).toEqual({ params: { query: '{ a }' } });
    expect(docs.resolve(apq('{ b }'), anyone)).toEqual({ params: { query: '{ b }' } });
  });

  it("registers nothing with no room, answering Apollo's PersistedQueryNotSupported", () => {
    const docs = new TrustedDocuments({
      mode: 'allow',
      documents: trusted,
      apq: { maxDocuments: 0, maxBytes: 1_000, maxDocumentBytes: 200 },
    });
    expect(docs.resolve(apq('{ a }', '{ a }'), anyone)).toEqual({ params: { query: '{ a }' } });
    expect(codeOf(docs.resolve(apq('{ a }'), anyone))).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    expect(docs.resolve(apq(WHO), anyone)).toEqual({ params: { query: WHO } });
  });

  it('where only trusted documents run: their text and ids, or anything for an explorer', () => {
    const docs = new TrustedDocuments({ mode: 'require', documents: trusted });
    expect(docs.resolve({ query: WHO }, anyone)).toEqual({ params: { query: WHO } });
    expect(codeOf(docs.resolve({ query: '{ other }' }, anyone))).toBe('QUERY_NOT_IN_SAFELIST');
    expect(codeOf(docs.resolve(apq('{ other }', '{ other }'), anyone))).toBe('QUERY_NOT_IN_SAFELIST');
    expect(docs.registered.count).toBe(0);
    expect(docs.resolve({ query: '{ other }' }, { explorer: true })).toEqual({
      params: { query: '{ other }' },
    });
    expect(validating(docs, apq('{ other }', '{ other }'), { explorer: true })).toHaveProperty('params');
    expect(docs.resolve(apq('{ other }'), { explorer: true })).toEqual({ params: { query: '{ other }' } });
    expect(codeOf(docs.resolve(apq('{ other }'), anyone))).toBe('PERSISTED_QUERY_NOT_FOUND');
    // No text at all is the pipeline's to refuse.
    expect(docs.resolve({}, anyone)).toEqual({ params: {} });
  });
});

describe('readManifest', () => {
  const schema = buildSchema('type Query { me: String }');
  const limits = { maxBodyBytes: 1_000, maxTokens: 100, schema };
  const manifest = (operations: unknown[]) => ({ format: MANIFEST_FORMAT, version: 1, operations });

  it("takes Apollo's format", () => {
    const entry = { id: sha256Hex(WHO), name: 'Who', type: 'query', body: WHO };
    expect(readManifest(manifest([entry]), limits)).toEqual([entry]);
  });

  it('lists every problem, and takes nothing', () => {
    const tooBig = `query Big { me } # ${'x'.repeat(1_000)}`;
    const problems = (() => {
      try {
        readManifest(
          manifest([
            { id: 'a', name: 'Who', type: 'query', body: WHO },
            { id: 'a', name: 'Who', type: 'query', body: WHO },
            { id: 'b', name: 'Big', type: 'query', body: tooBig },
            { id: 'c', name: 'Two', type: 'query', body: `${WHO} query Two { me }` },
            { id: 'd', name: 'Bad', type: 'query', body: 'query Bad { you }' },
            { id: 'e', name: 'Deep', type: 'query', body: `query Deep { ${'me '.repeat(200)}}` },
          ]),
          limits,
        );
      } catch (e) {
        if (e instanceof ManifestError) return e.problems;
        throw e;
      }
      return [];
    })();
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(
      /given twice[\s\S]*maxBodyBytes[\s\S]*one operation[\s\S]*you[\s\S]*tokens/,
    );
  });
});
