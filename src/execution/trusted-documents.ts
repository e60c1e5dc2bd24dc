import { hash } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';

/**
 * Trusted documents (docs/security.md#trusted-documents): which document text a request runs when
 * it names one by an id, and whether a deployment that runs only its own clients' documents
 * (`ASSETQL_TRUSTED_DOCUMENTS=require`) lets it run at all. One resolution for every door of the
 * gateway (plugins/use-trusted-documents.ts): the runtime's pipeline asks it for every request's
 * parameters, the fast door for the requests it takes, so that no door runs a text the other
 * would refuse.
 *
 * The forms a request names a document by:
 * - `documentId` (GraphQL over HTTP, persisted documents appendix): `sha256:<64 lowercase hex>`,
 *   the SHA-256 of the text; or a custom id (`x-<prefix>:<payload>`, or no colon), a manifest's id;
 * - Apollo's automatic persisted queries, `extensions.persistedQuery: { version: 1, sha256Hash }`:
 *   a hash alone runs the text known by it or is answered `PersistedQueryNotFound` (HTTP 200), and
 *   the client then sends the hash with its text, which registers the text (in a bounded store,
 *   never past its bounds) once the hash is proved to be the text's and, as Apollo Server does,
 *   only after the text has parsed and validated here ({@link TrustedDocuments.register}): a text
 *   that does not is answered its errors and kept nowhere;
 * - Relay's `doc_id`: a manifest's id.
 */

export type TrustedDocumentsMode = 'allow' | 'require';

export type OperationKind = 'query' | 'mutation' | 'subscription';

/** A document this deployment trusts: applied from a manifest, or one the service ships. */
export interface TrustedDocument {
  /** The manifest's id (Apollo's persisted query manifest: usually the text's hex SHA-256). */
  id: string;
  name: string | null;
  type: OperationKind;
  body: string;
}

/** The bounds of the store APQ registers texts in: it never holds more, whoever registers. */
export interface ApqBounds {
  /** Most texts kept, the least recently used going first (`maxPersistedQueries`); 0: none. */
  maxDocuments: number;
  /** Most characters kept, all texts together (two bytes each). */
  maxBytes: number;
  /** The longest text registered: a longer one is answered but not kept. */
  maxDocumentBytes: number;
}

export const DEFAULT_APQ: ApqBounds = {
  maxDocuments: 2_000,
  maxBytes: 16 * 1024 * 1024,
  maxDocumentBytes: 256 * 1024,
};

/** The longest document id taken; a longer one is refused before it is looked at. */
export const MAX_DOCUMENT_ID_LENGTH = 256;

/** A custom document identifier's characters (the appendix's UnreservedCharacter). */
const UNRESERVED = /^[A-Za-z0-9._~-]+$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The lower-case hex SHA-256 of a text's UTF-8 bytes, as a `sha256:` id and APQ hash name it. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** Whether `id` is a document identifier as the appendix defines one, within the length bound. */
export function isDocumentId(id: string): boolean {
  if (id.length === 0 || id.length > MAX_DOCUMENT_ID_LENGTH) return false;
  const colon = id.indexOf(':');
  if (colon < 0) return UNRESERVED.test(id);
  const prefix = id.slice(0, colon);
  const payload = id.slice(colon + 1);
  if (prefix === 'sha256') return SHA256_HEX.test(payload);
  return prefix.startsWith('x-') && UNRESERVED.test(prefix) && UNRESERVED.test(payload);
}

/** A request's GraphQL parameters, as its door read them. */
export type Params = Record<string, unknown>;

/** A text APQ was sent with its hash: registered once it has parsed and validated, never before. */
export interface Registration {
  sha: string;
  text: string;
}

/**
 * What the request runs (its parameters with the text in place of an id), with the text to
 * register once it has passed parse and validation, if any; or its refusal.
 */
export type Resolution = { params: Params; register?: Registration } | { refused: GraphQLError };

/** What a caller holds that bears on what it may run. */
export interface Caller {
  /**
   * The caller holds the explorer's right (a session signed in as `EXPLORER`): it may run any text
   * even when only trusted documents run.
   */
  explorer: boolean;
}

export interface TrustedDocumentsOptions {
  mode: TrustedDocumentsMode;
  /** The deployment's documents, prepared at start. */
  documents: readonly TrustedDocument[];
  /** Documents the service ships (the explorer's examples): trusted, not prepared. */
  shipped?: readonly TrustedDocument[];
  apq?: ApqBounds;
}

