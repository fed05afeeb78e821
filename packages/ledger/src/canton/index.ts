/**
 * The `canton` ledger adapter: the ledger port over a Canton participant's JSON Ledger API v2,
 * the Token Standard registries and the validator's scan proxy (docs/decisions.md, "Canton
 * adapter"). The wire codec it reads and writes with is `./wire`. Its atomic swaps' flow runs over
 * any `SwapParticipant`, so the devnet ledger's interactive submission in process (the embedded
 * ledger's atomic swaps) shares it, refusing with the same Canton error bodies.
 */
export {
  type AtomicSwapExecution,
  type InteractiveAtomicSwapDeps,
  InteractiveAtomicSwaps,
  type SwapParticipant,
} from './atomic-swaps.js';
export { CantonRequestError, type RequestKind } from './errors.js';
export { openCantonLedger } from './ledger.js';
export type { CantonAuth, CantonLedger, CantonLedgerOptions, ExternalSigner } from './options.js';
export type { TransferFactoryWithChoiceContext } from './registry.js';
