import {
  type DocumentNode,
  getOperationAST,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type VariableDefinitionNode,
} from 'graphql';
import { createDocumentCache, type DocumentCache, type DocumentCacheOptions } from './document-cache.ts';

/**
 * What is worked out once about a parsed document or one of its operations, and by whom: each
 * module that works something out declares its fact (`new Fact<T>('…')`) and asks the record for
 * it, so that the record knows nothing of routes, executors or prices, and nothing about an
 * operation is worked out twice or kept anywhere else.
 */
export class Fact<T> {
  readonly name: string;
  /** Never read: it only carries `T`. */
  declare readonly type: T;

  constructor(name: string) {
    this.name = name;
  }
}

/** A record's facts, each made by its maker the first time it is asked for. */
class Facts {
  readonly #facts = new Map<Fact<unknown>, unknown>();

  /** The fact, made by `make` the first time. */
  get<T>(fact: Fact<T>, make: () => T): T {
    if (this.#facts.has(fact)) return this.#facts.get(fact) as T;
    const value = make();
    this.#facts.set(fact, value);
    return value;
  }

  /** The fact, if it has been made. */
  peek<T>(fact: Fact<T>): T | undefined {
    return this.#facts.get(fact) as T | undefined;
  }
}

/**
 * One operation of a parsed document, as a client names it (or leaves unnamed): its definition
 * and variable definitions, and every fact about it worked out once (its route at the gateway,
 * its compiled form and plan in a subgraph, its price, its literals against the input limits).
 */
export class Operation extends Facts {
  /** The document it is of, with the facts about the whole document. */
  readonly parsed: ParsedDocument;
  readonly document: DocumentNode;
  /** As the client names it; null when it names none. */
  readonly operationName: string | null;
  /** The operation that runs, or null when the name picks none (a request error). */
  readonly definition: OperationDefinitionNode | null;
  /** The operation's own name, as metrics and traces show it. */
  readonly name: string | null;
  readonly type: OperationTypeNode | null;
  readonly variableDefinitions: readonly VariableDefinitionNode[];
  /**
   * Set once the document has passed the pipeline's parse and validation here (its document
   * limits, the schema's rules, the introspection rule): only then may a door that skips them
   * take a request for it.
   */
  validated = false;

  constructor(parsed: ParsedDocument, operationName: string | null) {
    super();
    this.parsed = parsed;
    const document = parsed.document;
    this.document = document;
    this.operationName = operationName;
    this.definition = getOperationAST(document, operationName) ?? null;
    this.name = this.definition?.name?.value ?? null;
    this.type = this.definition?.operation ?? null;
    this.variableDefinitions = this.definition?.variableDefinitions ?? [];
  }
}

/** A parsed document: facts about the whole of it (its validation), and its operations. */
export class ParsedDocument extends Facts {
  readonly document: DocumentNode;
  // By operation name as the client gave it: no name (null) is not the name "" (which names no
  // operation, and must not find the one made for the document's only operation).
  readonly #operations = new Map<string | null, Operation>();

  constructor(document: DocumentNode) {
    super();
    this.document = document;
  }

  /**
   * The record of the operation `operationName` picks. Kept only for a name that picks one: a
   * name that picks none (any text a client likes, up to the body's bound) gets a record of its
   * own that nothing keeps, so that no client can make a document hold more than its operations.
   */
  operation(operationName: string | null | undefined): Operation {
    const key = operationName ?? null;
    const kept = this.#operations.get(key);
    if (kept) return kept;
    const operation = new Operation(this, key);
    if (operation.definition) this.#operations.set(key, operation);
    return operation;
  }

  /** The record of the operation `operationName` picks, if one is kept; makes none. */
  kept(operationName: string | null | undefined): Operation | undefined {
    return this.#operations.get(operationName ?? null);
  }
}

/**
 * The operations one place (the gateway, or a subgraph) has seen, by document: the one cache of
 * everything worked out about them. Parsed documents are kept by their text in a cache bounded by
 * what they hold (document-cache.ts), and each document's record lives exactly as long as the
 * document does (a document not kept, parsed for one request, takes its record with it), so the
 * records are bounded by the same bytes.
 */
export class Operations {
  readonly documents: DocumentCache;
  readonly #records = new WeakMap<DocumentNode, ParsedDocument>();

  constructor(options?: DocumentCacheOptions) {
    this.documents = createDocumentCache(options);
  }

  /** The record of a parsed document. */
  document(document: DocumentNode): ParsedDocument {
    let record = this.#records.get(document);
    if (!record) {
      record = new ParsedDocument(document);
      this.#records.set(document, record);
    }
    return record;
  }

  /** The record of `document`'s operation `operationName`. */
  of(document: DocumentNode, operationName: string | null | undefined): Operation {
    return this.document(document).operation(operationName);
  }

  /**
   * The validated operation a request's text and operation name ask for, while the cache keeps
   * its document; undefined for a text not kept, one that did not parse, or an operation the
   * pipeline has not validated here.
   */
  find(text: string, operationName: string | null): Operation | undefined {
    const document = this.documents.get(text);
    if (document === undefined || document instanceof Error) return undefined;
    const operation = this.#records.get(document)?.kept(operationName);
    return operation?.validated ? operation : undefined;
  }
}
