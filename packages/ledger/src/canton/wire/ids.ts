/**
 * Identifiers of the Canton JSON Ledger API traffic: the Token Standard's interfaces and choices,
 * the metadata keys its implementations annotate transactions with, and the templates the devnet
 * ledger renders its own contracts as.
 *
 * Canton names a template or interface `<package>:<Module.Path>:<Entity>`, where `<package>` is
 * either a package id (what a participant returns) or `#<package-name>` (what a client may send).
 * Code that recognises a template therefore compares the qualified name only (`sameEntity`).
 */
import { createHash } from 'node:crypto';
import {
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
  AllocationInstructionV1,
  AllocationV1,
} from '@canton-network/core-token-standard';
import { REASON_META_KEY } from '../../port.js';

// --- Token Standard interfaces (splice-api-token-*-v1) ---------------------------------------

export const HOLDING_INTERFACE_ID =
  '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
export const TRANSFER_FACTORY_INTERFACE_ID =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
export const TRANSFER_INSTRUCTION_INTERFACE_ID =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';

/**
 * Package ids of the interface packages as participants report them (the ids of
 * splice-api-token-holding-v1 1.0.0 and splice-api-token-transfer-instruction-v1 1.0.0, as in
 * the exchange-integration transactions). Responses name interfaces by package id, never by name.
 */
export const HOLDING_INTERFACE_PACKAGE_ID =
  '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b';
export const TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID =
  '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281';

/** Allocations (splice-api-token-allocation-v1, -allocation-instruction-v1), by package name. */
export { ALLOCATION_FACTORY_INTERFACE_ID, ALLOCATION_INTERFACE_ID };

/**
 * The allocation interfaces as responses name them, by package id: the ids of the Token Standard
 * codegen (`@canton-network/core-token-standard`), the only package ids of these interfaces at
 * hand.
 */
export const ALLOCATION_INTERFACE_REPORTED_ID: string =
  AllocationV1.Allocation.templateIdWithPackageId;
export const ALLOCATION_FACTORY_INTERFACE_REPORTED_ID: string =
  AllocationInstructionV1.AllocationFactory.templateIdWithPackageId;

// --- Token Standard choices ------------------------------------------------------------------

export const TRANSFER_FACTORY_TRANSFER_CHOICE = 'TransferFactory_Transfer';
export const TRANSFER_INSTRUCTION_ACCEPT_CHOICE = 'TransferInstruction_Accept';
export const TRANSFER_INSTRUCTION_REJECT_CHOICE = 'TransferInstruction_Reject';
export const TRANSFER_INSTRUCTION_WITHDRAW_CHOICE = 'TransferInstruction_Withdraw';
export const TRANSFER_INSTRUCTION_UPDATE_CHOICE = 'TransferInstruction_Update';
/** The choices that end a transfer offer, by what its receiver or sender does with it. */
export const TRANSFER_INSTRUCTION_CHOICES = {
  accept: TRANSFER_INSTRUCTION_ACCEPT_CHOICE,
  reject: TRANSFER_INSTRUCTION_REJECT_CHOICE,
  withdraw: TRANSFER_INSTRUCTION_WITHDRAW_CHOICE,
} as const;
/** Every template's consuming `Archive` choice: how a spent holding shows in ledger effects. */
export const ARCHIVE_CHOICE = 'Archive';

export const ALLOCATION_FACTORY_ALLOCATE_CHOICE = 'AllocationFactory_Allocate';
export const ALLOCATION_EXECUTE_TRANSFER_CHOICE = 'Allocation_ExecuteTransfer';
export const ALLOCATION_CANCEL_CHOICE = 'Allocation_Cancel';
export const ALLOCATION_WITHDRAW_CHOICE = 'Allocation_Withdraw';
export const ALLOCATION_RESULT_COMPLETED = 'AllocationInstructionResult_Completed';

export const TRANSFER_RESULT_COMPLETED = 'TransferInstructionResult_Completed';
export const TRANSFER_RESULT_PENDING = 'TransferInstructionResult_Pending';
export const TRANSFER_RESULT_FAILED = 'TransferInstructionResult_Failed';

// --- Token Standard metadata keys ------------------------------------------------------------

export { REASON_META_KEY };
/** What a transaction node did to holdings: one of `TX_KINDS`. */
export const TX_KIND_META_KEY = 'splice.lfdecentralizedtrust.org/tx-kind';
/** The party whose holdings a transfer, burn or merge spent. */
export const SENDER_META_KEY = 'splice.lfdecentralizedtrust.org/sender';
/** What the node burned: fees for an Amulet transfer, the amount for a burn. */
export const BURNED_META_KEY = 'splice.lfdecentralizedtrust.org/burned';

export const TX_KINDS = [
  'transfer',
  'merge-split',
  'burn',
  'mint',
  'unlock',
  'expire-dust',
] as const;
export type TxKind = (typeof TX_KINDS)[number];

/**
 * Keys an implementation adds to a node's result metadata to describe it; they are not part of
 * the transfer's own metadata, so decoding strips them from it.
 */
export const ANNOTATION_META_KEYS: ReadonlySet<string> = new Set([
  TX_KIND_META_KEY,
  SENDER_META_KEY,
  BURNED_META_KEY,
]);

