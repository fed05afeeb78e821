/**
 * Deterministic traffic estimate of a local-ledger update. A Canton transaction pays for its
 * envelope, the signatures and confirmations of every involved participant, and the payloads of
 * the contracts it creates and archives. The estimate charges a fixed overhead per transaction,
 * a fixed overhead per event (each event stands for a handful of created/archived contracts:
 * holdings, change, instruction, locks) and two bytes per character of the event's JSON form
 * (contract payloads are larger than their JSON summary). Calibrated so that one token-standard
 * transfer with a short reason costs about 20 000 bytes, the figure the network fee is
 * estimated with (`TYPICAL_TRANSFER_BYTES`, rules.ts; docs/spec/amounts-and-fees.md#network-fee).
 */
import type { LedgerEvent } from '../port.js';

const TRANSACTION_OVERHEAD_BYTES = 11_000;
const EVENT_OVERHEAD_BYTES = 8_000;
const PAYLOAD_BYTES_PER_CHAR = 2;

export function trafficBytesOf(events: readonly LedgerEvent[]): number {
  let bytes = TRANSACTION_OVERHEAD_BYTES;
  for (const event of events) {
    bytes += EVENT_OVERHEAD_BYTES + PAYLOAD_BYTES_PER_CHAR * JSON.stringify(event).length;
  }
  return bytes;
}
