/**
 * A webhook receiver (docs/events.md#webhooks): verifies each delivery's Standard Webhooks
 * signature with the `standardwebhooks` package before it believes a byte of it, answers 204 at
 * once, and handles each delivery once, by its `webhook-id` (an attempt may come again).
 *
 *   ASSETQL_WEBHOOK_SECRET=whsec_… PORT=8080 node examples/events/webhook-receiver.ts
 *
 * prints each change as a JSON line. A forged or altered request is answered 401.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Delivered {
  type: string;
  timestamp: string;
  data: {
    cursor: string;
    kind: string;
    entity: string;
    entityId: string | null;
    version: number;
    truncated?: boolean;
  };
}

/** A server that verifies deliveries with `secret` and hands each new one to `onDelivery`. */
export function webhookReceiver(secret: string, onDelivery: (d: Delivered, id: string) => void): Server {
  const verifier = new Webhook(secret);
  // Ids already handled (a real receiver keeps them where its work is stored, for a few days).
  const seen = new Set<string>();
  return createServer(async (request, response) => {
    const body = await read(request, 1024 * 1024);
    let delivered: Delivered;
    try {
      delivered = verifier.verify(body ?? '', request.headers as Record<string, string>) as Delivered;
    } catch {
      response.writeHead(401).end();
      return;
    }
    const id = request.headers['webhook-id'] as string;
    response.writeHead(204).end();
    if (seen.has(id)) return;
    seen.add(id);
    onDelivery(delivered, id);
  });
}

async function read(request: IncomingMessage, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

if (import.meta.main) {
  const secret = process.env.ASSETQL_WEBHOOK_SECRET;
  if (!secret) {
    process.stderr.write('set ASSETQL_WEBHOOK_SECRET to the secret createWebhook showed\n');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 8080);
  webhookReceiver(secret, (d) => process.stdout.write(`${JSON.stringify(d)}\n`)).listen(port, () =>
    process.stderr.write(`receiving webhooks on port ${port}\n`),
  );
}