// --- the devnet ledger's own package ---------------------------------------------------------

/**
 * The devnet ledger is not a Daml participant, but it answers as one: its contracts are
 * rendered as instances of templates of a package `poolparty-devnet` that implement the Token
 * Standard interfaces. The package id is the SHA-256 of `poolparty-devnet 1.0.0`: stable, and
 * distinct from every real package.
 */
export const DEVNET_PACKAGE_NAME = 'poolparty-devnet';
export const DEVNET_PACKAGE_ID = '661bb4521fe98c185a52945b87d303332bb8d99f350ad98ce4edaba236bc83c7';

/** A holding of any devnet instrument (implements `Holding`); signed by admin and owner. */
export const DEVNET_HOLDING_TEMPLATE_ID = `${DEVNET_PACKAGE_ID}:PoolParty.Devnet.Token:Holding`;
/** A pending two-step transfer (implements `TransferInstruction`): the port's offer. */
export const DEVNET_TRANSFER_INSTRUCTION_TEMPLATE_ID = `${DEVNET_PACKAGE_ID}:PoolParty.Devnet.Token:TransferInstruction`;
/**
 * One per instrument admin (implements `TransferFactory` and, as Amulet's rules do,
 * `AllocationFactory`). It also carries the faucet choices
 * `DEVNET_MINT_CHOICE` / `DEVNET_BURN_CHOICE`, the only way supply changes on the devnet.
 */
export const DEVNET_TRANSFER_FACTORY_TEMPLATE_ID = `${DEVNET_PACKAGE_ID}:PoolParty.Devnet.Token:TransferFactory`;
/** A funded allocation of one settlement leg (implements `Allocation`): the port's allocation. */
export const DEVNET_ALLOCATION_TEMPLATE_ID = `${DEVNET_PACKAGE_ID}:PoolParty.Devnet.Token:Allocation`;
/** A receiver's standing approval of direct transfers of one instrument (Amulet's pre-approval). */
export const DEVNET_PREAPPROVAL_TEMPLATE_ID = `${DEVNET_PACKAGE_ID}:PoolParty.Devnet.Token:TransferPreapproval`;
/** The open mining round the scan proxy reports (Amulet price, opening time). */
export const DEVNET_MINING_ROUND_TEMPLATE_ID = `${DEVNET_PACKAGE_ID}:PoolParty.Devnet.Rounds:OpenMiningRound`;

/** The receiver-side step of a direct transfer, as Amulet's pre-approval shows it to the receiver. */
export const DEVNET_PREAPPROVAL_SEND_CHOICE = 'TransferPreapproval_Send';
export const DEVNET_MINT_CHOICE = 'Devnet_Mint';
export const DEVNET_BURN_CHOICE = 'Devnet_Burn';

/**
 * Holding metadata key under which the devnet names the offer a locked holding is locked for.
 * A real registry does not say (Amulet's lock only has holders, expiry and a context text); there
 * the offer is found through the instruction whose `inputHoldingCids` names the holding.
 */
export const DEVNET_LOCK_OFFER_META_KEY = 'poolparty.devnet/transfer-instruction';

/** Holding metadata key under which the devnet names the allocation a locked holding backs. */
export const DEVNET_LOCK_ALLOCATION_META_KEY = 'poolparty.devnet/allocation';

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The contract id of the devnet's transfer factory of an instrument admin: stable per admin. */
export function transferFactoryContractId(admin: string): string {
  return `transfer-factory-${digest(`transfer-factory/${admin}`).slice(0, 32)}`;
}

/** The contract id of a receiver's devnet pre-approval of an instrument: stable per pair. */
export function preapprovalContractId(receiver: string, instrument: { admin: string; id: string }) {
  return `preapproval-${digest(`preapproval/${receiver}/${instrument.admin}/${instrument.id}`).slice(0, 32)}`;
}

// --- identifiers -----------------------------------------------------------------------------

/** `Module.Path:Entity` of a `<package>:<Module.Path>:<Entity>` identifier; null if malformed. */
export function qualifiedName(identifier: string): string | null {
  const colon = identifier.indexOf(':');
  if (colon <= 0) return null;
  const rest = identifier.slice(colon + 1);
  return rest.includes(':') ? rest : null;
}

/** Whether two identifiers name the same template or interface, whatever package reference. */
export function sameEntity(a: string, b: string): boolean {
  const name = qualifiedName(a);
  return name !== null && name === qualifiedName(b);
}

/** The identifier with its package reference replaced, e.g. `#name` by the package id. */
export function withPackage(identifier: string, packageRef: string): string {
  const name = qualifiedName(identifier);
  if (name === null)
    throw new RangeError(`not a <package>:<module>:<entity> identifier: ${identifier}`);
  return `${packageRef}:${name}`;
}

/** Interface ids the way a participant reports them (by package id). */
export const HOLDING_INTERFACE_REPORTED_ID = withPackage(
  HOLDING_INTERFACE_ID,
  HOLDING_INTERFACE_PACKAGE_ID,
);
export const TRANSFER_FACTORY_INTERFACE_REPORTED_ID = withPackage(
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID,
);
export const TRANSFER_INSTRUCTION_INTERFACE_REPORTED_ID = withPackage(
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID,
);
