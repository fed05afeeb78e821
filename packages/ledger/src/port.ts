/**
 * The ledger port: everything the swap service needs from Canton, and nothing adapter-specific
 * (docs/spec/ledger.md#ledger-port). The engine is written against this interface only; the `local`
 * devnet ledger and the `canton` JSON Ledger API adapter both implement it and pass the same
 * conformance suite.
 *
 * Guarantees every adapter gives:
 * - Updates form one total order. Offsets are positive integers that increase with every update
 *   and are global to the participant: a subscription filtered to some parties skips the offsets
 *   of updates it does not see, so consecutive updates may have gaps between their offsets.
 *   Reading from an offset yields every later visible update exactly once, in order — except
 *   that a subscription may drop (the iterator throws `LedgerError('stream_dropped')`) and may
 *   deliver an update twice, so readers checkpoint offsets and tolerate duplicates.
 * - Commands carry a caller-chosen `commandId`. A command that committed is never applied twice:
 *   resubmitting the same `commandId` within the deduplication period returns the first outcome
 *   and changes nothing. A command that was refused did not change anything and may be retried.
 * - A submission can fail with `timeout` even though the command committed; callers resolve that
 *   through `lookupCommand` or the update stream, never by submitting a new command id.
 */
import { type Amount, BaseError, type DisclosedHolding, type Instrument } from '@poolparty/core';

/** The metadata key of the Canton Token Standard that carries a transfer's reason/reference. */
export const REASON_META_KEY = 'splice.lfdecentralizedtrust.org/reason';

/** Token Standard metadata limits: at most this many entries... */
export const META_ENTRIES_MAX = 128;
/** ...and at most this many characters over all keys and values. */
export const META_CHARS_MAX = 8192;

export type Offset = number;
export type Meta = Readonly<Record<string, string>>;

export interface PartyInfo {
  readonly partyId: string;
  /** `external`: identified by a user's key; `internal`: hosted in the operator's namespace. */
  readonly kind: 'external' | 'internal';
}

/**
 * Whether the service may submit commands as a party (send its transfers, act on its offers): on
 * a participant, its user's `CanActAs` right or a key it holds for the party; on the embedded
 * devnet ledger, an internal party (an external one only its own key signs for).
 */
export type ActingRight =
  | { readonly canAct: true }
  /** `reason` says what is missing, in words that follow the party's id ("it is …"). */
  | { readonly canAct: false; readonly reason: string };

export interface HoldingLock {
  /**
   * The transfer offer the holding is locked for; null when the adapter cannot derive it (a lock
   * names holders and a context, not the instruction that made it).
   */
  readonly offerId: string | null;
  /** When the lock lapses (an offer's `executeBefore`); null: until released. */
  readonly expiresAt: Date | null;
  /** The lock's human-readable context, when it has one. */
  readonly context: string | null;
  /** Set when the holding is locked for a settlement's allocation: the allocation's id. */
  readonly allocationId?: string;
}

/** A UTXO of the Token Standard `Holding` interface. */
export interface Holding {
  readonly holdingId: string;
  readonly owner: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly lock: HoldingLock | null;
}

export interface TransferCommand {
  readonly commandId: string;
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly meta?: Meta;
  /**
   * Deadline of a two-step transfer: an offer can no longer be accepted from then on. It stays
   * pending (and the sender's holding locked) until the sender withdraws it or the receiver
   * rejects it. Defaults to the adapter's offer lifetime.
   */
  readonly executeBefore?: Date;
  /**
   * Holdings of the sender the transfer must not name as its inputs: those live atomic swaps
   * reserve for their output legs (docs/spec/atomic-swaps.md#reservations). An adapter without
   * atomic swaps ignores it (nothing is reserved there).
   */
  readonly avoidHoldingIds?: readonly string[];
}

/** How `TransferFactory_Transfer` settled: directly (receiver pre-approval) or as an offer. */
export type TransferOutcome =
  | { readonly kind: 'direct'; readonly updateId: string; readonly offset: Offset }
  | {
      readonly kind: 'offer';
      readonly updateId: string;
      readonly offset: Offset;
      readonly offerId: string;
    };

