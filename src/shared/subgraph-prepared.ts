import type { ExecutionArgs, ExecutionResult } from 'graphql';
import type { Plugin as EnvelopPlugin } from 'graphql-yoga';
import type { DocumentCache } from './document-cache.ts';
import { IDENTITY_HEADER, type Identity, REQUEST_ID_HEADER } from './identity.ts';
import { type Metrics, NO_METRICS } from './metrics.ts';
import { PreparedOperations, preparedRequest, resultText } from './prepared-operations.ts';

/** A subgraph's execution of a document without Yoga (`Subgraph.executeLocally`). */
interface Executed {
  result: ExecutionResult;
  responseHeaders: Headers;
}

export interface SubgraphPreparedOptions {
  /** The subgraph's parsed documents (its Yoga's cache). */
  documents: DocumentCache;
  /** The signed identity's caller, or undefined when the token is refused (Yoga answers the 401). */
  verify(token: string): Promise<Identity | undefined>;
  execute(operation: {
    document: ExecutionArgs['document'];
    operationName: string | null;
    variableValues?: Record<string, unknown>;
    identity: Identity;
    requestId: string;
  }): Promise<Executed>;
  /** An answer of Yoga's own class. */
  respond(body: string, init: ResponseInit): Response;
  metrics?: Metrics;
}

export interface SubgraphPrepared {
  /**
   * The answer to a request our gateway sent (it carries the signed identity) for an operation
   * prepared here, or undefined for Yoga to answer it. Called once its body is read.
   */
  answer(request: Request): Promise<Response | undefined>;
  /** Notes the operations Yoga executes, and shows a result the prepared path handed it. */
  plugin: EnvelopPlugin;
}

/**
 * A subgraph's prepared operations (shared/prepared-operations.ts): a request from our gateway
 * (its identity signed) for an operation this subgraph's Yoga has executed before, with its
 * variables, is executed as the gateway's in-process direct execution executes it
 * (`executeLocally`: the same context, input limits and cost over the variables too, variables
 * coerced as the compiled execution coerces them, response budget and masking) and
 * answered as Yoga answers a result without errors. Its body has been read within the subgraph's
 * bound and its identity is verified for each request; a token that does not verify, or anything
 * the prepared path does not look at, goes to Yoga, and so does a result with errors, after
 * execution, for Yoga's hooks to shape without executing it again. Requests without our identity
 * (another router's, with a forwarded session) always take Yoga's path.
 */
export function subgraphPrepared(options: SubgraphPreparedOptions): SubgraphPrepared {
  const operations = new PreparedOperations<true>(options.documents, { variables: true });
  const metrics = options.metrics ?? NO_METRICS;
  // Results executed here that Yoga shapes, by the request Yoga then serves.
  const handed = new WeakMap<Request, Executed>();
  return {
    async answer(request) {
      const token = request.headers.get(IDENTITY_HEADER);
      if (token === null) return undefined;
      const asked = preparedRequest(request, { variables: true });
      if (!asked) return undefined;
      const prepared = operations.find(asked.query, asked.operationName);
      if (!prepared || request.signal.aborted) return undefined;
      const identity = await options.verify(token);
      if (!identity) return undefined;
      const executed = await options.execute({
        document: prepared.document,
        operationName: prepared.operationName,
        ...(asked.variables ? { variableValues: asked.variables } : {}),
        identity,
        requestId: request.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID(),
      });
      const { result } = executed;
      if (result.errors?.length || result.extensions?.http || request.signal.aborted) {
        handed.set(request, executed);
        return undefined;
      }
      metrics.preparedOperation();
      const response = options.respond(resultText(result), {
        status: 200,
        headers: { 'Content-Type': `${asked.mediaType}; charset=utf-8` },
      });
      // As Yoga's answers get what the resolvers set (the subgraph's onResponse hook).
      executed.responseHeaders.forEach((value, key) => {
        if (key === 'set-cookie') response.headers.append(key, value);
        else response.headers.set(key, value);
      });
      return response;
    },
    plugin: {
      onExecute({ args, setExecuteFn }) {
        const context = args.contextValue as { request?: Request; responseHeaders?: Headers };
        const executed = context.request ? handed.get(context.request) : undefined;
        if (executed) {
          handed.delete(context.request!);
          executed.responseHeaders.forEach((value, key) => {
            context.responseHeaders?.append(key, value);
          });
          setExecuteFn(() => executed.result);
          return;
        }
        // Noted once executed without errors: anything refused on the way (cost, input limits)
        // answers with errors and is never noted.
        return {
          onExecuteDone({ result }) {
            if (!(Symbol.asyncIterator in Object(result)) && !(result as ExecutionResult).errors?.length)
              operations.record(args.document, args.operationName, true);
          },
        };
      },
    },
  };
}
