import { type LookupAddress, lookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Redirects followed (307 and 308 only: they keep the POST and its body), each checked again. */
const MAX_REDIRECTS = 3;
/** What is kept of an endpoint's answer, for the attempt's record. */
const MAX_ANSWER_BYTES = 4096;
const MAX_URL_LENGTH = 2048;

/** Why an address is refused, or a request could not be made: an attempt's `error`. */
export class OutboundRefusal extends Error {
  override name = 'OutboundRefusal';
}

export interface OutboundOptions {
  /** `host` or `host:port` reachable though they resolve to a private address (ASSETQL_WEBHOOKS). */
  allowedHosts: readonly string[];
  timeoutMs: number;
}

export interface Sent {
  status: number;
  /** Answered by an allow-listed host (inside): what it said is not for the group to read. */
  exempt: boolean;
  /** The first 4 kB of the answer, for the attempt's record. */
  body: string;
}

/**
 * A webhook URL's own checks, at creation and before each attempt: http or https, no
 * credentials in it, not too long. Refused with a reason a client may see.
 */
export function checkUrl(text: string): URL {
  if (text.length > MAX_URL_LENGTH)
    throw new OutboundRefusal(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  if (!URL.canParse(text)) throw new OutboundRefusal('not a URL');
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new OutboundRefusal('the URL must be http or https');
  if (url.username || url.password) throw new OutboundRefusal('the URL must not hold credentials');
  return url;
}

/** True when `address` is a public unicast address (not loopback, private, link-local, metadata…). */
export function isPublic(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  if (ip.range() !== 'unicast') return false;
  // IPv6: only global unicast (2000::/3), not site-local or local-use NAT64 prefixes ipaddr.js counts.
  return ip.kind() === 'ipv4' || (ip as ipaddr.IPv6).match(GLOBAL_UNICAST);
}

const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

function allowed(url: URL, options: OutboundOptions): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return options.allowedHosts.some((h) => {
    const a = h.toLowerCase();
    return a === host || a === `${host}:${port}`;
  });
}

/**
 * A DNS lookup that refuses any name resolving to an address that is not public: the check is
 * made on the addresses the connection then uses (no second lookup an attacker's DNS could answer
 * differently).
 */
function guardedLookup(hostname: string, options: object, callback: (...args: unknown[]) => void): void {
  lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(new OutboundRefusal(`${hostname} is not an address webhooks may reach`));
    const refused = addresses.find((a) => !isPublic(a.address));
    if (refused || addresses.length === 0)
      return callback(new OutboundRefusal(`${hostname} is not an address webhooks may reach`));
    const all = (options as { all?: boolean }).all;
    if (all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/**
 * POSTs `body` to `url` as a webhook is sent: within `timeoutMs` in all (connecting, every
 * redirect, and the first 4 kB of the answer); to a private, loopback, link-local or metadata
 * address only when its host is allow-listed, checked on the address actually connected to and
 * again at every redirect. Resolves with the status; rejects with {@link OutboundRefusal} when
 * no answer could be had.
 */
export async function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: OutboundOptions,
): Promise<Sent> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  let target = url;
  for (let hop = 0; ; hop++) {
    checkUrl(target.href);
    const exempt = allowed(target, options);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!exempt && isIP(host) && !isPublic(host))
      throw new OutboundRefusal(`${host} is not an address webhooks may reach`);
    const response = await once(target, body, headers, exempt, deadline);
    const location = response.headers.location;
    if ((response.statusCode === 307 || response.statusCode === 308) && location) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) throw new OutboundRefusal(`more than ${MAX_REDIRECTS} redirects`);
      target = new URL(location, target);
      continue;
    }
    return { status: response.statusCode ?? 0, body: await firstBytes(response, deadline), exempt };
  }
}

function once(
  url: URL,
  body: string,
  headers: Record<string, string>,
  exempt: boolean,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        signal,
        ...(exempt ? {} : { lookup: guardedLookup as never }),
      },
      resolve,
    );
    // What the group reads of a failure says no more than this: no error text of the network's.
    request.on('error', (e) =>
      reject(
        e instanceof OutboundRefusal
          ? e
          : new OutboundRefusal(signal.aborted ? 'no answer in time' : 'could not connect'),
      ),
    );
    request.end(body);
  });
}

async function firstBytes(response: IncomingMessage, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      if (signal.aborted) break;
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= MAX_ANSWER_BYTES) break;
    }
  } catch (e) {
    // An answer cut short: what came is enough for the record.
    if (!(e instanceof Error)) throw e;
  } finally {
    response.destroy();
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}