/**
 * A split of one of the owner's holdings into two: a self-transfer, the Token Standard's
 * `TransferFactory_Transfer` with the owner as sender and receiver (`transferKind` `self`), naming
 * the holding as its only input. It archives the holding and creates the owner's holding of
 * `amount` and one of the rest; it moves nothing between parties, and its update carries no event.
 * Repeated on the rest, it gives a party as many holdings as it wants.
 */
export interface SplitHoldingCommand {
  readonly commandId: string;
  readonly owner: string;
  /** An unlocked holding of the owner. */
  readonly holdingId: string;
  /** What the first new holding holds: positive, and less than the holding does. */
  readonly amount: Amount;
  readonly meta?: Meta;
}

export interface SplitOutcome extends CommandResult {
  /** The new holding of the amount. */
  readonly holding: Holding;
  /** The new holding of the rest. */
  readonly change: Holding;
}

export interface OfferCommand {
  readonly commandId: string;
  readonly offerId: string;
  /** The party exercising the choice: the receiver to accept or reject, the sender to withdraw. */
  readonly actor: string;
}

export interface CommandResult {
  readonly updateId: string;
  readonly offset: Offset;
}

export interface TransferOffer {
  readonly offerId: string;
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly meta: Meta;
  /**
   * From this time on the offer can no longer be accepted. Nothing ends it then: it stays
   * pending, its holding locked, until the sender withdraws it or the receiver rejects it.
   */
  readonly executeBefore: Date;
}

/**
 * The settlement an allocation reserves holdings for, as the Token Standard's `SettlementInfo`
 * describes it. Deadlines are exclusive: allocating is possible until `allocateBefore`, executing
 * until `settleBefore`.
 */
export interface SettlementInfo {
  /** The party that executes the settlement: it moves every leg, in one transaction. */
  readonly executor: string;
  /** The executor's reference of the settlement (`settlementRef.id`). */
  readonly settlementRef: string;
  readonly requestedAt: Date;
  readonly allocateBefore: Date;
  readonly settleBefore: Date;
  readonly meta: Meta;
}

/** One transfer of a settlement (`TransferLeg`). */
export interface TransferLeg {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly meta: Meta;
}

/**
 * A funded allocation (`AllocationView`): the sender's holdings of the leg's amount, locked for
 * the settlement until it is executed, cancelled or withdrawn.
 */
export interface Allocation {
  readonly allocationId: string;
  readonly settlement: SettlementInfo;
  /** The leg's id, unique within its settlement. */
  readonly transferLegId: string;
  readonly leg: TransferLeg;
  /** The sender's holdings locked for it. */
  readonly holdingIds: readonly string[];
}

/** `AllocationFactory_Allocate`, submitted as the leg's sender. */
export interface AllocateCommand {
  readonly commandId: string;
  readonly settlement: SettlementInfo;
  readonly transferLegId: string;
  readonly leg: TransferLeg;
}

export interface AllocateOutcome extends CommandResult {
  readonly allocationId: string;
}

/**
 * `Allocation_ExecuteTransfer` of every allocation of one settlement, in one transaction: every
 * leg moves or none does. Each allocation's executor, sender and receiver must be among `actAs`.
 */
export interface SettlementCommand {
  readonly commandId: string;
  readonly allocationIds: readonly string[];
  readonly actAs: readonly string[];
}

/**
 * `Allocation_Cancel` (its executor, sender and receiver among `actAs`) or `Allocation_Withdraw`
 * (its sender among `actAs`).
 */
export interface AllocationCommand {
  readonly commandId: string;
  readonly allocationId: string;
  readonly actAs: readonly string[];
}

/** An allocation event: the leg's parties, instrument and amount, and the allocation itself. */
export interface AllocationEventBody {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly allocation: Allocation;
}

