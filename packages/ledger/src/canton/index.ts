/**
 * The `canton` ledger adapter: the ledger port over a Canton participant's JSON Ledger API v2,
 * the Token Standard registries and the validator's scan proxy (docs/decisions.md, "Canton
 * adapter"). The wire codec it reads and writes with is `./wire`.
 */
export { openCantonLedger } from './ledger.js';
export type { CantonAuth, CantonLedger, CantonLedgerOptions, ExternalSigner } from './options.js';
