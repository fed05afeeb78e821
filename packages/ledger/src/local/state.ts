/**
 * The in-memory state of the local ledger and the primitives every change is made of. Changes
 * are applied by the `apply*` functions of the sibling modules, which check everything first and
 * only then mutate, so a refused change leaves the state as it was.
 *
 * Ids are derived from the operator namespace and a sequence number, never from randomness: a
 * replay of the same entries yields the same ids, and two ledgers (different namespaces) never
 * share one.
 */
import { createHash } from 'node:crypto';
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import type {
  AllocateOutcome,
  Allocation,
  CommandCompletion,
  CommandResult,
  Holding,
  HoldingLock,
  LedgerEvent,
  LedgerUpdate,
  MiningRound,
  TransferOffer,
  TransferOutcome,
} from '../port.js';
import { LedgerError } from '../port.js';
import type { SelfTransfer, UpdateHoldingChanges } from './control.js';
import type { GenesisEntry } from './entries.js';
import { trafficBytesOf } from './traffic.js';

export interface PartyRecord {
  readonly partyId: string;
  readonly kind: 'external' | 'internal';
  /** Hex of every registered signing key: the creation key and added ones. */
  readonly signingKeys: Set<string>;
  /** Pre-approves every instrument, also later ones, except those in `notPreapproved`. */
  preapproveAll: boolean;
  /** Instrument keys pre-approved one by one. */
  readonly preapproved: Set<string>;
  readonly notPreapproved: Set<string>;
}

export interface PendingOffer {
  readonly offer: TransferOffer;
  /** The sender's holding of exactly the offered amount, locked until the offer ends. */
  readonly lockedHoldingId: string;
}

export type OfferEnding = 'accepted' | 'rejected' | 'withdrawn';

export type StoredResult =
  | TransferOutcome
  | AllocateOutcome
  | CommandResult
  | (CommandResult & { holdingId: string });

export interface StoredCompletion {
  readonly completion: CommandCompletion;
  /** What the first submission returned, returned again to a deduplicated resubmission. */
  readonly result: StoredResult;
}

/** The holdings one update created and archived, as they were then (locks included). */
export type HoldingChanges = UpdateHoldingChanges;

/** One owner's holdings, each map by holding id in creation order. */
export interface OwnerHoldings {
  readonly all: Map<string, Holding>;
  /** By `instrumentKey`. */
  readonly byInstrument: Map<string, Map<string, Holding>>;
}

export interface LedgerState {
  readonly operatorNamespace: string;
  readonly genesisMs: number;
  /** Ledger time minus real time: the initial skew plus every advance. */
  clockSkewMs: number;
  readonly parties: Map<string, PartyRecord>;
  /** By `instrumentKey`, in creation order. */
  readonly instruments: Map<string, Instrument>;
  /** By holding id, in creation order. */
  readonly holdings: Map<string, Holding>;
  /**
   * The same holdings by owner: what a party's reads and a transfer's selection look at, rather
   * than every party's holdings.
   */
  readonly holdingsByOwner: Map<string, OwnerHoldings>;
  /** Every offer not yet accepted, rejected or withdrawn, expired ones included. */
  readonly pendingOffers: Map<string, PendingOffer>;
  /** Every allocation not yet executed, cancelled or withdrawn, expired ones included. */
  readonly allocations: Map<string, Allocation>;
  readonly completions: Map<string, StoredCompletion>;
  /** `updates[i]` has offset `i + 1`. */
  readonly updates: LedgerUpdate[];
  /** `holdingChanges[i]`: what the update at offset `i + 1` created and archived. */
  readonly holdingChanges: HoldingChanges[];
  /** Holdings created and archived since the last recorded update: the next update's changes. */
  unrecorded: { created: Holding[]; archived: Holding[] };
  holdingSeq: number;
  miningRound: MiningRound;
  /** Carried by the next mining round that opens. */
  nextAmuletPriceUsd: Amount;
}

export function createLedgerState(genesis: GenesisEntry): LedgerState {
  const price = Amount.parse(genesis.amuletPriceUsd);
  return {
    operatorNamespace: genesis.operatorNamespace,
    genesisMs: genesis.at,
    clockSkewMs: genesis.at - genesis.realTime,
    parties: new Map(),
    instruments: new Map(),
    holdings: new Map(),
    holdingsByOwner: new Map(),
    pendingOffers: new Map(),
    allocations: new Map(),
    completions: new Map(),
    updates: [],
    holdingChanges: [],
    unrecorded: { created: [], archived: [] },
    holdingSeq: 0,
    miningRound: { round: 0, amuletPriceUsd: price, opensAt: new Date(genesis.at) },
    nextAmuletPriceUsd: price,
  };
}

export function lastRecordTimeMs(state: LedgerState): number {
  return state.updates.at(-1)?.recordTime.getTime() ?? state.genesisMs;
}

export function requireParty(state: LedgerState, partyId: string): PartyRecord {
  const party = state.parties.get(partyId);
  if (!party) throw new LedgerError('unknown_party', `unknown party ${partyId}`);
  return party;
}

export function requireInstrument(state: LedgerState, instrument: Instrument): Instrument {
  const known = state.instruments.get(instrumentKey(instrument));
  if (!known) {
    throw new LedgerError(
      'unknown_instrument',
      `unknown instrument ${instrument.id} of admin ${instrument.admin}`,
    );
  }
  return known;
}

export function isPreapproved(party: PartyRecord, instrument: Instrument): boolean {
  const key = instrumentKey(instrument);
  return party.preapproved.has(key) || (party.preapproveAll && !party.notPreapproved.has(key));
}

