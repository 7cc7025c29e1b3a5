import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { invalidField } from '../errors/app-error.js';

/**
 * The outbound-URL guard (contract §7.6): URLs the service calls on a tenant's behalf (LiteLLM
 * proxy, generic webhook) must be http(s), carry no credentials, resolve, and reach no loopback,
 * link-local, unspecified, multicast or broadcast address; private ranges only while
 * APP_SPEND_OUTBOUND_ALLOW_PRIVATE is on; loopback only with APP_SPEND_OUTBOUND_ALLOW_LOOPBACK (tests,
 * local development). Checked on save (`checkOutboundUrl`) and again on every connection
 * (`guardedDispatcher`), because a host that resolved to a public address when saved may resolve to
 * a forbidden one later (DNS rebinding).
 */
export type OutboundPolicy = { allowPrivate: boolean; allowLoopback: boolean };

export type AddressKind = 'public' | 'private' | 'loopback' | 'link-local' | 'unspecified' | 'multicast' | 'broadcast' | 'invalid';

/** Resolves a host name to every address it has (injectable: tests never reach real DNS). */
export type Resolver = (host: string) => Promise<string[]>;

/** The error code vendors/http.ts treats as final (never retried). */
export const OUTBOUND_URL_REFUSED = 'OUTBOUND_URL_REFUSED';

/** Parses a dotted IPv4 address into its 4 octets, or null. */
export function parseIpv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const octets = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return octets.every((o) => o >= 0 && o <= 255) ? octets : null;
}

/** Parses an IPv6 address (zone id dropped, embedded dotted IPv4 allowed) into 16 bytes, or null. */
export function parseIpv6(text: string): number[] | null {
  let s = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '').toLowerCase();
  if (s.includes('.')) {
    // An embedded dotted IPv4 (::ffff:1.2.3.4) becomes its two hex groups.
    const lastColon = s.lastIndexOf(':');
    const v4 = parseIpv4(s.slice(lastColon + 1));
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (halves.length === 1 ? head.length !== 8 : head.length + rest.length > 7) return null;
  const all = [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes;
}

/** What kind of address an IP literal is (IPv4, IPv6, IPv4-mapped and NAT64 IPv6 by their IPv4). */
export function classifyAddress(address: string): AddressKind {
  const v4 = parseIpv4(address);
  if (v4) return classifyIpv4(v4);
  const v6 = parseIpv6(address);
  return v6 ? classifyIpv6(v6) : 'invalid';
}

function classifyIpv4([a, b, c, d]: number[]): AddressKind {
  if (a === 0) return 'unspecified'; // 0.0.0.0/8 "this network"
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b! >= 64 && b! <= 127) return 'private'; // carrier-grade NAT, 100.64.0.0/10
  if (a! >= 224 && a! <= 239) return 'multicast';
  if (a === 255 && b === 255 && c === 255 && d === 255) return 'broadcast';
  return 'public';
}

function classifyIpv6(bytes: number[]): AddressKind {
  const zeroUpTo = (n: number) => bytes.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return 'unspecified';
  if (zeroUpTo(15) && bytes[15] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d and NAT64 64:ff9b::a.b.c.d reach the IPv4 address.
  if (zeroUpTo(10) && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(bytes.slice(12));
  if (zeroUpTo(12)) return classifyIpv4(bytes.slice(12));
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes.slice(4, 12).every((x) => x === 0)) return classifyIpv4(bytes.slice(12));
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) return 'link-local'; // fe80::/10
  if ((bytes[0]! & 0xfe) === 0xfc) return 'private'; // unique local fc00::/7
  if (bytes[0] === 0xff) return 'multicast';
  return 'public';
}

/** Why the policy forbids connecting to `address`, or null when it may be reached. */
export function refusalOf(address: string, policy: OutboundPolicy): string | null {
  const kind = classifyAddress(address);
  switch (kind) {
    case 'public':
      return null;
    case 'private':
      return policy.allowPrivate ? null : `${address} is a private address (APP_SPEND_OUTBOUND_ALLOW_PRIVATE=false)`;
    case 'loopback':
      return policy.allowLoopback ? null : `${address} is a loopback address`;
    case 'invalid':
      return `${address} is not an IP address`;
    default:
      return `${address} is a ${kind} address`;
  }
}