/** The codes of the refusals below, as clients see them (docs/security.md#trusted-documents). */
export const TRUSTED_DOCUMENT_CODES = {
  /** Apollo's: the APQ hash is not known here; send it again with its text. */
  notFound: 'PERSISTED_QUERY_NOT_FOUND',
  /** Apollo's: APQ registers nothing here (`maxPersistedQueries` 0); the client stops trying. */
  notSupported: 'PERSISTED_QUERY_NOT_SUPPORTED',
  /** A `documentId` or `doc_id` names no trusted document. */
  notInList: 'PERSISTED_QUERY_NOT_IN_LIST',
  /** The text is not a trusted document, and only they run here. */
  notTrusted: 'QUERY_NOT_IN_SAFELIST',
  badRequest: 'BAD_REQUEST',
} as const;

/**
 * A deployment's trusted documents and APQ's registered texts, and the one resolution of a
 * request's parameters against them.
 */
export class TrustedDocuments {
  readonly mode: TrustedDocumentsMode;
  readonly #byId = new Map<string, TrustedDocument>();
  readonly #bySha = new Map<string, TrustedDocument>();
  readonly #prepared: readonly TrustedDocument[];
  readonly #apq: LRUCache<string, string> | undefined;
  readonly #apqBounds: ApqBounds;

  constructor(options: TrustedDocumentsOptions) {
    this.mode = options.mode;
    for (const document of [...(options.shipped ?? []), ...options.documents]) {
      this.#byId.set(document.id, document);
      this.#bySha.set(sha256Hex(document.body), document);
    }
    const texts = new Map(options.documents.map((d) => [d.body, d]));
    this.#prepared = [...texts.values()];
    this.#apqBounds = options.apq ?? DEFAULT_APQ;
    this.#apq =
      this.#apqBounds.maxDocuments > 0
        ? new LRUCache<string, string>({
            max: this.#apqBounds.maxDocuments,
            maxSize: this.#apqBounds.maxBytes,
            sizeCalculation: (text) => Math.max(1, text.length * 2),
          })
        : undefined;
  }

  /** The deployment's documents, each text once: what the gateway prepares at start. */
  get documents(): readonly TrustedDocument[] {
    return this.#prepared;
  }

