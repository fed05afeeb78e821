/**
 * Whether an API key still works (docs/spec/auth.md#developer-keys): a key works until the moment it
 * ends — its revocation, or the end of a rotation's grace period — judged on the service's clock.
 *
 * The portal lists each key with this verdict rather than leaving the page to compare the key's
 * end with the browser's clock: on a devnet whose ledger clock was moved forward, or a machine
 * whose clock is off, a key revoked a moment ago would otherwise show as still working.
 */

/** True while `endsAt` (null: the key has no end) is after `now`, both on the service's clock. */
export function apiKeyWorks(endsAt: Date | null, now: Date): boolean {
  return endsAt === null || endsAt.getTime() > now.getTime();
}