/** What one update did, as the Token Standard's transfer and instruction events show it. */
export type LedgerEvent =
  | {
      readonly kind: 'transfer';
      readonly sender: string;
      readonly receiver: string;
      readonly instrument: Instrument;
      readonly amount: Amount;
      readonly meta: Meta;
      /** Set when this transfer settles an accepted offer. */
      readonly offerId: string | null;
      /**
       * What the sender paid beyond `amount` in fees the instrument burned (Amulet's transfer
       * fees); zero when none.
       */
      readonly feesBurned: Amount;
    }
  | ({ readonly kind: 'offer_created' } & TransferOffer)
  | ({ readonly kind: 'offer_rejected' } & TransferOffer)
  | ({ readonly kind: 'offer_withdrawn' } & TransferOffer)
  /** A leg's holdings locked for its settlement. */
  | ({ readonly kind: 'allocation_created' } & AllocationEventBody)
  /** The leg moved to its receiver as part of its settlement; every leg's event is in one update. */
  | ({ readonly kind: 'allocation_executed' } & AllocationEventBody)
  /** Released to the sender: by the executor, sender and receiver together... */
  | ({ readonly kind: 'allocation_cancelled' } & AllocationEventBody)
  /** ...or by the sender alone. */
  | ({ readonly kind: 'allocation_withdrawn' } & AllocationEventBody)
  | {
      readonly kind: 'mint';
      readonly owner: string;
      readonly instrument: Instrument;
      readonly amount: Amount;
    }
  | {
      readonly kind: 'burn';
      readonly owner: string;
      readonly instrument: Instrument;
      readonly amount: Amount;
    };

export interface LedgerUpdate {
  readonly offset: Offset;
  readonly updateId: string;
  readonly recordTime: Date;
  /**
   * The command that produced this update; null when the reader cannot know it (another user's
   * or participant's command, or an update the ledger made without one).
   */
  readonly commandId: string | null;
  /** Traffic the transaction consumed, in bytes; null when unknown (e.g. another participant's). */
  readonly trafficBytes: number | null;
  readonly events: readonly LedgerEvent[];
}

export interface UpdateSubscription {
  /** Only updates with an event whose sender, receiver or owner is one of these parties. */
  readonly parties?: readonly string[];
  readonly signal?: AbortSignal;
}

export interface MiningRound {
  readonly round: number;
  readonly amuletPriceUsd: Amount;
  readonly opensAt: Date;
}

export interface TrafficParameters {
  /** Price of extra traffic in USD per megabyte. */
  readonly extraTrafficPriceUsdPerMb: Amount;
  /** Typical traffic of one token-standard transfer, in bytes. */
  readonly transferBytes: number;
}

export interface CommandCompletion {
  readonly commandId: string;
  readonly updateId: string;
  readonly offset: Offset;
  readonly recordTime: Date;
}

export interface LedgerPort {
  /** The party, or null when the ledger does not know it. */
  getParty(partyId: string): Promise<PartyInfo | null>;
  /** Whether `rawPublicKey` (32-byte Ed25519) is a registered signing key of the party. */
  isSigningKeyOf(partyId: string, rawPublicKey: Uint8Array): Promise<boolean>;
  /** Whether the service may act as the party, and if not what it lacks. */
  canActAs(partyId: string): Promise<ActingRight>;
  listInstruments(): Promise<readonly Instrument[]>;
  /** Holdings owned by the party, locked ones included (see `lock`). */
  getHoldings(partyId: string): Promise<readonly Holding[]>;
  /** Pending offers where the party is sender or receiver. */
  getPendingOffers(partyId: string): Promise<readonly TransferOffer[]>;

  /** `TransferFactory_Transfer`: direct when the receiver pre-approves the instrument, else an offer. */
  submitTransfer(command: TransferCommand): Promise<TransferOutcome>;
  /**
   * Splits a holding by a self-transfer. Refused with `invalid_inputs` (not an active unlocked
   * holding of the owner, or one another transfer of this process names), `invalid_amount` (not
   * positive, or not less than the holding), `unknown_party`.
   */
  splitHolding(command: SplitHoldingCommand): Promise<SplitOutcome>;
  /** Refused with `offer_expired` once ledger time has reached the offer's `executeBefore`. */
  acceptOffer(command: OfferCommand): Promise<CommandResult>;
  /** The receiver's refusal; also the way to end an expired offer sent to the party. */
  rejectOffer(command: OfferCommand): Promise<CommandResult>;
  /** The sender takes the offer back, expired or not; the locked amount returns unlocked. */
  withdrawOffer(command: OfferCommand): Promise<CommandResult>;
  /** The committed outcome of a command id, or null when no such command committed. */
  lookupCommand(commandId: string): Promise<CommandCompletion | null>;

