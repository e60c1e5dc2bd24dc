import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  type DocumentNode,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  type ParseOptions,
  parse,
  type Source,
  type ValidationContext,
  validate,
} from 'graphql';
import type { Plugin as EnvelopPlugin } from 'graphql-yoga';
import type { DocumentLimits } from '../config/index.ts';
import { Fact, type Operations } from './operation.ts';

/** A document's verdict against the depth, alias and directive limits. */
const SHAPE = new Fact<readonly GraphQLError[]>('document shape');

/**
 * The limits on one document, the same at the gateway and in every subgraph (docs/security.md):
 * a subgraph reached directly, or by another router, refuses what the gateway would.
 */

/** The top-level `extensions.code` of every document or variables limit (docs/security.md). */
export const LIMIT_CODE = 'BAD_USER_INPUT';

export type LimitName = keyof DocumentLimits;

/** A refusal the client can act on: which limit, its value, HTTP 400 whatever the Accept header. */
export function limitError(limit: LimitName, maximum: number, message: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: LIMIT_CODE, limit, maximum, http: { status: 400 } },
  });
}

/** The refusal of an operation whose estimated cost is over `maxCost`. */
export function costError(cost: number, maximum: number): GraphQLError {
  return limitError('maxCost', maximum, `The query costs ${cost}; at most ${maximum} is allowed.`);
}

/**
 * graphql-armor throws its own "Syntax Error: …" without a code. Each rule is told to report
 * instead of throwing, and this reports our error in its place, as a validation error.
 */
function reject(
  limit: LimitName,
  maximum: number,
  describe: (found: string) => string,
  refused?: (limit: LimitName) => void,
) {
  return {
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        const found = /found (\d+)/.exec(error.message)?.[1] ?? 'more';
        refused?.(limit);
        context?.reportError(limitError(limit, maximum, describe(found)));
      },
    ],
  };
}

/**
 * A document of more than `maxTokens` tokens is refused as it is parsed, by graphql-js's own
 * bound (`parse(…, { maxLexicalTokens })`), which stops the lexer at the first token too many and
 * costs nothing per token: graphql-armor's token limit wraps the lexer in a Proxy that makes a
 * closure for every token read (about 400 kB of garbage for a document of 1,400 tokens). The
 * bounded parse is made once per parse function, not per request.
 */
function tokenLimit(maxTokens: number, refused?: (limit: LimitName) => void): EnvelopPlugin {
  assertParseBoundsTokens();
  type Parse = (source: string | Source, options?: ParseOptions) => DocumentNode;
  const bounded = new WeakMap<Parse, Parse>();
  const bound =
    (parseFn: Parse): Parse =>
    (source, options) => {
      try {
        return parseFn(source, { ...options, maxLexicalTokens: maxTokens, maxTokens });
      } catch (e) {
        if (!(e instanceof Error) || !TOO_MANY_TOKENS.test(e.message)) throw e;
        refused?.('maxTokens');
        throw limitError('maxTokens', maxTokens, `The document has more than ${maxTokens} tokens.`);
      }
    };
  return {
    onParse({ parseFn, setParseFn }) {
      let parse = bounded.get(parseFn);
      if (!parse) {
        parse = bound(parseFn);
        bounded.set(parseFn, parse);
      }
      setParseFn(parse);
    },
  };
}

/** graphql-js's refusal of a document over the bound ("more that" in graphql 16). */
const TOO_MANY_TOKENS = /^Syntax Error: Document contains more th(?:at|an) \d+ tokens/;

/**
 * Checked as the limits are built (at startup): a graphql-js that no longer bounded tokens, or
 * said so in other words, would otherwise let every document through unbounded, or answer a
 * client's long document as a server fault.
 */
function assertParseBoundsTokens(): void {
  try {
    parse('{ a b }', { maxLexicalTokens: 1, maxTokens: 1 });
  } catch (e) {
    if (e instanceof Error && TOO_MANY_TOKENS.test(e.message)) return;
  }
  throw new Error("graphql's parse no longer refuses a document over maxLexicalTokens as expected");
}

/**
 * Documents too deep, with too many aliases or directives (graphql-armor's rules) or tokens
 * (graphql-js's bound), and field suggestions when introspection is off. The cost is priced
 * apart: by the gateway runtime's demand control at the gateway, by {@link useCostLimit} in a
 * subgraph.
 *
 * Depth, aliases and directives are checked in a pass of their own before the document is
 * validated: graphql-js's rules would otherwise run over all of it first (200 aliases of one field
 * are 20,000 pairs for the rule that fields merge), so a document the limits refuse would cost
 * more than one they let through. The verdict is kept per parsed document, so a document seen
 * before costs a lookup.
 */
export function documentShapeLimits(
  limits: DocumentLimits,
  introspection: boolean,
  /** Where the place keeps what it works out about its documents: the verdict is kept there. */
  operations: Operations,
  /** Told the name of each limit that refuses a document (metrics). */
  refused?: (limit: LimitName) => void,
): EnvelopPlugin[] {
  const armor = new EnvelopArmor({
    // Without introspection, "Did you mean …?" would still spell the schema out field by field.
    blockFieldSuggestion: { enabled: !introspection },
    maxTokens: { enabled: false },
    maxDepth: { enabled: false },
    maxAliases: { enabled: false },
    maxDirectives: { enabled: false },
    costLimit: { enabled: false },
  });
  const shapeRules = [
    maxDepthRule({
      n: limits.maxDepth,
      // The explorer's introspection query nests type references deeply; tokens bound it anyway.
      ignoreIntrospection: true,
      ...reject(
        'maxDepth',
        limits.maxDepth,
        (found) => `The query is nested ${found} levels deep; at most ${limits.maxDepth} are allowed.`,
      ),
    }),
    maxAliasesRule({
      n: limits.maxAliases,
      ...reject(
        'maxAliases',
        limits.maxAliases,
        (found) => `The operation uses ${found} aliases; at most ${limits.maxAliases} are allowed.`,
      ),
    }),
    maxDirectivesRule({
      n: limits.maxDirectives,
      ...reject(
        'maxDirectives',
        limits.maxDirectives,
        (found) => `The operation uses ${found} directives; at most ${limits.maxDirectives} are allowed.`,
      ),
    }),
  ];
  const shapeFirst: EnvelopPlugin = {
    onValidate({ params, setResult }) {
      const errors = operations
        .document(params.documentAST)
        .get(SHAPE, () => validate(params.schema, params.documentAST, shapeRules));
      if (errors.length === 0) return;
      for (const e of errors) refused?.(e.extensions.limit as LimitName);
      setResult([...errors]);
    },
  };
  return [tokenLimit(limits.maxTokens, refused), shapeFirst, ...(armor.protect().plugins as EnvelopPlugin[])];
}

/**
 * With introspection off, `__schema` and `__type` are refused (graphql-js's own rule);
 * `__typename`, and the federation fields a router needs (`_service { sdl }`, `_entities`),
 * are ordinary fields and keep working.
 */
export function useNoIntrospection(): EnvelopPlugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}
