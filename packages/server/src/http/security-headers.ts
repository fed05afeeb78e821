/**
 * Security headers on every response: the API's JSON, the `/docs` pages, and the error answers
 * written before routing or straight onto the socket.
 *
 * The values come from helmet (the header set it maintains for Node servers), computed once at
 * start-up: none of them depends on the request, so there is nothing to build per response.
 * `Strict-Transport-Security` is the exception: it is added only when the request arrived over
 * TLS, directly or as a TLS-terminating proxy tells through `X-Forwarded-Proto: https`. That
 * header is believed from any peer because a forged one cannot do harm: browsers ignore HSTS
 * received over plain HTTP (RFC 6797 §8.1), so the header only counts where TLS really is.
 *
 * - API responses carry a policy that allows nothing (`default-src 'none'`): a JSON document
 *   opened in a browser must not run or load anything, nor be framed.
 * - The `/docs` pages (swagger-ui) load their scripts, styles and images from this origin only,
 *   and fetch the OpenAPI document from it; swagger-ui's style attributes and its `data:` icons
 *   need `'unsafe-inline'` styles and `data:` images, no inline script is allowed.
 * - `Referrer-Policy: no-referrer` everywhere: the pages link nowhere a referrer would help.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** What every response carries besides its content security policy. */
const COMMON: HelmetOptions = {
  // Added per request, only over TLS (see above).
  strictTransportSecurity: false,
  referrerPolicy: { policy: 'no-referrer' },
  xFrameOptions: { action: 'deny' },
};

/** The directives of the API's policy: a JSON document loads and runs nothing. */
const API_DIRECTIVES = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The directives of a page the service serves: this origin only, no inline code, no framing. */
export const PAGE_DIRECTIVES = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'font-src': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
};

/**
 * The directives of the swagger-ui pages under `/docs`: a page's, with the data: fonts and the
 * inline styles swagger-ui brings, and calls to this origin's API.
 */
const DOCS_DIRECTIVES = {
  ...PAGE_DIRECTIVES,
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'style-src': ["'self'", "'unsafe-inline'"],
};

/** The headers helmet would set for `options`, captured once instead of set per response. */
function headersOf(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const sink = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  };
  helmet(options)({} as IncomingMessage, sink as unknown as ServerResponse, () => {});
  return Object.freeze(headers);
}

/** Every API response's security headers, with the API's content security policy. */
export const API_SECURITY_HEADERS = headersOf({
  ...COMMON,
  contentSecurityPolicy: { useDefaults: false, directives: API_DIRECTIVES },
});

/** The content security policy of the `/docs` pages. */
export const DOCS_CONTENT_SECURITY_POLICY =
  headersOf({
    contentSecurityPolicy: { useDefaults: false, directives: DOCS_DIRECTIVES },
  })['Content-Security-Policy'] ?? '';

/** Two years, as the HSTS preload list asks; subdomains are the operator's business, not ours. */
export const STRICT_TRANSPORT_SECURITY =
  headersOf({ strictTransportSecurity: { maxAge: 63_072_000, includeSubDomains: false } })[
    'Strict-Transport-Security'
  ] ?? '';

/** Whether the request reached us over TLS: on a TLS socket, or so says the TLS-ending proxy. */
export function arrivedOverTls(raw: IncomingMessage): boolean {
  if ((raw.socket as { encrypted?: boolean } | undefined)?.encrypted === true) return true;
  const forwarded = raw.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0];
  return first?.trim().toLowerCase() === 'https';
}

/**
 * The same headers with lower-case names, as Fastify keeps (and sends) them: a reply lower-cases
 * every name it is given, and a name that is lower case already costs it no new string per
 * response. HTTP header names are case-insensitive; the bytes sent are the same either way.
 */
const API_SECURITY_HEADER_LIST: readonly (readonly [string, string])[] = Object.entries(
  API_SECURITY_HEADERS,
).map(([name, value]) => [name.toLowerCase(), value] as const);

/** Sets the security headers on a reply (or anything with `header(name, value)`). */
export function applySecurityHeaders(
  raw: IncomingMessage,
  reply: { header(name: string, value: string): unknown },
): void {
  for (const [name, value] of API_SECURITY_HEADER_LIST) reply.header(name, value);
  if (arrivedOverTls(raw)) reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
}
