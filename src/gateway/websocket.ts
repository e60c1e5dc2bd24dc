import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ExecutionResult, GraphQLError, parse } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { SESSION_HEADER } from '../shared/session-policy.ts';
import { GRAPHQL_PATH } from './gateway.ts';

export interface WebSocketOptions {
  /** The whole HTTP surface: each operation is sent through it as a POST of its own. */
  handle(request: Request, remoteAddress?: string): Promise<Response>;
  /** The origins a browser page may open a socket from, besides the server's own (ASSETQL_CORS_ORIGINS). */
  origins: readonly string[];
  /** The largest message a client may send (the HTTP body bound, `maxBodyBytes`). */
  maxMessageBytes: number;
  /** The most tokens a document may hold (`maxTokens`), checked before it is looked at. */
  maxTokens: number;
  /** Operations one socket may run at once @default 20 */
  maxOperations?: number;
  /** Ping every so often, and close a socket that does not answer within as long @default 12000 */
  keepAliveMs?: number;
}

export interface WebSocketDoor {
  /** Takes an HTTP upgrade to `GRAPHQL_PATH`; false for any other (left to the caller). */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

/** What a socket carries from its connection to each of its operations. */
interface SocketContext {
  headers: Record<string, string>;
  remoteAddress: string | undefined;
  /** Each running operation's abort, by its id. */
  running: Map<string, AbortController>;
}

/**
 * GraphQL over WebSocket (the `graphql-transport-ws` protocol, served by the `graphql-ws` library
 * on `ws`) at the GraphQL path, as one more door into the same pipeline: each operation a socket
 * subscribes to is sent through the gateway's HTTP surface as a POST of its own asking for an
 * event stream (so the session, CSRF, fairness, admission, routes, limits and masking are the
 * HTTP request's, to the letter), and the events of its answer are the socket's `next` messages.
 *
 * The session is the upgrade request's cookie, or the `x-svc-sessionid` a client puts in its
 * `connection_init` payload (browsers cannot set a socket's headers). A browser page of another
 * origin (`Origin` neither the server's nor a listed one) is refused at the upgrade: sockets have
 * no CORS, and a cookie would otherwise let any site act as the signed-in user.
 */
export function graphqlOverWebSocket(options: WebSocketOptions): WebSocketDoor {
  const maxOperations = options.maxOperations ?? 20;
  const allowed = new Set(options.origins.map((o) => new URL(o).origin));
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
  const contexts = new WeakMap<object, SocketContext>();

  const server = useServer<Record<string, unknown> | undefined, { request: IncomingMessage }>(
    {
      connectionInitWaitTimeout: 3_000,
      onConnect(ctx) {
        const request = ctx.extra.request;
        const headers: Record<string, string> = {};
        for (const name of ['cookie', 'x-forwarded-for', 'user-agent', 'x-request-id']) {
          const value = request.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const session = ctx.connectionParams?.[SESSION_HEADER];
        if (typeof session === 'string') headers[SESSION_HEADER] = session;
        contexts.set(ctx, { headers, remoteAddress: request.socket.remoteAddress, running: new Map() });
        return true;
      },
      onSubscribe(ctx, id, payload) {
        const socket = contexts.get(ctx)!;
        if (socket.running.size >= maxOperations)
          return [
            new GraphQLError(`At most ${maxOperations} operations may run at once on one socket.`, {
              extensions: { code: 'TOO_MANY_OPERATIONS', maximum: maxOperations },
            }),
          ];
        // graphql-ws asks which kind of operation it is; the pipeline checks everything else.
        let document: ReturnType<typeof parse>;
        try {
          document = parse(payload.query, { maxTokens: options.maxTokens, noLocation: true });
        } catch (e) {
          return [e instanceof GraphQLError ? e : new GraphQLError('The document could not be read.')];
        }
        // Its slot is taken now, before anything is awaited: messages that come together each
        // see the ones before them.
        socket.running.set(id, new AbortController());
        return {
          schema: undefined as never,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: { id, payload, socket },
        };
      },
      // Results come as the pipeline wrote them (JSON already shaped and masked): sent as they are.
      onNext: (_ctx, _id, _payload, _args, result) => result as never,
      execute: (args) => viaPipeline(args.contextValue as Operation),
      subscribe: (args) => viaPipeline(args.contextValue as Operation),
      // A client that completes an operation, or goes, ends what it ran at once.
      onComplete(ctx, id) {
        contexts.get(ctx)?.running.get(id)?.abort();
      },
      onClose(ctx) {
        for (const controller of contexts.get(ctx)?.running.values() ?? []) controller.abort();
      },
    },
    wss,
    options.keepAliveMs ?? 12_000,
  );

  interface Operation {
    id: string;
    payload: { query: string; operationName?: string | null; variables?: unknown; extensions?: unknown };
    socket: SocketContext;
  }

  /** The operation as an HTTP request through the gateway; its answer's events, as results. */
  async function* viaPipeline(op: Operation): AsyncGenerator<ExecutionResult> {
    const controller = op.socket.running.get(op.id) ?? new AbortController();
    op.socket.running.set(op.id, controller);
    try {
      const response = await options.handle(
        new Request(`http://websocket.assetql.internal${GRAPHQL_PATH}`, {
          method: 'POST',
          headers: {
            ...op.socket.headers,
            'content-type': 'application/json',
            accept: 'text/event-stream',
          },
          body: JSON.stringify({
            query: op.payload.query,
            operationName: op.payload.operationName ?? undefined,
            variables: op.payload.variables ?? undefined,
            extensions: op.payload.extensions ?? undefined,
          }),
          signal: controller.signal,
        }),
        op.socket.remoteAddress,
      );
      if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        // Refused before it ran (a body too large, a request the pipeline answered as JSON).
        const text = await response.text();
        yield parsedResult(text);
        return;
      }
      for await (const data of sseData(response.body, controller.signal)) yield parsedResult(data);
    } finally {
      op.socket.running.delete(op.id);
      controller.abort();
    }
  }

  let closing: Promise<void> | undefined;
  return {
    upgrade(request, socket, head) {
      if (new URL(request.url ?? '/', 'http://x').pathname !== GRAPHQL_PATH) return false;
      const origin = request.headers.origin;
      if (origin && !sameOrigin(origin, request) && !allowed.has(origin)) {
        socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
        return true;
      }
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
      return true;
    },
    close() {
      closing ??= Promise.resolve(server.dispose());
      return closing;
    },
  };
}

function sameOrigin(origin: string, request: IncomingMessage): boolean {
  return URL.canParse(origin) && new URL(origin).host === request.headers.host;
}

/** A result as the pipeline wrote it; what is not one (it never should be) is told as an error. */
function parsedResult(text: string): ExecutionResult {
  try {
    return JSON.parse(text) as ExecutionResult;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    return { errors: [new GraphQLError('The answer could not be read.')] };
  }
}

/** The `data` of each `next` event of an SSE body, as text, until `complete` or the end. */
async function* sseData(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (event === 'complete') return;
        if (event === 'next' && data.length) yield data.join('\n');
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
  }
}
