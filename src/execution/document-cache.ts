import { hash } from 'node:crypto';
import type { DocumentNode } from 'graphql';
import type { Plugin as EnvelopPlugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';

/**
 * Parsed documents kept between requests, bounded by what they hold in memory and not only by
 * their number (docs/security.md, "Documents kept between requests").
 *
 * Yoga keeps the last 1,024 documents it parsed, whatever their size, for an hour; the gateway
 * runtime gives no way to bound it. A parsed document of 10,000 tokens holds about 5 MB (its
 * nodes, and the tokens its locations link), so about 600 different ones of 95 kB each, or a
 * thousand different 4-MB bodies refused later, ran the process out of memory. This cache
 * takes the place of Yoga's: it keeps a document only while the sum of their estimated sizes
 * stays under `maxBytes`, never keeps one larger than `maxEntryBytes` (it is parsed again for
 * every request, at its sender's cost), keeps a text only from its second parse on, and keeps
 * a document's parse error as Yoga did.
 */
export interface DocumentCacheOptions {
  /** Most documents kept (Yoga's own bound). */
  maxDocuments: number;
  /** Most estimated bytes kept, all documents together. */
  maxBytes: number;
  /** The largest document kept. */
  maxEntryBytes: number;
}

export const DEFAULT_DOCUMENT_CACHE: DocumentCacheOptions = {
  maxDocuments: 1024,
  maxBytes: 64 * 1024 * 1024,
  maxEntryBytes: 1024 * 1024,
};

/**
 * What a parsed document holds per token (its node share, the token itself, its location) and
 * per character of its text (the text, kept by the locations), measured on graphql-js 16:
 * 10,000 one-field tokens hold 5.1 MB.
 */
const BYTES_PER_TOKEN = 520;
const BYTES_PER_CHARACTER = 2;
/** A parse error: its message, location and the text it names. */
const ERROR_BYTES = 1024;

type Parsed = DocumentNode | Error;

/** The estimated bytes a parse result holds. */
export function estimatedSize(text: string, parsed: Parsed): number {
  if (parsed instanceof Error) return ERROR_BYTES + text.length * BYTES_PER_CHARACTER;
  let tokens = 0;
  for (let token = parsed.loc?.startToken ?? null; token; token = token.next) tokens++;
  return tokens * BYTES_PER_TOKEN + text.length * BYTES_PER_CHARACTER;
}

export interface DocumentCache {
  get(text: string): Parsed | undefined;
  set(text: string, parsed: Parsed): void;
  readonly size: number;
  readonly calculatedSize: number;
  /** Drops a kept document (one that failed validation: its errors would be kept with it). */
  forget(document: DocumentNode): void;
  /**
   * Keeps `text`'s document, from its next parse on, outside the bounds and for good: a trusted
   * document, prepared at start (docs/security.md#trusted-documents), which the deployment's own
   * manifest bounds. Dropped again if it fails validation.
   */
  pin(text: string): void;
}

export function createDocumentCache(options: DocumentCacheOptions = DEFAULT_DOCUMENT_CACHE): DocumentCache {
  const lru = new LRUCache<string, Parsed>({
    max: options.maxDocuments,
    maxSize: options.maxBytes,
    maxEntrySize: options.maxEntryBytes,
  });
  // Texts parsed once and not kept (by a digest): a text is kept from its second parse on, so
  // that a stream of new texts (one use each) leaves nothing behind for the collector to move
  // into the old generation, and pushes no document in use out of the cache.
  const seen = new LRUCache<string, true>({ max: options.maxDocuments * 16 });
  // The text each kept document was parsed from, to forget it by the document.
  const texts = new WeakMap<DocumentNode, string>();
  // Pinned texts: their documents once parsed (undefined until then).
  const pinned = new Map<string, DocumentNode | undefined>();
  return {
    get: (text) => pinned.get(text) ?? lru.get(text),
    forget(document) {
      const text = texts.get(document);
      if (text !== undefined && pinned.get(text) === document) pinned.delete(text);
      if (text !== undefined && lru.peek(text) === document) lru.delete(text);
    },
    pin(text) {
      if (!pinned.has(text)) pinned.set(text, undefined);
    },
    set(text, parsed) {
      if (pinned.has(text) && !(parsed instanceof Error)) {
        pinned.set(text, parsed);
        texts.set(parsed, text);
        return;
      }
      if (text.length * BYTES_PER_CHARACTER > options.maxEntryBytes) return;
      const digest = hash('sha1', text, 'base64');
      if (!seen.has(digest)) {
        seen.set(digest, true);
        return;
      }
      const size = Math.max(1, estimatedSize(text, parsed));
      if (size > options.maxEntryBytes) return;
      lru.set(text, parsed, { size });
      if (!(parsed instanceof Error)) texts.set(parsed, text);
    },
    get size() {
      return lru.size;
    },
    get calculatedSize() {
      return lru.calculatedSize;
    },
  };
}

/**
 * The stores Yoga's `parserAndValidationCache` option takes (a subgraph's Yoga), over `cache`.
 */
export function parserCacheStores(cache: DocumentCache) {
  return {
    documentCache: {
      get: (text: string) => {
        const parsed = cache.get(text);
        return parsed instanceof Error ? undefined : parsed;
      },
      set: (text: string, document: DocumentNode) => cache.set(text, document),
    },
    errorCache: {
      get: (text: string) => {
        const parsed = cache.get(text);
        return parsed instanceof Error ? parsed : undefined;
      },
      set: (text: string, error: unknown) =>
        cache.set(text, error instanceof Error ? error : new Error(String(error))),
    },
  };
}

/**
 * Forgets a kept document that fails validation: the validation's errors (up to 101, each with
 * its stack) are kept with the document by Yoga's validation cache, about 3 KB each, which the
 * size estimate does not count. Such a document is parsed again at each use, at its sender's cost.
 */
export function useForgetInvalid(cache: DocumentCache): EnvelopPlugin {
  return {
    onValidate({ params }) {
      return ({ result }) => {
        if (result.length > 0) cache.forget(params.documentAST);
      };
    },
  };
}

/** Whether `plugin` is Yoga's default parser and validation cache (graphql-yoga 5). */
function isYogaParserCache(plugin: EnvelopPlugin | undefined): boolean {
  return Boolean(
    plugin?.onParse &&
      plugin.onValidate &&
      String(plugin.onParse).includes('documentCache') &&
      String(plugin.onValidate).includes('validationCache'),
  );
}

/**
 * The gateway runtime's Yoga parses through `cache` (the runtime has no option for it).
 *
 * At init, envelop hands each plugin the list of plugins, which it reads for hooks only after
 * every init: this puts, in place of Yoga's default cache, a plugin that parses through
 * `cache` exactly as Yoga's did (a document or its parse error, stored after the parse, in the
 * same place among the hooks) and keeps Yoga's validation cache. Yoga's cache not found exactly
 * once is a startup error, so an upgrade that changes it cannot leave the bound silently off.
 */
export function useDocumentCache(cache: DocumentCache = createDocumentCache()): EnvelopPlugin {
  const onParse: NonNullable<EnvelopPlugin['onParse']> = ({ params, setParsedDocument }) => {
    const text = typeof params.source === 'string' ? params.source : params.source.body;
    const parsed = cache.get(text);
    if (parsed instanceof Error) throw parsed;
    if (parsed) {
      setParsedDocument(parsed);
      return;
    }
    return ({ result }) => {
      if (result != null) cache.set(text, result instanceof Error ? result : (result as DocumentNode));
    };
  };
  let replacement: EnvelopPlugin | undefined;
  return {
    onPluginInit({ plugins, addPlugin }) {
      const found = plugins.flatMap((plugin, i) => (isYogaParserCache(plugin as EnvelopPlugin) ? [i] : []));
      if (found.length !== 1) {
        throw new Error(
          `expected Yoga's parser cache once among the runtime's plugins, found it ${found.length} times (src/execution/document-cache.ts)`,
        );
      }
      const i = found[0]!;
      replacement = { ...(plugins[i] as EnvelopPlugin), onParse };
      plugins[i] = replacement;
      addPlugin(useForgetInvalid(cache));
    },
    // The list the runtime reads its hooks from is the one changed above: checked, so that a
    // change of how envelop hands it over cannot leave Yoga's unbounded cache in place unseen.
    onYogaInit({ yoga }) {
      const used = (yoga as unknown as { getEnveloped: { _plugins: EnvelopPlugin[] } }).getEnveloped._plugins;
      if (!replacement || !used.includes(replacement) || used.some(isYogaParserCache)) {
        throw new Error("Yoga's parser cache was not replaced (src/execution/document-cache.ts)");
      }
    },
  } as EnvelopPlugin;
}
