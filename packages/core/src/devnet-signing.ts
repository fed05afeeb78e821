/**
 * What a party signs for a devnet call that acts for it (`X-Party-Signature`,
 * docs/spec/ledger.md#devnet-signatures), and how long that signature may be used.
 *
 * The signed bytes are `METHOD + " " + path + "\n" + rawBody` (UTF-8):
 * - the method and path bind the signature to one operation on one resource, so a signed
 *   `{"partyId": …}` for one offer cannot accept or reject another;
 * - the path is the request target as sent, without the query string (no devnet call reads a
 *   query, and a proxy that appends one must not break signatures);
 * - the raw body carries `validUntil`, which bounds replay: it must not have passed on the ledger
 *   clock and may be at most `DEVNET_SIGNATURE_MAX_VALIDITY_MS` ahead of it. That window is far
 *   shorter than the ledger's 24 h command deduplication, so a transfer replayed with a fresh
 *   update id after the clock moves is refused as expired.
 *
 * The SDK keeps its own copy (it has no runtime dependencies); a test checks that both agree.
 */

/** How far ahead of the ledger clock `validUntil` may be: one hour. */
export const DEVNET_SIGNATURE_MAX_VALIDITY_MS = 60 * 60 * 1000;

/** The bytes the acting party signs for `method path` with `rawBody`. */
export function devnetSigningMessage(method: string, path: string, rawBody: string): Uint8Array {
  return new TextEncoder().encode(`${method.toUpperCase()} ${pathWithoutQuery(path)}\n${rawBody}`);
}

/** The path part of a request target: everything before `?`. */
function pathWithoutQuery(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

export type ValidUntilCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'expired' | 'too_far_ahead'; readonly detail: string };

/** Whether a signed request whose body says `validUntil` may still be used at ledger time `now`. */
export function checkValidUntil(validUntil: Date, now: Date): ValidUntilCheck {
  const at = now.toISOString();
  if (validUntil.getTime() <= now.getTime()) {
    return {
      ok: false,
      reason: 'expired',
      detail: `The signed request was valid until ${validUntil.toISOString()}; the ledger clock is at ${at}. Sign it again with a later validUntil.`,
    };
  }
  if (validUntil.getTime() - now.getTime() > DEVNET_SIGNATURE_MAX_VALIDITY_MS) {
    return {
      ok: false,
      reason: 'too_far_ahead',
      detail: `validUntil ${validUntil.toISOString()} is more than 1 h after the ledger clock (${at}).`,
    };
  }
  return { ok: true };
}
