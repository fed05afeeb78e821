/**
 * The devnet-only controls of the embedded `local` ledger: what a real participant does through
 * its own administration (parties, instruments, minting, time) plus fault injection for tests.
 * Nothing here is part of the ledger port; the engine never calls it.
 */
import type { Amount, Instrument } from '@poolparty/core';
import type {
  AllocationPort,
  CommandResult,
  Holding,
  LedgerPort,
  LedgerUpdate,
  Meta,
  Offset,
  PartyInfo,
  TransferCommand,
  TransferOutcome,
} from '../port.js';

export interface LocalLedgerOptions {
  /** Folder where the ledger persists its state; omitted: in memory only. */
  readonly dataDir?: string;
  /** Clock start; defaults to real time. The clock then runs in real time plus advances. */
  readonly startTime?: Date;
  /** Namespace fingerprint of internal parties (pool swap/LP parties, instrument admins). */
  readonly operatorNamespace?: string;
  /** Command deduplication period; default 24 h. */
  readonly deduplicationPeriodMs?: number;
  /** Default lifetime of a transfer offer when the command gives no `executeBefore`; default 24 h. */
  readonly offerLifetimeMs?: number;
  /** Amulet USD price of the first open mining round; default 0.145. */
  readonly amuletPriceUsd?: Amount;
}

export interface CreatePartyRequest {
  readonly hint: string;
  /**
   * 32-byte Ed25519 key: an external party `<hint>::<fingerprint(key)>`. Without a key the party
   * is internal, in the operator namespace.
   */
  readonly publicKey?: Uint8Array;
  /**
   * Pre-approve incoming transfers of these instruments (`'all'`: every instrument, also those
   * created later). Default: none.
   */
  readonly preapprovals?: readonly Instrument[] | 'all';
}

/** What `createParty` answers: the party, and whether this call created it. */
export interface CreatedParty {
  readonly partyId: string;
  /** False when the party existed already (the same hint and key, or hint alone, before). */
  readonly created: boolean;
}

/** Fault injection, all off by default. Rates are probabilities in [0, 1]. */
export interface LedgerFaults {
  /** Delay added before every submission and every delivered update. */
  readonly latencyMs?: number;
  /** Share of submissions refused with `rejected` before they change anything. */
  readonly rejectRate?: number;
  /** Share of submissions that commit and then report `timeout`. */
  readonly timeoutAfterCommitRate?: number;
  /** Share of delivered updates after which the subscription throws `stream_dropped`. */
  readonly dropStreamRate?: number;
  /** Share of delivered updates that are delivered a second time right after. */
  readonly duplicateDeliveryRate?: number;
  /** Seed of the fault generator, so a test's faults are reproducible. */
  readonly seed?: number;
}

/** How many times each fault fired. */
export interface InjectedFaults {
  readonly rejections: number;
  readonly timeoutsAfterCommit: number;
  readonly droppedStreams: number;
  readonly duplicateDeliveries: number;
}

/**
 * The delivery half of fault injection (latency, duplicate delivery, dropped streams), for a
 * server that streams this ledger's updates to its own clients: the faults set by `setFaults`
 * then reach them as they reach the port's own subscriptions. Each call draws from the same
 * seeded generator as the port's submissions.
 */
export interface DeliveryFaults {
  /** Waits the configured latency before an update is delivered. */
  delay(): Promise<void>;
  /** Whether the update just delivered is to be delivered a second time. */
  duplicatesDelivery(): boolean;
  /** Whether the stream is to break after the update just delivered. */
  dropsStream(): boolean;
}

/**
 * A transfer as a Token Standard client submits it to the devnet ledger: it may name its input
 * holdings (`inputHoldingCids`), and its receiver may be its sender (Splice's self-transfer, how
 * a wallet merges its holdings). The engine's transfers through the port do neither.
 */
export interface LocalTransferCommand extends TransferCommand {
  /**
   * When given (and not empty), exactly these holdings are archived: each must be the sender's
   * unlocked holding of the instrument, named once, and together they must cover the amount
   * (`invalid_inputs`, `insufficient_holdings` otherwise). At most `INPUT_HOLDINGS_MAX`.
   */
  readonly inputHoldingIds?: readonly string[];
}

/**
 * A transfer to oneself (a merge or split of one's holdings). It moves no value between parties,
 * so its update has no event, as the port reads Canton's; what a participant shows of it (the
 * factory's exercise) is rendered from this.
 */
export interface SelfTransfer {
  readonly owner: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly meta: Meta;
}

/** What one update did to holdings (with their ids, as they were), and a self-transfer's detail. */
export interface UpdateHoldingChanges {
  readonly created: readonly Holding[];
  readonly archived: readonly Holding[];
  /** Set when the update is a transfer to oneself. */
  readonly selfTransfer?: SelfTransfer;
}