/** The owner's holdings, in creation order. */
export function holdingsOf(state: LedgerState, owner: string): Holding[] {
  return [...(state.holdingsByOwner.get(owner)?.all.values() ?? [])];
}

/** The owner's holdings of the instrument, in creation order. */
export function holdingsOfInstrument(
  state: LedgerState,
  owner: string,
  instrument: Instrument,
): Holding[] {
  const byId = state.holdingsByOwner.get(owner)?.byInstrument.get(instrumentKey(instrument));
  return [...(byId?.values() ?? [])];
}

export function pendingOffersOf(state: LedgerState, partyId: string): TransferOffer[] {
  return [...state.pendingOffers.values()]
    .map(({ offer }) => offer)
    .filter((offer) => offer.sender === partyId || offer.receiver === partyId);
}

/** The party's allocations, as executor, sender or receiver, in creation order. */
export function allocationsOf(state: LedgerState, partyId: string): Allocation[] {
  return [...state.allocations.values()].filter(
    ({ settlement, leg }) =>
      settlement.executor === partyId || leg.sender === partyId || leg.receiver === partyId,
  );
}

// --- primitives ---------------------------------------------------------------------------

/** A short, deterministic id unique to this ledger: `<kind>-<n>-<hash>`. */
export function ledgerId(state: LedgerState, kind: string, n: number): string {
  const hash = createHash('sha256')
    .update(`${state.operatorNamespace}/${kind}/${n}`)
    .digest('hex')
    .slice(0, 16);
  return `${kind}-${n}-${hash}`;
}

export function nextOffset(state: LedgerState): number {
  return state.updates.length + 1;
}

export function createHolding(
  state: LedgerState,
  owner: string,
  instrument: Instrument,
  amount: Amount,
  lock: HoldingLock | null = null,
): Holding {
  state.holdingSeq += 1;
  const holdingId = ledgerId(state, 'holding', state.holdingSeq);
  const holding: Holding = Object.freeze({ holdingId, owner, instrument, amount, lock });
  state.holdings.set(holdingId, holding);
  indexHolding(state, holding);
  state.unrecorded.created.push(holding);
  return holding;
}

export function archiveHoldings(state: LedgerState, holdingIds: readonly string[]): void {
  for (const holdingId of holdingIds) {
    const holding = state.holdings.get(holdingId);
    if (holding === undefined) throw new Error(`no holding ${holdingId} to archive`);
    state.holdings.delete(holdingId);
    unindexHolding(state, holding);
    state.unrecorded.archived.push(holding);
  }
}

function indexHolding(state: LedgerState, holding: Holding): void {
  let owned = state.holdingsByOwner.get(holding.owner);
  if (owned === undefined) {
    owned = { all: new Map(), byInstrument: new Map() };
    state.holdingsByOwner.set(holding.owner, owned);
  }
  owned.all.set(holding.holdingId, holding);
  const key = instrumentKey(holding.instrument);
  const byId = owned.byInstrument.get(key) ?? new Map<string, Holding>();
  owned.byInstrument.set(key, byId.set(holding.holdingId, holding));
}

/** Drops the holding from the index, and what it leaves empty: the index holds no more. */
function unindexHolding(state: LedgerState, holding: Holding): void {
  const owned = state.holdingsByOwner.get(holding.owner);
  if (owned === undefined) return;
  owned.all.delete(holding.holdingId);
  const key = instrumentKey(holding.instrument);
  const byId = owned.byInstrument.get(key);
  byId?.delete(holding.holdingId);
  if (byId?.size === 0) owned.byInstrument.delete(key);
  if (owned.all.size === 0) state.holdingsByOwner.delete(holding.owner);
}

export function recordUpdate(
  state: LedgerState,
  recordTimeMs: number,
  commandId: string | null,
  events: readonly LedgerEvent[],
  selfTransfer?: SelfTransfer,
): CommandResult {
  const offset = nextOffset(state);
  const updateId = ledgerId(state, 'update', offset);
  const update: LedgerUpdate = Object.freeze({
    offset,
    updateId,
    recordTime: new Date(recordTimeMs),
    commandId,
    trafficBytes: trafficBytesOf(events),
    events: Object.freeze([...events]),
  });
  state.updates.push(update);
  const { created, archived } = state.unrecorded;
  state.holdingChanges.push(
    Object.freeze({
      created: Object.freeze(created),
      archived: Object.freeze(archived),
      ...(selfTransfer !== undefined && { selfTransfer: Object.freeze(selfTransfer) }),
    }),
  );
  state.unrecorded = { created: [], archived: [] };
  return { updateId, offset };
}

export function recordCompletion(
  state: LedgerState,
  commandId: string | null,
  result: StoredResult,
): void {
  if (commandId === null) return;
  const update = state.updates[result.offset - 1];
  if (!update) throw new Error(`no update at offset ${result.offset}`);
  const completion: CommandCompletion = Object.freeze({
    commandId,
    updateId: result.updateId,
    offset: result.offset,
    recordTime: update.recordTime,
  });
  state.completions.set(commandId, { completion, result: Object.freeze({ ...result }) });
}

/**
 * The outcome of an earlier submission of `commandId` when it committed less than
 * `deduplicationPeriodMs` before `atMs`; null when the command is new (again).
 */
export function deduplicatedResult(
  state: LedgerState,
  commandId: string,
  atMs: number,
  deduplicationPeriodMs: number,
): StoredResult | null {
  const stored = state.completions.get(commandId);
  if (!stored) return null;
  const ageMs = atMs - stored.completion.recordTime.getTime();
  return ageMs < deduplicationPeriodMs ? stored.result : null;
}
