/**
 * What a party signs for a devnet call that acts for it (`X-Party-Signature`, SPEC §9.3).
 *
 * The one place that says which bytes are signed: the service checks the signature against the
 * exact request body bytes, so the body is serialised once, signed, and sent as signed.
 */

/** A devnet request as it goes on the wire. */
export interface DevnetSignedRequest {
  /** `POST`. */
  readonly method: string;
  /** The path without origin, e.g. `/devnet/transfers`. */
  readonly path: string;
  /** The exact JSON text sent as the body. */
  readonly body: string;
}

/**
 * The bytes the acting party signs: today the UTF-8 bytes of the raw body, as the devnet ledger
 * checks them. `method` and `path` are part of the input so that a signature which also covers
 * them changes only this function.
 */
export function devnetSigningMessage(request: DevnetSignedRequest): Uint8Array {
  return new TextEncoder().encode(request.body);
}
