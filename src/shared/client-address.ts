import { isIPv4, isIPv6 } from 'node:net';

/** The most proxies `ASSETQL_TRUST_PROXY` may name; no real chain is longer. */
export const MAX_TRUSTED_HOPS = 10;

/**
 * The address of the client a request comes from, for the per-address limits, devices and the
 * audit trail: one rule for every part of assetql that serves requests (the gateway now; a
 * subgraph behind another router too).
 *
 * `trustedHops` is how many proxies the operator runs in front of the service, with Express's
 * `trust proxy` number semantics (proxy-addr): each proxy appends the address it received the
 * request from to `X-Forwarded-For`, so the chain read from the right is
 * `remoteAddress`, then the last entry, the one before it, and so on; the client is the address
 * `trustedHops` steps along it. 0 is the TCP peer itself and ignores the header. Entries further
 * left were written by the client or by proxies nobody vouches for, so they are never used:
 * a client that sends `X-Forwarded-For: 6.6.6.6` only adds an entry to the left of the one the
 * trusted proxy appends.
 *
 * A chain shorter than `trustedHops` ends at its leftmost entry (as Express's does). An entry that
 * is not an IP address (`unknown`, garbage, an empty item) ends the walk at the address before
 * it: the hop that handed it over is the last one known. Addresses are given in one form, so
 * that one client cannot count as several: IPv6 compressed and lowercase, an IPv4-mapped
 * `::ffff:a.b.c.d` as `a.b.c.d`, without brackets, port or zone.
 *
 * @returns the address, or null when there is none (no TCP peer, as for in-process requests).
 */
export function clientAddress(
  headers: Headers,
  remoteAddress: string | null | undefined,
  trustedHops: number,
): string | null {
  let address = remoteAddress ? canonicalAddress(remoteAddress) : null;
  if (trustedHops <= 0) return address;
  const forwarded = headers.get('x-forwarded-for')?.split(',') ?? [];
  for (let hop = 1; hop <= Math.min(trustedHops, forwarded.length); hop++) {
    const entry = canonicalAddress(forwarded[forwarded.length - hop]!);
    if (entry === null) break;
    address = entry;
  }
  return address;
}

/**
 * `text` as an address in its one written form, or null when it is not an IP address. Takes the
 * forms proxies write: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]:443`,
 * `fe80::1%eth0`, `::ffff:1.2.3.4`.
 */
export function canonicalAddress(text: string): string | null {
  let value = text.trim();
  const withPort = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value) ?? /^([\d.]+):(\d{1,5})$/.exec(value);
  if (withPort) {
    if (Number(withPort[2] ?? 0) > 65535) return null;
    value = withPort[1]!;
  }
  value = value.replace(/%[\w.-]+$/, '');
  if (isIPv4(value)) return value;
  if (!isIPv6(value)) return null;
  // The URL parser writes IPv6 in its canonical form (RFC 5952): lowercase, zeros compressed.
  let v6: string;
  try {
    v6 = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch (e) {
    // Not an address the URL parser takes.
    if (e instanceof TypeError) return null;
    throw e;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (!mapped) return v6;
  const [high, low] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
