import type { DocumentNode } from 'graphql';

/**
 * What is worked out once per operation of a parsed document and kept with it: the parser caches
 * hand back the same DocumentNode for the same text and drop it with the text, so nothing here
 * outlives the documents they keep.
 */
export class PerOperation<T> {
  readonly #byDocument = new WeakMap<DocumentNode, Map<string, T>>();

  /** The value for `document`'s operation `operationName`, made by `make` the first time. */
  get(document: DocumentNode, operationName: string | null | undefined, make: () => T): T {
    let byName = this.#byDocument.get(document);
    if (!byName) {
      byName = new Map();
      this.#byDocument.set(document, byName);
    }
    const key = operationName ?? '';
    if (byName.has(key)) return byName.get(key) as T;
    const value = make();
    byName.set(key, value);
    return value;
  }
}
