// Reading a text/event-stream as it arrives (the HTML standard's "event stream interpretation"):
// the console opens its subscription with `fetch` rather than `EventSource`, which can only GET
// and would reconnect on its own schedule, so it parses the stream itself.

export interface SseEvent {
  /** The event's `id:` (a change's cursor), if it had one. */
  id: string | undefined;
  /** `next`, `complete`, or `message` when the event named none. */
  event: string;
  /** The `data:` lines joined by newlines. */
  data: string;
}

/**
 * The longest event read, in characters (1 MiB): a change event is a few kilobytes, and a stream
 * that never ends its event would otherwise be held in memory whole.
 */
export const MAX_EVENT_LENGTH = 1024 * 1024;

/** An event longer than the parser takes: the stream is to be dropped. */
export class SseEventTooLarge extends Error {
  override name = 'SseEventTooLarge';
}

/** Takes the stream's text in chunks of any size and gives back the events each chunk completes. */
export class SseParser {
  #buffer = '';
  readonly #maxEventLength: number;

  constructor(maxEventLength = MAX_EVENT_LENGTH) {
    this.#maxEventLength = maxEventLength;
  }

  /** The events `text` completes; throws {@link SseEventTooLarge} past an event's bound. */
  push(text: string): SseEvent[] {
    // Line ends may be CRLF, LF or CR; a chunk may end between the CR and the LF of a CRLF.
    this.#buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const end = blockEnd(this.#buffer);
      if (!end) break;
      if (end.at > this.#maxEventLength) this.#tooLarge();
      const block = this.#buffer.slice(0, end.at);
      this.#buffer = this.#buffer.slice(end.at + end.length);
      const event = parseBlock(block);
      if (event) events.push(event);
    }
    // What is left is one event not yet ended, and at most three characters of its end (CR LF CR).
    if (this.#buffer.length > this.#maxEventLength + 3) this.#tooLarge();
    return events;
  }

  #tooLarge(): never {
    this.#buffer = '';
    throw new SseEventTooLarge(`an event of the stream is longer than ${this.#maxEventLength} characters`);
  }
}

/** Where the first blank line is: the end of an event. */
function blockEnd(buffer: string): { at: number; length: number } | null {
  const match = /\r\n\r\n|\n\n|\r\r|\r\n\n|\n\r\n/.exec(buffer);
  if (!match) return null;
  // A lone CR at the very end may be the first half of a CRLF: wait for the next chunk.
  if (match[0] === '\r\r' && match.index + 2 === buffer.length) return null;
  return { at: match.index, length: match[0].length };
}

function parseBlock(block: string): SseEvent | null {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  // A block of comments only (the server's heartbeat) is no event.
  if (data.length === 0 && id === undefined && event === 'message') return null;
  return { id, event, data: data.join('\n') };
}
