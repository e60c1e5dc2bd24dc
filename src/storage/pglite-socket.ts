/** Keeps an extended-protocol request of one socket connection whole on PGlite's one backend. */

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

interface QueryQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  db: {
    isInTransaction(): boolean;
    runExclusive<T>(fn: () => Promise<T>): Promise<T>;
    execProtocolRawStream(
      message: Uint8Array,
      options: { onRawData: (data: Uint8Array) => void },
    ): Promise<unknown>;
  };
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

// Frontend messages that end a request: Sync, simple Query, Terminate. A startup message has
// no type byte (its first byte is part of the length, 0).
const ENDS_REQUEST = new Set([0x53, 0x51, 0x58, 0x00]);

/**
 * PGlite has one backend, shared by every socket connection. pglite-socket keeps a connection
 * in charge while a transaction is open, but between the messages of one extended-protocol
 * request (Parse, Bind, Execute ... Sync) it lets others in, and their Parse replaces the
 * unnamed statement ("unnamed prepared statement does not exist"). This keeps one connection
 * in charge from its first message until its Sync as well.
 */
export function keepProtocolSequencesWhole(server: object): void {
  const q = (server as { queryQueue?: QueryQueue }).queryQueue;
  if (!q || typeof q.processQueue !== 'function')
    throw new Error('pglite-socket changed: no query queue to order');
  let midRequest: number | null = null;
  const clear = q.clearQueueForHandler.bind(q);
  q.clearQueueForHandler = (handlerId) => {
    if (midRequest === handlerId) midRequest = null;
    clear(handlerId);
  };
  q.processQueue = async function processQueue(this: QueryQueue) {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = midRequest ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        const index = owner === null ? 0 : this.queue.findIndex((m) => m.handlerId === owner);
        // The connection in charge has not sent its next message yet: wait for it.
        if (index === -1) break;
        const [item] = this.queue.splice(index, 1);
        if (!item) break;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (e) {
          midRequest = null;
          item.reject(e);
          continue;
        }
        midRequest = ENDS_REQUEST.has(item.message[0] ?? 0) ? null : item.handlerId;
        this.lastHandlerId = item.handlerId;
        item.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };
}
