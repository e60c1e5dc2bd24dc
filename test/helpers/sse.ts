/**
 * A client of GraphQL over SSE (distinct connections mode), as tests read it: each event's `id`,
 * `event` and parsed `data`, in order, from a response's body as it arrives.
 */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  readonly #events: SseEvent[] = [];
  #ended = false;
  /** A read still under way when a wait for it timed out: the next wait takes it up. */
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  constructor(response: Response) {
    if (!response.body) throw new Error(`no body (status ${response.status})`);
    this.#reader = response.body.getReader();
  }

  /** The next event, waiting at most `timeoutMs`; undefined once the stream has ended. */
  async next(timeoutMs = 5_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#events.length === 0) {
      if (this.#ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE event within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      this.#pending ??= this.#reader.read();
      const read = await Promise.race([
        this.#pending,
        new Promise<'timeout'>((r) => {
          timer = setTimeout(() => r('timeout'), left);
        }),
      ]);
      clearTimeout(timer);
      if (read === 'timeout') continue;
      this.#pending = undefined;
      if (read.done) {
        this.#ended = true;
        continue;
      }
      this.#buffer += this.#decoder.decode(read.value, { stream: true });
      this.#parse();
    }
    return this.#events.shift();
  }

  /** The next `n` `next` events' data, in order. */
  async take(n: number, timeoutMs = 10_000): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    while (out.length < n) {
      const e = await this.next(timeoutMs);
      if (!e) throw new Error(`the stream ended after ${out.length} of ${n} events`);
      if (e.event === 'next') out.push(e);
    }
    return out;
  }

  /** Whether an event arrives within `ms` (one that does is kept for `next`). */
  async quiet(ms: number): Promise<boolean> {
    try {
      const e = await this.next(ms);
      if (e) this.unshift(e);
      return e === undefined;
    } catch {
      return true;
    }
  }

  /** Puts an event back, to be the next one read. */
  unshift(event: SseEvent): void {
    this.#events.unshift(event);
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end === -1) return;
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0 && id === undefined && event === 'message') continue;
      const text = data.join('\n');
      this.#events.push({ id, event, data: text ? JSON.parse(text) : null });
    }
  }
}
