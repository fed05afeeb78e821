/**
 * What tests outside this package use of it: the ledger-port conformance suite every adapter
 * passes, with its helpers (conformance.ts).
 */
export * from './conformance.js';
