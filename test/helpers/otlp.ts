import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with its service's name. */
export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Exports that were not OTLP JSON (the wrong protocol): none expected. */
  rejected: number;
  /** Resolves once `found` holds of the spans received, or rejects after `timeoutMs`. */
  waitFor(found: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
const attributeValue = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attributesOf = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, attributeValue(a.value)]));

/**
 * A local OTLP/HTTP receiver for traces in JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), as a
 * collector would take them at `/v1/traces`: it decodes each export and keeps its spans.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const receiver = { rejected: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        if (req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) throw 0;
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                name: s.name,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                attributes: attributesOf(s.attributes),
              });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        receiver.rejected++;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get rejected() {
      return receiver.rejected;
    },
    async waitFor(found, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!found(spans)) {
        if (Date.now() > until)
          throw new Error(
            `spans not received within ${timeoutMs} ms; got:\n${spans.map((s) => `${s.service} ${s.traceId} ${s.name}`).join('\n')}`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