  /** The offset of the latest update (0 before the first). */
  ledgerEnd(): Promise<Offset>;
  /** Updates after `fromOffset` (exclusive), then live ones as they commit, until aborted. */
  updates(fromOffset: Offset, subscription?: UpdateSubscription): AsyncIterable<LedgerUpdate>;

  /**
   * The ledger's current time: the record time of the latest update or offset checkpoint the
   * ledger has reported (the next update's record time is not earlier).
   */
  now(): Promise<Date>;
  /** The open mining round; rounds are not on a party's update stream, so this is how to see one. */
  openMiningRound(): Promise<MiningRound>;
  trafficParameters(): Promise<TrafficParameters>;
}

/**
 * Token Standard allocations: the building block of a settlement that moves several legs
 * atomically. An adapter that has them implements this beside `LedgerPort`.
 */
export interface AllocationPort {
  /** Locks the sender's holdings for the leg; refused with `deadline_passed` from `allocateBefore` on. */
  allocate(command: AllocateCommand): Promise<AllocateOutcome>;
  /** Moves every leg, or (refused) none; refused with `deadline_passed` from `settleBefore` on. */
  executeSettlement(command: SettlementCommand): Promise<CommandResult>;
  cancelAllocation(command: AllocationCommand): Promise<CommandResult>;
  withdrawAllocation(command: AllocationCommand): Promise<CommandResult>;
  /** Allocations not yet executed, cancelled or withdrawn where the party is executor, sender or receiver. */
  getAllocations(partyId: string): Promise<readonly Allocation[]>;
}

/** One leg of an atomic swap, as prepared: what moves, and the sender's holdings it spends. */
export interface AtomicSwapLeg {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  /** The sender's holdings the leg names as its inputs. */
  readonly holdingIds: readonly string[];
}

/** What one side of an atomic swap moves; `holdingIds` names its inputs (else the adapter picks). */
export interface AtomicSwapSide {
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly holdingIds?: readonly string[];
  /**
   * The sender's holdings as disclosed contracts, for a sender hosted on another participant,
   * whose holdings this one cannot read: the leg names them as its inputs (with `holdingIds`, if
   * any) and the prepare discloses them. The participant checks each is the contract its id names.
   */
  readonly disclosedHoldings?: readonly DisclosedHolding[];
}

/**
 * An atomic swap to prepare (docs/spec/atomic-swaps.md#flow): one transaction of two
 * `TransferFactory_Transfer` exercises, the trader's input to the pool and the pool's output to
 * the trader, acting as both; each receiver takes its leg by its transfer pre-approval.
 */
export interface PrepareAtomicSwapCommand {
  readonly commandId: string;
  /** The external party that signs the transaction's hash with its own key. */
  readonly trader: string;
  /** The pool's swap party, which the service acts for (its user's rights or a key it holds). */
  readonly pool: string;
  /** Trader → pool, exact. */
  readonly input: AtomicSwapSide;
  /** Pool → trader, exact. */
  readonly output: AtomicSwapSide;
  /** Both legs' `executeBefore`: from then on the ledger commits neither. */
  readonly expiresAt: Date;
  readonly meta?: Meta;
}

/** A prepared atomic swap: its legs and the transaction whose hash the trader signs. */
export interface PreparedAtomicSwap {
  readonly commandId: string;
  readonly trader: string;
  readonly pool: string;
  readonly input: AtomicSwapLeg;
  readonly output: AtomicSwapLeg;
  readonly expiresAt: Date;
  /** The prepared transaction as the participant answered it (protobuf, base64). */
  readonly preparedTransaction: string;
  /** Its hash as the participant reported it (base64): what the trader signs. */
  readonly preparedTransactionHash: string;
  readonly hashingSchemeVersion: string;
}

/** The trader's Ed25519 signature of a prepared transaction's hash, with the key that made it. */
export interface TransactionSignature {
  /** 64 bytes. */
  readonly signature: Uint8Array;
  /** The raw 32-byte public key: a registered signing key of the trader. */
  readonly publicKey: Uint8Array;
}

