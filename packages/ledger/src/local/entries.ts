/**
 * Every change of the local ledger is one entry: a control operation, a committed command, or a
 * settlement of what fell due (the opening of a mining round). Entries are plain JSON (amounts as
 * decimal strings, times as epoch milliseconds, keys as hex) and carry everything their effect
 * depends on, including the ledger time they were applied at, so applying the same entries in
 * the same order always rebuilds the same state. That is how the ledger persists (persistence.ts).
 */
import type { Instrument } from '@poolparty/core';

export type AmountText = string;
export type EpochMs = number;

export interface GenesisEntry {
  readonly op: 'genesis';
  readonly operatorNamespace: string;
  /** Ledger time at creation; mining round 0 opens here. */
  readonly at: EpochMs;
  /** Real time at creation: `at − realTime` is the clock's initial skew. */
  readonly realTime: EpochMs;
  readonly amuletPriceUsd: AmountText;
}

export interface CreatePartyEntry {
  readonly op: 'createParty';
  readonly partyId: string;
  /** Hex of the creation key: set for external parties, null for internal ones. */
  readonly publicKey: string | null;
  readonly preapprovals: readonly Instrument[] | 'all';
}

export interface AddSigningKeyEntry {
  readonly op: 'addSigningKey';
  readonly partyId: string;
  readonly publicKey: string;
}

export interface CreateInstrumentEntry {
  readonly op: 'createInstrument';
  readonly instrument: Instrument;
}

export interface SetPreapprovalEntry {
  readonly op: 'setPreapproval';
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly enabled: boolean;
}

/**
 * A submitted command that sets a receiver's pre-approval (a wallet's TransferPreapproval
 * proposal, accepted at once by the validator): unlike `setPreapproval`, a committed update.
 */
export interface PreapprovalCommandEntry {
  readonly op: 'preapprove';
  readonly at: EpochMs;
  readonly commandId: string;
  readonly receiver: string;
  readonly instrument: Instrument;
}

export interface SetAmuletPriceEntry {
  readonly op: 'setAmuletPrice';
  readonly priceUsd: AmountText;
}

export interface AdvanceClockEntry {
  readonly op: 'advanceClock';
  readonly ms: number;
}

/** Applies what fell due by `at`: the newest mining round. */
export interface SettleEntry {
  readonly op: 'settle';
  readonly at: EpochMs;
}

export interface TransferEntry {
  readonly op: 'transfer';
  readonly at: EpochMs;
  readonly commandId: string;
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: AmountText;
  readonly meta: Readonly<Record<string, string>>;
  /** Resolved: the command's deadline, or `at` + the offer lifetime. */
  readonly executeBefore: EpochMs;
  /** The holdings the command names as its inputs; absent (or empty): the ledger picks. */
  readonly inputHoldingIds?: readonly string[];
  /** Holdings the ledger's own pick passes over (those live atomic swaps reserve). */
  readonly avoidHoldingIds?: readonly string[];
}

/** One transfer of a `transfers` entry: a `TransferEntry` without its own time and command. */
export type TransferBatchLeg = Omit<TransferEntry, 'op' | 'at' | 'commandId'>;

/**
 * Several transfers committed as one update, all or none: a transaction of several
 * `TransferFactory_Transfer` exercises (an atomic swap's input and output legs).
 */
export interface TransferBatchEntry {
  readonly op: 'transfers';
  readonly at: EpochMs;
  readonly commandId: string;
  readonly transfers: readonly TransferBatchLeg[];
}

export interface OfferActionEntry {
  readonly op: 'acceptOffer' | 'rejectOffer' | 'withdrawOffer';
  readonly at: EpochMs;
  readonly commandId: string;
  readonly offerId: string;
  readonly actor: string;
}

export interface SupplyEntry {
  readonly op: 'mint' | 'burn';
  readonly at: EpochMs;
  readonly commandId: string | null;
  readonly owner: string;
  readonly instrument: Instrument;
  readonly amount: AmountText;
}

/** `SettlementInfo` with times as epoch milliseconds. */
export interface SettlementRecord {
  readonly executor: string;
  readonly settlementRef: string;
  readonly requestedAt: EpochMs;
  readonly allocateBefore: EpochMs;
  readonly settleBefore: EpochMs;
  readonly meta: Readonly<Record<string, string>>;
}

export interface TransferLegRecord {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: AmountText;
  readonly meta: Readonly<Record<string, string>>;
}

export interface AllocateEntry {
  readonly op: 'allocate';
  readonly at: EpochMs;
  readonly commandId: string;
  readonly settlement: SettlementRecord;
  readonly transferLegId: string;
  readonly leg: TransferLegRecord;
}

export interface ExecuteSettlementEntry {
  readonly op: 'executeSettlement';
  readonly at: EpochMs;
  readonly commandId: string;
  readonly allocationIds: readonly string[];
  readonly actAs: readonly string[];
}

export interface AllocationReleaseEntry {
  readonly op: 'cancelAllocation' | 'withdrawAllocation';
  readonly at: EpochMs;
  readonly commandId: string;
  readonly allocationId: string;
  readonly actAs: readonly string[];
}

export type LedgerEntry =
  | GenesisEntry
  | CreatePartyEntry
  | AddSigningKeyEntry
  | CreateInstrumentEntry
  | SetPreapprovalEntry
  | PreapprovalCommandEntry
  | SetAmuletPriceEntry
  | AdvanceClockEntry
  | SettleEntry
  | TransferEntry
  | TransferBatchEntry
  | OfferActionEntry
  | SupplyEntry
  | AllocateEntry
  | ExecuteSettlementEntry
  | AllocationReleaseEntry;

/** Entries after genesis. */
export type ChangeEntry = Exclude<LedgerEntry, GenesisEntry>;
