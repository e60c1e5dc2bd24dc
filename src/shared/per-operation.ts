import type { DocumentNode } from 'graphql';

/**
 * What is worked out once per operation of a parsed document and kept with it: the parser caches
 * hand back the same DocumentNode for the same text and drop it with the text, so nothing here
 * outlives the documents they keep.
 */
export class PerOperation<T> {
  // By operation name as the client gave it: no name (null) is not the name "" (which names no
  // operation, and must not find the value made for the document's only one).
  readonly #byDocument = new WeakMap<DocumentNode, Map<string | null, T>>();

  /** The value for `document`'s operation `operationName`, made by `make` the first time. */
  get(document: DocumentNode, operationName: string | null | undefined, make: () => T): T {
    let byName = this.#byDocument.get(document);
    if (!byName) {
      byName = new Map();
      this.#byDocument.set(document, byName);
    }
    const key = operationName ?? null;
    if (byName.has(key)) return byName.get(key) as T;
    const value = make();
    byName.set(key, value);
    return value;
  }

  /** The value made for `document`'s operation `operationName`, if one was. */
  peek(document: DocumentNode, operationName: string | null | undefined): T | undefined {
    return this.#byDocument.get(document)?.get(operationName ?? null);
  }
}
