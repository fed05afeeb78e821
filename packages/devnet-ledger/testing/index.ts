/**
 * What tests outside this package use of it: a JSON call to the devnet ledger's server and the
 * check of an answer against a schema of Canton's API documents, for a devnet ledger run as a
 * command of its own; and the wire proxy that checks every request and answer against those
 * documents, for a service's traffic to the devnet ledger's server; the canton adapter's options
 * for a served devnet ledger; and a prepared transaction as a
 * wallet reads it before signing (`core-tx-visualizer`'s decoding of its legs, and its hash).
 */
export { hashPreparedTransaction } from '@canton-network/core-tx-visualizer';

export {
  assertNoWireMismatches,
  startWireProxy,
  type WireProxy,
} from '../test/canton/support/wire-proxy.js';
export { cantonOptionsFor } from '../test/support/canton-options.js';
export { call, expectSchema } from '../test/support/server.js';
export { type ShownLeg, shownLegs } from '../test/support/visualizer.js';
