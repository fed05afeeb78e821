/**
 * The Canton wire codec this server renders with (the ledger package's `canton/wire`), in one
 * place, plus the template ids of the devnet's configuration contracts.
 */
import {
  DEVNET_ALLOCATION_TEMPLATE_ID,
  DEVNET_HOLDING_TEMPLATE_ID,
  DEVNET_MINING_ROUND_TEMPLATE_ID,
  DEVNET_PACKAGE_ID,
  DEVNET_PREAPPROVAL_TEMPLATE_ID,
  DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
  DEVNET_TRANSFER_INSTRUCTION_TEMPLATE_ID,
} from '@poolparty/ledger/canton/wire';

export {
  ALLOCATION_CANCEL_CHOICE,
  ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  ALLOCATION_FACTORY_ALLOCATE_CHOICE,
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
  ALLOCATION_WITHDRAW_CHOICE,
  type ArchivedEvent,
  allocationParties,
  type CreatedEvent,
  damlDecimal,
  type Event,
  type ExercisedEvent,
  encodeAllocationCreated,
  encodeCheckpoint,
  encodeHoldingCreated,
  encodeTransaction,
  encodeTransactionItem,
  encodeTransferInstructionCreated,
  HOLDING_INTERFACE_ID,
  type JsGetUpdatesResponse,
  type JsTransaction,
  parseDamlDecimal,
  parseDamlTime,
  preapprovalContractId,
  projectTransaction,
  qualifiedName,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_FACTORY_TRANSFER_CHOICE,
  TRANSFER_INSTRUCTION_CHOICES,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  transferFactoryContractId,
} from '@poolparty/ledger/canton/wire';

export const TEMPLATE_IDS = {
  holding: DEVNET_HOLDING_TEMPLATE_ID,
  transferInstruction: DEVNET_TRANSFER_INSTRUCTION_TEMPLATE_ID,
  allocation: DEVNET_ALLOCATION_TEMPLATE_ID,
  transferFactory: DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
  transferPreapproval: DEVNET_PREAPPROVAL_TEMPLATE_ID,
  openMiningRound: DEVNET_MINING_ROUND_TEMPLATE_ID,
  /** Only the scan proxy hands this one out, so the codec has no id for it. */
  amuletRules: `${DEVNET_PACKAGE_ID}:PoolParty.Devnet.Rounds:AmuletRules`,
} as const;
