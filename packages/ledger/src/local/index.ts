export { ReplayError } from './apply.js';
export { MINING_ROUND_MS } from './clock.js';
export type {
  CreatedParty,
  CreatePartyRequest,
  DeliveryFaults,
  InjectedFaults,
  LedgerFaults,
  LocalLedger,
  LocalLedgerControl,
  LocalLedgerOptions,
  LocalTransferCommand,
  PreapprovalCommand,
  SelfTransfer,
  TransferBatchCommand,
  UpdateHoldingChanges,
} from './control.js';
export { seededRandom } from './faults.js';
export { INPUT_HOLDINGS_MAX } from './input-holdings.js';
export {
  DEFAULT_AMULET_PRICE_USD,
  DEFAULT_DEDUPLICATION_PERIOD_MS,
  DEFAULT_OFFER_LIFETIME_MS,
  EXTRA_TRAFFIC_PRICE_USD_PER_MB,
  openLocalLedger,
} from './ledger.js';
export { JOURNAL_FILE, JournalError } from './persistence.js';
export {
  DEVNET_POOL_FEE_BPS,
  type DevnetBalance,
  type DevnetInstruments,
  type DevnetKeyParty,
  type DevnetPool,
  type DevnetSeed,
  DevnetSeedError,
  type DevnetSeedOptions,
  type DevnetSeedStep,
  type DevnetUser,
  isDevnetSeeded,
  seedDevnet,
} from './seed.js';
export { BATCH_LEGS_MAX } from './transfer-batch.js';
