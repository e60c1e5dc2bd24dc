import { createConnection, createServer, type Server } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that counts the statements clients run: simple-protocol
 * `Query` messages and extended-protocol `Execute` messages (what pg_stat_statements would
 * count as calls, BEGIN/COMMIT included). Used in a separate pass, so it adds no hop to the
 * timed runs.
 */
export class StatementCounter {
  count = 0;
  #server: Server | undefined;

  async start(target: URL): Promise<number> {
    const host = target.hostname;
    const port = Number(target.port || 5432);
    this.#server = createServer((client) => {
      const upstream = createConnection({ host, port });
      let buffered: Buffer = Buffer.alloc(0);
      let started = false;
      client.on('data', (chunk: Buffer) => {
        upstream.write(chunk);
        buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
        for (;;) {
          if (!started) {
            if (buffered.length < 8) break;
            const len = buffered.readInt32BE(0);
            if (buffered.length < len) break;
            const code = buffered.readInt32BE(4);
            // SSLRequest / GSSENCRequest come before the real startup message.
            if (code !== 80877103 && code !== 80877104) started = true;
            buffered = buffered.subarray(len);
            continue;
          }
          if (buffered.length < 5) break;
          const len = buffered.readInt32BE(1);
          if (buffered.length < 1 + len) break;
          const type = buffered[0];
          if (type === 0x51 /* Q */ || type === 0x45 /* E */) this.count++;
          buffered = buffered.subarray(1 + len);
        }
      });
      upstream.on('data', (chunk) => client.write(chunk));
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    return (this.#server.address() as { port: number }).port;
  }

  close(): Promise<void> {
    return new Promise((r) => (this.#server ? this.#server.close(() => r()) : r()));
  }
}
