import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Fact, Operations, ParsedDocument } from './operation.ts';

describe('the operation records of a place', () => {
  it('keep one record per operation a name picks, and none for a name that picks nothing (#36)', () => {
    const document = new ParsedDocument(parse('query A { a } query B { b }'));
    expect(document.operation('A')).toBe(document.operation('A'));
    expect(document.operation('A')).not.toBe(document.operation('B'));
    // Any text a client likes: a record for this request, kept by nothing.
    const junk = document.operation(`N${'a'.repeat(10_000)}`);
    expect(junk.definition).toBeNull();
    expect(document.kept(`N${'a'.repeat(10_000)}`)).toBeUndefined();
    expect(document.operation(null).definition).toBeNull();
    expect(document.kept(null)).toBeUndefined();
    const single = new ParsedDocument(parse('{ a }'));
    expect(single.kept(null)).toBeUndefined();
    expect(single.operation(null)).toBe(single.operation(undefined));
  });

  it('find an operation by its text only once validated, and make no record finding it', () => {
    const operations = new Operations({ maxDocuments: 10, maxBytes: 1_000_000, maxEntryBytes: 100_000 });
    const text = 'query A { a }';
    const document = parse(text);
    operations.documents.set(text, document);
    operations.documents.set(text, document);
    expect(operations.find(text, 'A')).toBeUndefined();
    const record = operations.of(document, 'A');
    expect(operations.find(text, 'A')).toBeUndefined();
    record.validated = true;
    expect(operations.find(text, 'A')).toBe(record);
    for (let i = 0; i < 100; i++) expect(operations.find(text, `X${i}`)).toBeUndefined();
    expect(operations.document(document).kept('X1')).toBeUndefined();
  });

  it('make each fact once', () => {
    const operation = new ParsedDocument(parse('{ a }')).operation(null);
    const fact = new Fact<number>('a count');
    let made = 0;
    expect(operation.get(fact, () => ++made)).toBe(1);
    expect(operation.get(fact, () => ++made)).toBe(1);
    expect(made).toBe(1);
  });
});