/**
 * Several transfers committed as one update, all or none: a transaction of several
 * `TransferFactory_Transfer` exercises. Every receiver must pre-approve its instrument (each leg
 * settles directly) and no leg is a transfer to its own sender; each leg's inputs are those it
 * names, or the ledger's pick among the holdings no earlier leg spends.
 */
export interface TransferBatchCommand {
  readonly commandId: string;
  readonly transfers: readonly Omit<LocalTransferCommand, 'commandId'>[];
}

/** A submitted pre-approval: the receiver accepts direct transfers of the instrument from then on. */
export interface PreapprovalCommand {
  readonly commandId: string;
  readonly receiver: string;
  readonly instrument: Instrument;
}

export interface LocalLedgerControl {
  /**
   * The port's `submitTransfer`, also as a Token Standard client submits it: with named inputs,
   * or to the sender itself (always direct: the inputs merged into one holding of the amount;
   * the update has no event, its detail is in `holdingChangesAt`).
   */
  submitTransfer(command: LocalTransferCommand): Promise<TransferOutcome>;
  /** Several transfers as one update, all or none (see `TransferBatchCommand`). */
  submitTransfers(command: TransferBatchCommand): Promise<CommandResult>;
  /** Creates the party, or finds the one the same request created before (`created: false`). */
  createParty(request: CreatePartyRequest): Promise<CreatedParty>;
  /**
   * The namespace internal parties are created in (`<hint>::<namespace>`): a participant's own,
   * whose id a server for this ledger reports in the same namespace.
   */
  operatorNamespace(): string;
  /** Every party the ledger knows, in the order they were created (a participant's party list). */
  listParties(): Promise<readonly PartyInfo[]>;
  /** Whether the receiver pre-approves incoming transfers of the instrument (false if unknown). */
  preapproves(receiver: string, instrument: Instrument): Promise<boolean>;
  /** The party's registered signing keys (raw 32-byte Ed25519); empty for an unknown party. */
  signingKeysOf(partyId: string): Promise<readonly Uint8Array[]>;
  /** Adds another signing key to a party (a key rotation, or a participant-hosted party). */
  addSigningKey(partyId: string, rawPublicKey: Uint8Array): Promise<void>;
  createInstrument(instrument: Instrument): Promise<void>;
  setPreapproval(receiver: string, instrument: Instrument, enabled: boolean): Promise<void>;
  /**
   * Pre-approves the instrument for the receiver as a submitted command does (a wallet's
   * TransferPreapproval proposal the validator accepts): a committed update with no event, its
   * completion, and deduplication by command id.
   */
  submitPreapproval(command: PreapprovalCommand): Promise<CommandResult>;
  /** Creates a holding out of nothing: the faucet. Supply grows only through this. */
  mint(request: {
    readonly owner: string;
    readonly instrument: Instrument;
    readonly amount: Amount;
    readonly commandId?: string;
  }): Promise<CommandResult & { readonly holdingId: string }>;
  /** Destroys unlocked holdings of the owner; supply shrinks only through this. */
  burn(request: {
    readonly owner: string;
    readonly instrument: Instrument;
    readonly amount: Amount;
    readonly commandId?: string;
  }): Promise<CommandResult>;
  /**
   * Moves the clock forward; a mining round due by then opens at once. Offers past their deadline
   * stay pending (no longer acceptable) until withdrawn or rejected.
   */
  advanceClock(ms: number): Promise<Date>;
  /** The price carried by the next open mining round (the last one set wins). */
  setAmuletPrice(priceUsd: Amount): Promise<void>;
  setFaults(faults: LedgerFaults): void;
  /** The faults in force, as they apply to delivering updates. */
  deliveryFaults(): DeliveryFaults;
  /** How many times each fault fired since the ledger opened. */
  faultsInjected(): InjectedFaults;
  /** The committed update at `offset`; undefined when none committed there (yet). */
  updateAt(offset: Offset): LedgerUpdate | undefined;
  /**
   * The holdings (with their ids, as they were) that the update at `offset` created and
   * archived; undefined when no update committed there. What a participant shows as the
   * transaction's created and archived Holding contracts.
   */
  holdingChangesAt(offset: Offset): UpdateHoldingChanges | undefined;
  /** Resolves at the next commit, at close, or when the signal aborts. */
  nextChange(signal?: AbortSignal): Promise<void>;
  isClosed(): boolean;
  /** Flushes state and stops timers and subscriptions; the ledger can be reopened from dataDir. */
  close(): Promise<void>;
}

export type LocalLedger = LedgerPort & AllocationPort & LocalLedgerControl;
