import { describe, expect, it } from 'vitest';
import { SseEventTooLarge, SseParser } from './sse.ts';

describe('reading an event stream', () => {
  it('gives each event with its id, name and data, whatever the chunks', () => {
    const text =
      ':\n\nid: c1\nevent: next\ndata: {"a":1}\n\n: heartbeat\n\nid: c2\nevent: next\ndata: {"a":\ndata: 2}\n\nevent: complete\ndata:\n\n';
    const whole = new SseParser().push(text);
    expect(whole).toEqual([
      { id: 'c1', event: 'next', data: '{"a":1}' },
      { id: 'c2', event: 'next', data: '{"a":\n2}' },
      { id: undefined, event: 'complete', data: '' },
    ]);
    for (const size of [1, 2, 3, 7]) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
      expect(events).toEqual(whole);
    }
  });

  it('takes CRLF and CR line ends, and skips comment-only blocks', () => {
    const parser = new SseParser();
    expect(parser.push('id: x\r\nevent: next\r\ndata: 1\r\n\r')).toEqual([]);
    expect(parser.push('\n: only a comment\r\n\r\n')).toEqual([{ id: 'x', event: 'next', data: '1' }]);
    expect(parser.push('data: a\r\rdata:b\n\n')).toEqual([
      { id: undefined, event: 'message', data: 'a' },
      { id: undefined, event: 'message', data: 'b' },
    ]);
  });

  it('drops a stream whose event passes the bound, whole or in chunks, and takes one at it', () => {
    const at = `data: ${'x'.repeat(94)}`; // 100 characters
    expect(new SseParser(100).push(`${at}\n\n`)).toEqual([
      { id: undefined, event: 'message', data: 'x'.repeat(94) },
    ]);
    expect(() => new SseParser(100).push(`${at}x\n\n`)).toThrow(SseEventTooLarge);
    const chunked = new SseParser(100);
    expect(chunked.push(`${at}\r\n\r`)).toEqual([]);
    expect(chunked.push('\n')).toHaveLength(1);
    // An event that never ends is not held past the bound.
    const parser = new SseParser(100);
    expect(parser.push('data: ')).toEqual([]);
    expect(() => {
      for (let i = 0; i < 200; i++) parser.push('y');
    }).toThrow(/longer than 100 characters/);
  });
});
