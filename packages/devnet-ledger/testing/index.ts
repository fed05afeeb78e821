/**
 * What tests outside this package use of it: the wire proxy that checks every request and answer
 * against Canton's API documents, for a service's traffic to the devnet ledger's server.
 */
export {
  assertNoWireMismatches,
  startWireProxy,
  type WireProxy,
} from '../test/canton/support/wire-proxy.js';