  /** How many texts APQ has registered, and the characters they hold (tests, metrics). */
  get registered(): { count: number; bytes: number } {
    return { count: this.#apq?.size ?? 0, bytes: this.#apq?.calculatedSize ?? 0 };
  }

  /**
   * Registers the text an APQ request sent with its hash ({@link Resolution}'s `register`): to be
   * called only once the text has parsed and validated (every door: the pipeline's execute and
   * subscribe hooks, the fast door for an operation the pipeline validated), so that junk never
   * takes a slot of the store, evicts a real entry or is served from it. A text too long is not
   * kept.
   */
  register(registration: Registration): void {
    if (registration.text.length * 2 > this.#apqBounds.maxDocumentBytes) return;
    this.#apq?.set(registration.sha, registration.text);
  }

  /** Whether `text` is a trusted document's. */
  trusts(text: string): boolean {
    return this.#bySha.has(sha256Hex(text));
  }

  /**
   * What a request's parameters run: the same parameters for a text the caller may run, the text
   * an id names in place of the id (its APQ extension taken out), or the refusal a client is
   * answered with. Nothing is parsed here; a request with no id and no text is left to the
   * pipeline's own refusal.
   */
  resolve(params: Params, caller: Caller): Resolution {
    const { documentId, doc_id: docId, extensions } = params;
    const persisted = persistedQueryOf(extensions);
    const forms =
      Number(documentId !== undefined) + Number(docId !== undefined) + Number(persisted !== undefined);
    if (forms === 0) return this.#text(params, caller);
    if (forms > 1)
      return refused('Name the document one way: documentId, doc_id or extensions.persistedQuery.');
    if (persisted !== undefined) return this.#apqRequest(params, persisted, caller);
    const id = documentId ?? docId;
    const name = documentId !== undefined ? 'documentId' : 'doc_id';
    if (typeof id !== 'string' || !isDocumentId(id))
      return refused(
        `${name} must be a document identifier: sha256:<64 lowercase hex digits>, or a custom id of at most ${MAX_DOCUMENT_ID_LENGTH} letters, digits, '-', '.', '_' or '~'.`,
      );
    if (params.query !== undefined && params.query !== null)
      return refused(`Send the document by ${name} or as query, not both.`);
    const text = this.#byDocumentId(id, caller);
    if (text === undefined) return { refused: notInList(id) };
    const { documentId: _d, doc_id: _r, ...rest } = params;
    return { params: { ...rest, query: text } };
  }

  /** A text sent as it is: run unless only trusted documents run and it is not one of them. */
  #text(params: Params, caller: Caller): Resolution {
    const query = params.query;
    if (this.mode === 'allow' || caller.explorer || typeof query !== 'string') return { params };
    return this.trusts(query) ? { params } : { refused: notTrusted() };
  }

  /** Apollo's automatic persisted queries, with Apollo Server's answers (see the module). */
  #apqRequest(params: Params, persisted: unknown, caller: Caller): Resolution {
    const pq = persisted as { version?: unknown; sha256Hash?: unknown } | null;
    if (pq === null || typeof pq !== 'object' || Array.isArray(pq))
      return refused('extensions.persistedQuery must be an object.');
    if (pq.version !== 1) return refused('Unsupported persisted query version');
    const sha = pq.sha256Hash;
    if (typeof sha !== 'string' || !SHA256_HEX.test(sha))
      return refused('persistedQuery.sha256Hash must be a SHA-256 hash: 64 lowercase hexadecimal digits.');
    const query = params.query;
    const { persistedQuery: _pq, ...otherExtensions } = params.extensions as Record<string, unknown>;
    const { extensions: _e, ...rest } = params;
    const run = (text: string): { params: Params; register?: Registration } => ({
      params: {
        ...rest,
        query: text,
        ...(Object.keys(otherExtensions).length ? { extensions: otherExtensions } : {}),
      },
    });
    if (query === undefined || query === null) {
      const text = this.#bySha.get(sha)?.body ?? this.#byId.get(sha)?.body ?? this.#registered(sha, caller);
      if (text !== undefined) return run(text);
      return { refused: this.#apq ? persistedQueryNotFound() : persistedQueryNotSupported() };
    }
    if (typeof query !== 'string') return refused('query must be a string.');
    if (sha256Hex(query) !== sha) return refused('provided sha does not match query');
    if (this.#bySha.has(sha)) return run(query);
    if (this.mode === 'require' && !caller.explorer) return { refused: notTrusted() };
    const resolution = run(query);
    // Registered by the door once the text has parsed and validated (register), not now.
    if (this.#apq && query.length * 2 <= this.#apqBounds.maxDocumentBytes)
      resolution.register = { sha, text: query };
    return resolution;
  }

  /** The text a `documentId` or `doc_id` names, if any this caller may run. */
  #byDocumentId(id: string, caller: Caller): string | undefined {
    if (id.startsWith('sha256:')) {
      const sha = id.slice(7);
      return this.#bySha.get(sha)?.body ?? this.#registered(sha, caller);
    }
    const named = this.#byId.get(id)?.body;
    if (named !== undefined) return named;
    // Relay's ids are a manifest's; a bare hash names a text by its hash as well.
    return SHA256_HEX.test(id) ? (this.#bySha.get(id)?.body ?? this.#registered(id, caller)) : undefined;
  }

  /**
   * A text APQ registered, when this caller may run it: registered texts are anybody's, so where
   * only trusted documents run, only a caller who may run any text runs them.
   */
  #registered(sha: string, caller: Caller): string | undefined {
    if (this.mode === 'require' && !caller.explorer) return undefined;
    return this.#apq?.get(sha);
  }
}

/** `extensions.persistedQuery` when the extensions are an object holding it. */
function persistedQueryOf(extensions: unknown): unknown {
  if (extensions === null || typeof extensions !== 'object' || Array.isArray(extensions)) return undefined;
  return (extensions as Record<string, unknown>).persistedQuery ?? undefined;
}

function refused(message: string): Resolution {
  return {
    refused: new GraphQLError(message, {
      extensions: { code: TRUSTED_DOCUMENT_CODES.badRequest, http: { status: 400 } },
    }),
  };
}

/**
 * Apollo Server's answer to a hash it does not know, to the letter: HTTP 200 (Apollo Client and
 * urql then send the text with the hash). Like every GraphQL answer here it goes out with
 * `cache-control: no-store` (plugins/use-security-headers.ts), stricter than Apollo's `no-cache`.
 */
export function persistedQueryNotFound(): GraphQLError {
  return new GraphQLError('PersistedQueryNotFound', {
    extensions: {
      code: TRUSTED_DOCUMENT_CODES.notFound,
      http: { status: 200 },
    },
  });
}

/** Apollo Server's answer when it registers nothing: Apollo Client then sends texts only. */
function persistedQueryNotSupported(): GraphQLError {
  return new GraphQLError('PersistedQueryNotSupported', {
    extensions: {
      code: TRUSTED_DOCUMENT_CODES.notSupported,
      http: { status: 200 },
    },
  });
}

/** A `documentId` or `doc_id` no trusted document has: a request error (GraphQL over HTTP). */
function notInList(id: string): GraphQLError {
  return new GraphQLError(`No persisted document has the id ${id}.`, {
    extensions: { code: TRUSTED_DOCUMENT_CODES.notInList, http: { spec: true, status: 400 } },
  });
}

/**
 * A text that is not a trusted document where only they run: a request error (GraphQL over HTTP:
 * 400 under `application/graphql-response+json`, 200 under `application/json`).
 */
function notTrusted(): GraphQLError {
  return new GraphQLError(
    'Only trusted documents run here: send the documentId of a document applied to this deployment.',
    { extensions: { code: TRUSTED_DOCUMENT_CODES.notTrusted, http: { spec: true, status: 400 } } },
  );
}
