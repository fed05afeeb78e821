/**
 * Reading the `/devnet` requests that act for a party: a body's exact bytes are kept as they
 * arrive, since the party's signature covers them and not the JSON they parse to.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SignedRequest } from './operations.js';

const SIGNATURE_HEADER = 'x-party-signature';

/** Exact body bytes of each request whose scope keeps them. */
const rawBodies = new WeakMap<FastifyRequest, Uint8Array>();

/** Parses JSON bodies in `scope` as Fastify does, keeping each body's bytes beside it. */
export function keepRawJsonBodies(
  scope: Pick<FastifyInstance, 'getDefaultJsonParser' | 'addContentTypeParser'>,
): void {
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    rawBodies.set(request, new Uint8Array(bytes));
    parseJson(request, bytes.toString('utf8'), done);
  });
}

/** The request as its signature covers it: method, target, body text and signature header. */
export function signedRequestOf(request: FastifyRequest): SignedRequest {
  const signature = request.headers[SIGNATURE_HEADER];
  return {
    method: request.method,
    url: request.url,
    body: new TextDecoder().decode(rawBodies.get(request) ?? new Uint8Array()),
    signature: typeof signature === 'string' ? signature : undefined,
  };
}
