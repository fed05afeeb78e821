/**
 * Rules both ledger adapters hold to, beside the port they implement: the Token Standard's limits
 * on a transfer's metadata, checked before anything is submitted, and the size of a typical
 * transfer, which `trafficParameters().transferBytes` reports whichever ledger answers.
 */
import { LedgerError, META_CHARS_MAX, META_ENTRIES_MAX, type Meta } from './port.js';

/**
 * `trafficParameters().transferBytes`: the traffic of one token-standard transfer with a short
 * reason, the figure the network fee is estimated with (docs/spec/amounts-and-fees.md#network-fee).
 */
export const TYPICAL_TRANSFER_BYTES = 20_000;

/** Refuses metadata beyond the Token Standard's limits with `metadata_limit_exceeded`. */
export function checkMeta(meta: Meta): void {
  const entries = Object.entries(meta);
  const chars = entries.reduce((total, [key, value]) => total + key.length + value.length, 0);
  if (entries.length > META_ENTRIES_MAX || chars > META_CHARS_MAX) {
    throw new LedgerError(
      'metadata_limit_exceeded',
      `metadata has ${entries.length} entries and ${chars} characters; at most ${META_ENTRIES_MAX} and ${META_CHARS_MAX}`,
    );
  }
}