/** The system resolver: every address of the host, as the OS resolves it. */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))));

/**
 * Why `raw` may not be saved as an outbound URL, or null when it may. Every address the host
 * resolves to must be allowed (a name with one public and one loopback address is refused).
 */
export async function outboundUrlRefusal(raw: string, policy: OutboundPolicy, resolve: Resolver = systemResolver): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol.replace(/:$/, '')} is not allowed (http or https only)`;
  if (url.username || url.password) return 'credentials in the URL are not allowed';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return 'the URL has no host';
  if (isIP(host)) return refusalOf(host, policy);
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return `host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  for (const address of addresses) {
    const refusal = refusalOf(address, policy);
    if (refusal) return `host ${host} resolves to ${refusal}`;
  }
  return null;
}

/** An Error that vendors/http.ts recognises as the guard's final refusal. */
export function outboundRefusedError(host: string, reason: string): Error {
  return Object.assign(new Error(`Refused to connect to ${host}: ${reason}`), { code: OUTBOUND_URL_REFUSED });
}

type LookupFn = (hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => void;

/**
 * A DNS lookup (net.connect's `lookup` option) that refuses forbidden addresses: the check at
 * connection time, on the address actually connected to. `resolveAll` is injectable for tests.
 */
export function guardedLookup(policy: OutboundPolicy, resolveAll: LookupFn = dnsLookup as unknown as LookupFn): LookupFn {
  return (hostname, options, callback) => {
    resolveAll(hostname, { ...options, all: true }, (err, result) => {
      if (err) return callback(err, []);
      const addresses = result as LookupAddress[];
      for (const a of addresses) {
        const refusal = refusalOf(a.address, policy);
        if (refusal) return callback(outboundRefusedError(hostname, refusal) as NodeJS.ErrnoException, []);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`host ${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * An undici dispatcher whose every new connection passes the guard: host names through
 * `guardedLookup`, IP literals (which never reach a lookup) checked directly. Passed to fetch as
 * `dispatcher` (VendorClientOptions.dispatcher, webhook delivery).
 */
export function guardedDispatcher(policy: OutboundPolicy, resolveAll?: LookupFn): Agent {
  const connector = buildConnector({ lookup: guardedLookup(policy, resolveAll) } as buildConnector.BuildOptions);
  return new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) {
        const refusal = refusalOf(host, policy);
        if (refusal) return callback(outboundRefusedError(host, refusal), null);
      }
      return connector(options, callback);
    },
  });
}

/** The install's policy (APP_SPEND_OUTBOUND_ALLOW_PRIVATE, APP_SPEND_OUTBOUND_ALLOW_LOOPBACK). */
export function outboundPolicyOf(config: { spend: { outboundAllowPrivate: boolean; outboundAllowLoopback: boolean } }): OutboundPolicy {
  return { allowPrivate: config.spend.outboundAllowPrivate, allowLoopback: config.spend.outboundAllowLoopback };
}

/**
 * Refuses `raw` as the outbound URL of `field` with 400 validation_failed (contract §7.6), the
 * reason named. Resolver injectable for tests.
 */
export async function assertOutboundUrl(field: string, raw: string, policy: OutboundPolicy, resolve: Resolver = systemResolver): Promise<void> {
  const refusal = await outboundUrlRefusal(raw, policy, resolve);
  if (refusal) throw invalidField(field, `outbound URL refused: ${refusal}`);
}

/** The guard's refusal message when `err` (or a cause up to four deep) is a connect-time refusal, else null. */
export function guardRefusalOf(err: unknown): string | null {
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i += 1) {
    if ((e as { code?: string }).code === OUTBOUND_URL_REFUSED) return (e as Error).message;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** One guarded dispatcher per policy, kept for the process (its pooled connections are reused). */
const dispatchers = new Map<string, Agent>();

export function sharedGuardedDispatcher(policy: OutboundPolicy): Agent {
  const key = `${policy.allowPrivate}:${policy.allowLoopback}`;
  let dispatcher = dispatchers.get(key);
  if (!dispatcher) dispatchers.set(key, (dispatcher = guardedDispatcher(policy)));
  return dispatcher;
}
