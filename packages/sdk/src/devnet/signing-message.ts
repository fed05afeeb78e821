/**
 * What a party signs for a devnet call that acts for it (`X-Party-Signature`).
 *
 * The one place that says which bytes are signed: the UTF-8 bytes of
 * `METHOD + " " + path + "\n" + body`, where `path` is the request path without its query string
 * and `body` the exact JSON text sent (so it is serialised once, signed, and sent as signed). The
 * method and path bind a signature to one operation on one resource: a signed `{partyId,
 * validUntil}` for one offer does not accept or reject another. The body's `validUntil` bounds
 * replay. The service computes the same bytes (core devnet-signing.ts); a test checks both agree.
 */

/** A devnet request as it goes on the wire. */
export interface DevnetSignedRequest {
  /** `POST`. */
  readonly method: string;
  /** The path without origin, e.g. `/devnet/transfers`; a query string is not signed. */
  readonly path: string;
  /** The exact JSON text sent as the body. */
  readonly body: string;
}

/** The bytes the acting party signs for `request`. */
export function devnetSigningMessage(request: DevnetSignedRequest): Uint8Array {
  const query = request.path.indexOf('?');
  const path = query === -1 ? request.path : request.path.slice(0, query);
  return new TextEncoder().encode(`${request.method.toUpperCase()} ${path}\n${request.body}`);
}