export interface ExecuteAtomicSwapCommand {
  readonly prepared: PreparedAtomicSwap;
  readonly traderSignature: TransactionSignature;
}

/**
 * Atomic swaps through external signing: an adapter that has them implements this beside
 * `LedgerPort` — the canton adapter, and the embedded ledger as the service opens it (the devnet
 * ledger's interactive submission in process, joined by `withAtomicSwapPort`), with one flow and
 * the same refusals. Executing is deduplicated by the prepared transaction's command id:
 * executing the same swap again moves nothing and answers the first execution's outcome.
 */
export interface AtomicSwapPort {
  /**
   * Prepares both legs as one transaction; changes nothing on the ledger. Refused with
   * `deadline_passed` when `expiresAt` is not after the ledger's time, `insufficient_holdings`
   * or `invalid_inputs` when a side's inputs cannot cover it.
   */
  prepareAtomicSwap(command: PrepareAtomicSwapCommand): Promise<PreparedAtomicSwap>;
  /**
   * Picks and sets aside, in one step, holdings of `owner` that a swap about to be prepared will
   * name: `pick` is told which holdings this process's transfers are spending (or spent, or other
   * swaps hold) and answers the ones the swap names; no transfer of this process names those
   * until the swap's execution ends or `forMs` has passed (its signing window: a swap not
   * executed by then never commits). Optional: an adapter without it runs no transfers of its
   * own beside its swaps.
   */
  setAsideForSwap?(
    owner: string,
    pick: (taken: (holdingId: string) => boolean) => readonly string[],
    forMs: number,
  ): void;
  /**
   * A swap ended without executing (cancelled, refused before submission, expired): the
   * holdings set aside for it (`setAsideForSwap`) are free again at once.
   */
  endSetAside?(holdingIds: readonly string[]): void;
  /**
   * Executes a prepared swap with the trader's signature (and the pool's authority): both legs
   * move in one update, or nothing moves. Refused with `signature_invalid` (not the trader's key,
   * not this hash, or a transaction changed after it was prepared), `deadline_passed` (from
   * `expiresAt` on) or `invalid_inputs` (an input was spent since: prepare again).
   */
  executeAtomicSwap(command: ExecuteAtomicSwapCommand): Promise<CommandResult>;
}

export type LedgerErrorCode =
  | 'unknown_party'
  | 'unknown_instrument'
  | 'insufficient_holdings'
  /** The holdings a transfer names as its inputs cannot be (not the sender's, locked, gone…). */
  | 'invalid_inputs'
  /**
   * A contract the command names is unknown to the participant: not there, or of a party hosted
   * on another participant and not disclosed with the command.
   */
  | 'unknown_contract'
  /** A disclosed contract is not the contract its id names (another payload, a changed blob). */
  | 'invalid_disclosure'
  | 'invalid_amount'
  | 'metadata_limit_exceeded'
  | 'offer_not_found'
  | 'offer_expired'
  | 'allocation_not_found'
  /**
   * A deadline has passed: a settlement's (`allocateBefore` to allocate, `settleBefore` to
   * execute) or an atomic swap's `expiresAt`.
   */
  | 'deadline_passed'
  /** Allocations that do not form one settlement, or a settlement whose deadlines contradict. */
  | 'invalid_settlement'
  | 'not_authorized'
  /**
   * A prepared transaction's signatures do not authorize it (another key, another hash, or a
   * transaction changed after it was prepared); nothing changed, and resubmitting never passes.
   */
  | 'signature_invalid'
  /** The ledger refused the submission; nothing changed. Retrying may succeed. */
  | 'rejected'
  /** No answer in time; the command may or may not have committed. */
  | 'timeout'
  | 'stream_dropped'
  | 'closed';

export class LedgerError extends BaseError<LedgerErrorCode> {
  override readonly name = 'LedgerError';
  constructor(code: LedgerErrorCode, message: string) {
    super(code, message);
  }

  /** Whether the same command may be submitted again with the same `commandId`. */
  get retryable(): boolean {
    return this.code === 'rejected' || this.code === 'timeout' || this.code === 'stream_dropped';
  }
}
