/**
 * Where a webhook may be sent (docs/spec/webhooks.md#url-policy). HTTPS only; plain HTTP only to
 * a loopback host and only on devnet, where a developer's receiver runs beside the service. On
 * mainnet, an address that is not public (private, loopback, link-local, CGNAT, unique-local, …)
 * is refused unless the operator allows private destinations: otherwise anyone with a portal
 * session could make the service call into its own network. The service checks the URL when it
 * is registered and every address its host resolves to before each request, so a name that
 * later resolves inwards is refused too.
 *
 * IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`)
 * IPv6 addresses are classified as the IPv4 address they carry.
 */

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unique_local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'not_an_address';

type V4Range = readonly [base: number, bits: number, kind: AddressClass];

const V4_RANGES: readonly V4Range[] = [
  [ipv4(0, 0, 0, 0), 8, 'unspecified'],
  [ipv4(10, 0, 0, 0), 8, 'private'],
  [ipv4(100, 64, 0, 0), 10, 'cgnat'],
  [ipv4(127, 0, 0, 0), 8, 'loopback'],
  [ipv4(169, 254, 0, 0), 16, 'link_local'],
  [ipv4(172, 16, 0, 0), 12, 'private'],
  [ipv4(192, 0, 0, 0), 24, 'reserved'],
  [ipv4(192, 0, 2, 0), 24, 'reserved'],
  [ipv4(192, 88, 99, 0), 24, 'reserved'],
  [ipv4(192, 168, 0, 0), 16, 'private'],
  [ipv4(198, 18, 0, 0), 15, 'reserved'],
  [ipv4(198, 51, 100, 0), 24, 'reserved'],
  [ipv4(203, 0, 113, 0), 24, 'reserved'],
  [ipv4(224, 0, 0, 0), 4, 'multicast'],
  [ipv4(240, 0, 0, 0), 4, 'reserved'],
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

/** The 32-bit value of a dotted-quad IPv4 address (four decimals, no leading zeros); or null. */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

function classifyIpv4(value: number): AddressClass {
  for (const [base, bits, kind] of V4_RANGES) {
    const shift = 32 - bits;
    if (Math.floor(value / 2 ** shift) === Math.floor(base / 2 ** shift)) return kind;
  }
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail allowed), or null. */
export function parseIpv6(text: string): number[] | null {
  if (text.includes('%') || text.length > 45) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (half: string): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const parts = half.split(':');
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1 && part.includes('.')) {
        const v4 = parseIpv4(part);
        if (v4 === null) return null;
        out.push(Math.floor(v4 / 65_536), v4 % 65_536);
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
        out.push(Number.parseInt(part, 16));
      } else return null;
    }
    return out;
  };
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing < 1 ? null : [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function classifyIpv6(g: readonly number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const v4 = g6 * 65_536 + g7;
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  if (zeroTo(5) && g5 === 0xffff) return classifyIpv4(v4);
  if (zeroTo(6)) return classifyIpv4(v4);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyIpv4(v4);
  }
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved';
  return 'public';
}

/** What an IP address is (IPv4 dotted quad, or IPv6 with or without brackets). */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = parseIpv4(bare);
  if (v4 !== null) return classifyIpv4(v4);
  const v6 = parseIpv6(bare);
  return v6 === null ? 'not_an_address' : classifyIpv6(v6);
}

export interface DestinationPolicy {
  readonly mode: 'devnet' | 'mainnet';
  /** `POOLPARTY_WEBHOOK_ALLOW_PRIVATE`: addresses that are not public are allowed. */
  readonly allowPrivate: boolean;
}

/** A URL longer than this is refused: it is stored, listed and logged with every attempt. */
export const WEBHOOK_URL_CHARS_MAX = 2048;

export type UrlCheck =
  | { readonly ok: true; readonly url: string; readonly host: string }
  | {
      readonly ok: false;
      readonly code: 'webhook_url_invalid' | 'webhook_url_not_allowed';
      readonly reason: string;
    };

const LOCALHOST = /^(localhost|[a-z0-9-]+\.localhost)$/i;

/** Whether a URL's host names this machine: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  return LOCALHOST.test(host) || classifyAddress(host) === 'loopback';
}

/**
 * A URL as registered: absolute, `https:` (or `http:` to a loopback host on devnet), no user
 * name or password, no fragment; an IP-literal host must be allowed by `addressAllowed`.
 */
export function checkWebhookUrl(text: string, policy: DestinationPolicy): UrlCheck {
  const invalid = (reason: string): UrlCheck => ({
    ok: false,
    code: 'webhook_url_invalid',
    reason,
  });
  const refused = (reason: string): UrlCheck => ({
    ok: false,
    code: 'webhook_url_not_allowed',
    reason,
  });
  if (text.length > WEBHOOK_URL_CHARS_MAX)
    return invalid(`longer than ${WEBHOOK_URL_CHARS_MAX} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return invalid('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return invalid('not an http(s) URL');
  if (url.username !== '' || url.password !== '')
    return invalid('a user name or password in the URL');
  if (url.hash !== '') return invalid('a fragment (#…), which is never sent');
  const host = url.hostname;
  if (url.protocol === 'http:') {
    if (policy.mode !== 'devnet')
      return refused('plain http:// is refused on mainnet: use https://');
    if (!isLoopbackHost(host))
      return refused('plain http:// only to a loopback host (localhost, 127.0.0.1, ::1)');
  }
  if (classifyAddress(host) !== 'not_an_address' && !addressAllowed(host, policy)) {
    return refused(`${host} is a ${classifyAddress(host).replace('_', '-')} address`);
  }
  if (policy.mode === 'mainnet' && !policy.allowPrivate && LOCALHOST.test(host)) {
    return refused(`${host} names this machine`);
  }
  return { ok: true, url: url.href, host };
}

/**
 * Whether a request may go to `address`, one its host resolved to: on devnet always (a
 * developer's receiver runs on their own machine); on mainnet only a public address, unless the
 * operator allows private ones.
 */
export function addressAllowed(address: string, policy: DestinationPolicy): boolean {
  if (policy.mode === 'devnet' || policy.allowPrivate) return true;
  return classifyAddress(address) === 'public';
}
