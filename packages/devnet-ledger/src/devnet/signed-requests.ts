/**
 * Reading the `/devnet` requests that act for a party: a body's exact bytes are kept as they
 * arrive, since the party's signature covers them and not the JSON they parse to.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SignedRequest } from './operations.js';

const SIGNATURE_HEADER = 'x-party-signature';

/**
 * The headers of the requests that act for a party, as their routes declare them. The signature
 * is optional here: a request without one reaches the operation, which refuses it as an invalid
 * signature, not as a malformed request.
 */
export const SignedHeadersSchema = {
  type: 'object',
  properties: {
    [SIGNATURE_HEADER]: {
      description:
        "Base64 Ed25519 signature, by the acting party's key, of `METHOD + ' ' + path + '\\n' + rawBody`.",
      type: 'string',
    },
  },
} as const;

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
