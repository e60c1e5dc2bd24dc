import { connect } from 'node:net';

/**
 * A client of `serverUrl` over a raw socket, for tests of clients that go away: each call
 * POSTs `body` to `/api/graphql` with `headers` and resolves with all it received, either after
 * `leaveAfterMs` (the socket destroyed then, answered or not) or, with null, once the received
 * text includes `until` (the answer's end).
 */
export function rawClient(
  serverUrl: string,
  body: string,
  headers: Record<string, string>,
  until: string,
): (leaveAfterMs: number | null) => Promise<string> {
  const raw = requestHead('/api/graphql', headers, body) + body;
  return (leaveAfterMs) => exchange(serverUrl, raw, leaveAfterMs, until);
}

/**
 * A client that declares the whole of `body` at `path` of `serverUrl`, sends only the first
 * `sent` of `body` and goes away (the socket destroyed after `leaveAfterMs`); resolves with what
 * it received, if anything.
 */
export function partialBodyClient(
  serverUrl: string,
  path: string,
  body: string,
  headers: Record<string, string>,
  sent: number,
  leaveAfterMs: number,
): Promise<string> {
  return exchange(serverUrl, requestHead(path, headers, body) + body.slice(0, sent), leaveAfterMs);
}

/** A JSON POST's request line and headers, its length `body`'s. */
function requestHead(path: string, headers: Record<string, string>, body: string): string {
  return (
    `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n`
  );
}

/**
 * Writes `raw` to `serverUrl` and resolves with all it received once the socket closes: destroyed
 * after `leaveAfterMs`, or ended (with null) once the received text includes `until`.
 */
function exchange(
  serverUrl: string,
  raw: string,
  leaveAfterMs: number | null,
  until?: string,
): Promise<string> {
  const { port } = new URL(serverUrl);
  return new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(raw));
    let received = '';
    socket.on('data', (b) => {
      received += b.toString();
      if (leaveAfterMs === null && until !== undefined && received.includes(until)) socket.end();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
    if (leaveAfterMs !== null) setTimeout(() => socket.destroy(), leaveAfterMs);
  });
}
