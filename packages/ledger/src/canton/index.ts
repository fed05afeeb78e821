export { openCantonLedger } from './ledger.js';
export type { CantonAuth, CantonLedger, CantonLedgerOptions, ExternalSigner } from './options.js';
