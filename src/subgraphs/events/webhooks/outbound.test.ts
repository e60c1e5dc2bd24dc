import { describe, expect, it } from 'vitest';
import { checkUrl, isPublic, OutboundRefusal } from './outbound.ts';

describe('the addresses webhooks may reach', () => {
  it('are public unicast ones only', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2001:4860:4860::8888'])
      expect(isPublic(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'fec0::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b:1::a00:1',
      'ff02::1',
      'not an address',
    ])
      expect(isPublic(a), a).toBe(false);
  });

  it('come from http or https URLs without credentials', () => {
    expect(checkUrl('https://hooks.example.com/a?b=c').hostname).toBe('hooks.example.com');
    for (const u of [
      'ftp://example.com/',
      'https://user:pw@example.com/',
      'nope',
      `https://example.com/${'a'.repeat(2050)}`,
    ])
      expect(() => checkUrl(u), u).toThrow(OutboundRefusal);
  });
});
