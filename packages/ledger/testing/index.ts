/**
 * What tests outside this package use of it: the ledger-port conformance suite every adapter
 * passes, with its helpers (conformance.ts), and the two parts of the canton adapter that its
 * tests against the devnet ledger's server drive directly: a list read over a WebSocket channel,
 * and the active-contracts request it sends. Those tests live beside the devnet ledger's server,
 * which this package may not import.
 */
export { activeContractsRequest } from '../src/canton/filters.js';
export { webSocketList } from '../src/canton/ws-list.js';
export * from './allocation-conformance.js';
export * from './conformance.js';
