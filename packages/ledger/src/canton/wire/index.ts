/**
 * The Canton JSON wire codec: the port's updates, holdings and offers to and from the JSON Ledger
 * API's shapes (3.4.12). The `canton` adapter decodes what a participant sends; the devnet ledger
 * server encodes what it serves. Pure functions, no I/O.
 */
export { damlDecimal, damlTime, parseDamlDecimal, parseDamlTime } from './daml.js';
export {
  createdHoldings,
  type DecodedUpdatesItem,
  type DecodeOptions,
  decodeTransaction,
  decodeUpdatesItem,
  exercisedAllocationIds,
  exercisedOfferIds,
} from './decode.js';
export {
  type CreatedEventOptions,
  type EncodeTransactionInput,
  encodeCheckpoint,
  encodeHoldingCreated,
  encodeTransaction,
  encodeTransactionItem,
  encodeTransferInstructionCreated,
  projectTransaction,
  type SelfTransferDetail,
  type TransferInstructionCreatedOptions,
} from './encode.js';
export {
  allocationParties,
  allocationSpecification,
  encodeAllocationCreated,
} from './encode-allocations.js';
export { CantonWireError, type CantonWireErrorCode } from './errors.js';
export * from './ids.js';
export type * from './types.js';
export {
  allocationOfSpecification,
  decodeAllocation,
  decodeHolding,
  decodeTransferInstruction,
  instructionInputHoldingIds,
  interfaceViewValue,
} from './views.js';
