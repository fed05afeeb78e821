export {
  ALLOCATION_REF_CHARS_MAX,
  allocationControllers,
  allocationLock,
  planAllocation,
  SETTLEMENT_LEGS_MAX,
} from './allocation-rules.js';
export * from './canton/index.js';
export { verifyEd25519Signature } from './ed25519.js';
export * from './local/index.js';
export * from './port.js';
export { TYPICAL_TRANSFER_BYTES } from './rules.js';
export { withAtomicSwapPort } from './with-atomic-swaps.js';
