import { describe, expect, it } from 'vitest';
import { canonicalAddress, clientAddress } from './client-address.ts';

const forwardedFor = (value?: string) => new Headers(value === undefined ? {} : { 'x-forwarded-for': value });

describe('clientAddress', () => {
  it('with no trusted proxy, is the TCP peer and ignores X-Forwarded-For', () => {
    expect(clientAddress(forwardedFor('203.0.113.9'), '198.51.100.1', 0)).toBe('198.51.100.1');
    expect(clientAddress(forwardedFor(), '::ffff:198.51.100.1', 0)).toBe('198.51.100.1');
    expect(clientAddress(forwardedFor('203.0.113.9'), undefined, 0)).toBeNull();
  });

  it('behind one proxy, is the entry that proxy appended, whatever the client put before it', () => {
    const peer = '10.0.0.2'; // the proxy
    expect(clientAddress(forwardedFor('203.0.113.9'), peer, 1)).toBe('203.0.113.9');
    // The client sent "X-Forwarded-For: 6.6.6.6"; the proxy appended the address it saw.
    expect(clientAddress(forwardedFor('6.6.6.6, 203.0.113.9'), peer, 1)).toBe('203.0.113.9');
    expect(clientAddress(forwardedFor('6.6.6.6, 7.7.7.7,8.8.8.8, 203.0.113.9'), peer, 1)).toBe('203.0.113.9');
    // Two header lines are one list, in order.
    const twoLines = new Headers();
    twoLines.append('x-forwarded-for', '6.6.6.6');
    twoLines.append('x-forwarded-for', '203.0.113.9');
    expect(clientAddress(twoLines, peer, 1)).toBe('203.0.113.9');
  });

  it('behind two proxies, is the entry the outer one appended', () => {
    // client 203.0.113.9 → CDN (appends the client) → load balancer 10.0.0.2 (appends the CDN) → us
    expect(clientAddress(forwardedFor('6.6.6.6, 203.0.113.9, 192.0.2.50'), '10.0.0.2', 2)).toBe(
      '203.0.113.9',
    );
    expect(clientAddress(forwardedFor('6.6.6.6, 203.0.113.9, 192.0.2.50'), '10.0.0.2', 1)).toBe('192.0.2.50');
  });

  it('ends a chain shorter than the trusted hops at its leftmost entry, and a missing header at the peer', () => {
    expect(clientAddress(forwardedFor('203.0.113.9'), '10.0.0.2', 3)).toBe('203.0.113.9');
    expect(clientAddress(forwardedFor(), '10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddress(forwardedFor(''), '10.0.0.2', 1)).toBe('10.0.0.2');
  });

  it('stops at an entry that is not an address, at the hop that handed it over', () => {
    for (const bad of [
      'unknown',
      'garbage',
      '',
      ' ',
      '1.2.3',
      '999.1.1.1',
      '01.2.3.4',
      '<script>',
      '203.0.113.9 x',
    ]) {
      expect(clientAddress(forwardedFor(`6.6.6.6, ${bad}`), '10.0.0.2', 1), bad).toBe('10.0.0.2');
      expect(clientAddress(forwardedFor(`6.6.6.6, ${bad}, 192.0.2.50`), '10.0.0.2', 2), bad).toBe(
        '192.0.2.50',
      );
    }
    // A malformed entry left of the ones trusted changes nothing.
    expect(clientAddress(forwardedFor('garbage, 203.0.113.9'), '10.0.0.2', 1)).toBe('203.0.113.9');
  });

  it('gives IPv6 and IPv4-mapped addresses one written form', () => {
    expect(clientAddress(forwardedFor('2001:DB8:0:0:0:0:0:1'), '::1', 1)).toBe('2001:db8::1');
    expect(clientAddress(forwardedFor('[2001:db8::1]:443'), '::1', 1)).toBe('2001:db8::1');
    expect(clientAddress(forwardedFor('::ffff:203.0.113.9'), '::1', 1)).toBe('203.0.113.9');
    expect(clientAddress(forwardedFor('::FFFF:CB00:7109'), '::1', 1)).toBe('203.0.113.9');
    expect(clientAddress(forwardedFor('fe80::1%eth0'), '::1', 1)).toBe('fe80::1');
    expect(clientAddress(forwardedFor('203.0.113.9:51234'), '::1', 1)).toBe('203.0.113.9');
    expect(clientAddress(forwardedFor(), '::ffff:10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddress(forwardedFor(), '::1', 0)).toBe('::1');
  });
});

describe('canonicalAddress', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.1 ', '192.0.2.1'],
    ['192.0.2.1:80', '192.0.2.1'],
    ['::', '::'],
    ['2001:0db8:0000:0000:0000:ff00:0042:8329', '2001:db8::ff00:42:8329'],
    ['[::1]', '::1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
  ])('writes %j as %j', (text, address) => {
    expect(canonicalAddress(text)).toBe(address);
  });

  it.each(['', 'unknown', 'localhost', '192.0.2.1:99999', '[192.0.2.1]x', '::g', '1::2::3', '_hidden'])(
    'refuses %j',
    (text) => {
      expect(canonicalAddress(text)).toBeNull();
    },
  );
});
