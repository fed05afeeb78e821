/**
 * Which browser page a request comes from, and whether that page may make it. A browser names
 * the page's origin in `Origin` on every cross-site request and on its own `fetch` writes; a page
 * cannot forge it, so it tells the service's own pages (and configured ones) from any other site.
 * Used by the devnet control endpoints (devnet-cors.ts, devnet.ts) and by the developer portal's
 * writes with the session cookie (routes/portal.ts).
 */
import type { FastifyRequest } from 'fastify';
import { arrivedOverTls } from './security-headers.js';

/**
 * The origin a browser sends for pages of this service itself, e.g. `http://127.0.0.1:8787`.
 * Behind a TLS-ending proxy the socket is plain HTTP while the pages are `https:`; the proxy's
 * `X-Forwarded-Proto` says so. Believing it is safe here: a page cannot set that header on a
 * browser's request, and a client that can set it can set `Origin` too.
 */
export function ownOrigin(request: FastifyRequest): string {
  const scheme = arrivedOverTls(request.raw) ? 'https' : request.protocol;
  return `${scheme}://${request.host}`;
}

/** Whether `origin` is the service's own or one of the `allowed` ones (never `*`). */
export function originAllowed(origin: string, own: string, allowed: readonly string[]): boolean {
  return origin === own || allowed.includes(origin);
}

/**
 * The origin of the page that sent the request: `Origin`, or when a browser left it out, the
 * origin of `Referer` (`null` when that is no URL); undefined when the request names neither.
 */
export function requestOrigin(request: FastifyRequest): string | undefined {
  const { origin, referer } = request.headers;
  if (typeof origin === 'string') return origin;
  if (typeof referer !== 'string') return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}
