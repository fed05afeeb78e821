/**
 * The embedded `local` devnet ledger (docs/spec/ledger.md#local-devnet-ledger): the ledger port
 * plus its devnet controls, over the state of state.ts, persisted by persistence.ts.
 *
 * Every call, reads included, runs in one queue, one at a time, and each change is applied
 * completely (checked, applied, journaled) before the next starts; so concurrent submissions
 * never interleave. Before each call, whatever fell due by the ledger clock (the opening of a
 * mining round) is settled first; a timer does the same when nothing else happens.
 *
 * Decisions the port leaves open:
 * - Deduplication is by `commandId` alone. A resubmission within the deduplication period
 *   returns the first outcome even when its content differs, as Canton does; after the period
 *   the id is free again. `lookupCommand` keeps answering after the period (the latest commit).
 * - Mint and burn deduplicate when given a `commandId`; without one their update carries
 *   `commandId: null`. Every other update comes from a port command and carries its id.
 * - Faults (latency, rejection, timeout after commit) apply to the port's submissions only,
 *   never to devnet controls; delivery faults (latency, duplicates, drops) to its subscriptions
 *   and, through `deliveryFaults()`, to a server streaming its updates.
 * - A transfer whose `executeBefore` is not in the future is refused with `offer_expired`
 *   (the token standard requires the factory to fail then), for direct transfers too.
 * - A self-transfer through the port is a split (`splitHolding`): one named input, the amount and
 *   the change created for the owner, and no event.
 * - Accepting an offer at or after its `executeBefore` is refused with `offer_expired`; the offer
 *   stays pending and can still be rejected or withdrawn.
 * - Allocations (allocations.ts) trust their `actAs` as the offer actions trust their actor: the
 *   devnet's caller acts for the parties it names. Allocating needs no `actAs` (the leg's sender
 *   allocates); a locked allocation holding stays locked past `settleBefore` until the
 *   allocation is cancelled or withdrawn, as an offer's does past its deadline.
 * - `now()` reads the ledger clock itself, as if an offset checkpoint were taken at every read:
 *   never before the latest record time, and the next update's record time is not earlier.
 * - Malformed control input (a bad hint, a key that is not 32 bytes, an instrument without admin
 *   or id) throws `RangeError`; the port's refusals throw `LedgerError`.
 * - `close()` is idempotent; every later call rejects with `LedgerError('closed')`.
 */
import { randomBytes } from 'node:crypto';
import { Amount, fingerprint, type Instrument, instrumentKey } from '@poolparty/core';
import {
  type ActingRight,
  type AllocateCommand,
  type AllocateOutcome,
  type Allocation,
  type AllocationCommand,
  type CommandCompletion,
  type CommandResult,
  type Holding,
  LedgerError,
  type LedgerUpdate,
  type Meta,
  type MiningRound,
  type OfferCommand,
  type Offset,
  type PartyInfo,
  type SettlementCommand,
  type SettlementInfo,
  type SplitHoldingCommand,
  type SplitOutcome,
  type TrafficParameters,
  type TransferLeg,
  type TransferOffer,
  type TransferOutcome,
  type UpdateSubscription,
} from '../port.js';
import { checkSplit, splitOutcomeOf, TYPICAL_TRANSFER_BYTES } from '../rules.js';
import { applyEntry, replayEntries } from './apply.js';
import { ledgerTimeMs } from './clock.js';
import type {
  CreatedParty,
  CreatePartyRequest,
  DeliveryFaults,
  InjectedFaults,
  LedgerFaults,
  LocalLedger,
  LocalLedgerOptions,
  LocalTransferCommand,
  PreapprovalCommand,
  TransferBatchCommand,
} from './control.js';
import type {
  AllocateEntry,
  AllocationReleaseEntry,
  ChangeEntry,
  EpochMs,
  GenesisEntry,
  OfferActionEntry,
  SettlementRecord,
  SupplyEntry,
  TransferBatchEntry,
  TransferEntry,
  TransferLegRecord,
} from './entries.js';
import { FaultInjector } from './faults.js';
import { checkInstrument, checkNamespace, checkPublicKey, keyHex, partyIdOf } from './parties.js';
import { Journal } from './persistence.js';
import { isDue, nextDueMs } from './schedule.js';
import {
  allocationsOf,
  deduplicatedResult,
  type HoldingChanges,
  holdingsOf,
  isPreapproved,
  type LedgerState,
  lastRecordTimeMs,
  pendingOffersOf,
  requireParty,
  type StoredResult,
} from './state.js';
import { BATCH_LEGS_MAX } from './transfer-batch.js';
import { ChangeNotifier, streamUpdates, type UpdateSource } from './update-stream.js';

const DAY_MS = 24 * 60 * 60_000;
export const DEFAULT_DEDUPLICATION_PERIOD_MS = DAY_MS;
export const DEFAULT_OFFER_LIFETIME_MS = DAY_MS;
export const DEFAULT_AMULET_PRICE_USD = Amount.parse('0.145');
export const EXTRA_TRAFFIC_PRICE_USD_PER_MB = Amount.of(60);
/** setTimeout's limit; a longer wait just wakes once more. */
const TIMER_DELAY_MAX_MS = 2 ** 31 - 1;

interface LedgerSettings {
  readonly deduplicationPeriodMs: number;
  readonly offerLifetimeMs: number;
}

function positiveMs(value: number | undefined, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (!(Number.isFinite(ms) && ms > 0)) throw new RangeError(`${name} must be positive, not ${ms}`);
  return ms;
}

function amountText(value: unknown): string {
  if (!(value instanceof Amount))
    throw new LedgerError('invalid_amount', 'amount must be an Amount');
  return value.toString();
}

function epochMs(value: unknown, name: string): EpochMs {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new TypeError(`${name} must be a valid Date`);
  }
  return value.getTime();
}

/** A command's named input holdings, as plain strings for the journal. */
function holdingIdsOf(ids: readonly string[]): string[] {
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new RangeError('inputHoldingIds must be a list of holding ids');
  }
  return [...ids];
}

function copyMeta(meta: Meta | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(meta ?? {}).map(([key, value]) => [key, String(value)]));
}

function checkCommandId(commandId: unknown): string {
  if (typeof commandId !== 'string' || commandId.length === 0) {
    throw new TypeError('commandId must be a non-empty string');
  }
  return commandId;
}

/**
 * The longest list of ids an allocation command may carry (its acting parties, a settlement's
 * allocations): far above what a settlement has, the rules refuse more legs than they execute.
 */
const COMMAND_IDS_MAX = 256;

function idList(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.length > COMMAND_IDS_MAX) {
    throw new TypeError(`${name} must be an array of at most ${COMMAND_IDS_MAX} ids`);
  }
  return value.map((id) => String(id));
}

/** A batch's transfers: an array of 1 to `BATCH_LEGS_MAX`. */
function batchLegs<T>(transfers: readonly T[]): readonly T[] {
  if (!Array.isArray(transfers) || transfers.length === 0 || transfers.length > BATCH_LEGS_MAX) {
    throw new TypeError(`transfers must be an array of 1 to ${BATCH_LEGS_MAX} transfers`);
  }
  return transfers;
}

function settlementRecord(settlement: SettlementInfo): SettlementRecord {
  return {
    executor: settlement.executor,
    settlementRef: String(settlement.settlementRef),
    requestedAt: epochMs(settlement.requestedAt, 'requestedAt'),
    allocateBefore: epochMs(settlement.allocateBefore, 'allocateBefore'),
    settleBefore: epochMs(settlement.settleBefore, 'settleBefore'),
    meta: copyMeta(settlement.meta),
  };
}

function legRecord(leg: TransferLeg): TransferLegRecord {
  return {
    sender: leg.sender,
    receiver: leg.receiver,
    instrument: checkInstrument(leg.instrument),
    amount: amountText(leg.amount),
    meta: copyMeta(leg.meta),
  };
}

function genesisEntry(options: LocalLedgerOptions): GenesisEntry {
  const realTime = Date.now();
  const price = options.amuletPriceUsd ?? DEFAULT_AMULET_PRICE_USD;
  if (!(price instanceof Amount) || !price.isPositive()) {
    throw new RangeError('amuletPriceUsd must be a positive Amount');
  }
  return {
    op: 'genesis',
    operatorNamespace: checkNamespace(options.operatorNamespace ?? fingerprint(randomBytes(32))),
    at: options.startTime === undefined ? realTime : epochMs(options.startTime, 'startTime'),
    realTime,
    amuletPriceUsd: price.toString(),
  };
}

/**
 * Opens the ledger: from `dataDir` when it holds a journal, else a new one (persisted to
 * `dataDir` when given). On reopen `startTime` and `amuletPriceUsd` are ignored (the journal
 * has them); an `operatorNamespace` that differs from the persisted one is refused.
 */
export async function openLocalLedger(options: LocalLedgerOptions = {}): Promise<LocalLedger> {
  const settings: LedgerSettings = {
    deduplicationPeriodMs: positiveMs(
      options.deduplicationPeriodMs,
      DAY_MS,
      'deduplicationPeriodMs',
    ),
    offerLifetimeMs: positiveMs(options.offerLifetimeMs, DAY_MS, 'offerLifetimeMs'),
  };
  const opened = options.dataDir === undefined ? null : Journal.open(options.dataDir);
  const entries = opened?.entries ?? [];
  const persisted = entries[0];
  if (persisted === undefined) {
    const genesis = genesisEntry(options);
    opened?.journal.append(genesis);
    entries.push(genesis);
  } else if (
    persisted.op === 'genesis' &&
    options.operatorNamespace !== undefined &&
    options.operatorNamespace !== persisted.operatorNamespace
  ) {
    throw new RangeError(
      `${options.dataDir} belongs to operator namespace ${persisted.operatorNamespace}, not ${options.operatorNamespace}`,
    );
  }
  return new LocalLedgerImpl(replayEntries(entries), opened?.journal ?? null, settings);
}

class LocalLedgerImpl implements LocalLedger, UpdateSource {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly notifier = new ChangeNotifier();
  private readonly faults = new FaultInjector();

  constructor(
    private readonly state: LedgerState,
    private readonly journal: Journal | null,
    private readonly settings: LedgerSettings,
  ) {
    this.schedule();
  }

  // --- the port: reads ----------------------------------------------------------------------

  getParty(partyId: string): Promise<PartyInfo | null> {
    return this.run(() => {
      const party = this.state.parties.get(partyId);
      return party ? { partyId: party.partyId, kind: party.kind } : null;
    });
  }

  /**
   * The devnet's service acts for the parties in the operator's namespace; an external party's
   * submissions are its own wallet's, signed with its key.
   */
  canActAs(partyId: string): Promise<ActingRight> {
    return this.run((): ActingRight => {
      const party = this.state.parties.get(partyId);
      if (party === undefined) return { canAct: false, reason: 'the ledger knows no such party' };
      if (party.kind === 'external') {
        return {
          canAct: false,
          reason: 'it is an external party, which only its own key signs for',
        };
      }
      return { canAct: true };
    });
  }

  isSigningKeyOf(partyId: string, rawPublicKey: Uint8Array): Promise<boolean> {
    return this.run(() => {
      const party = this.state.parties.get(partyId);
      if (party === undefined || !(rawPublicKey instanceof Uint8Array)) return false;
      return party.signingKeys.has(keyHex(rawPublicKey));
    });
  }

  signingKeysOf(partyId: string): Promise<readonly Uint8Array[]> {
    return this.run(() => {
      const party = this.state.parties.get(partyId);
      return party
        ? [...party.signingKeys].map((hex) => Uint8Array.from(Buffer.from(hex, 'hex')))
        : [];
    });
  }

  listInstruments(): Promise<readonly Instrument[]> {
    return this.run(() => [...this.state.instruments.values()].map((i) => ({ ...i })));
  }

  /** Unknown parties hold nothing: an empty list, not an error. */
  getHoldings(partyId: string): Promise<readonly Holding[]> {
    return this.run(() => holdingsOf(this.state, partyId));
  }

  getPendingOffers(partyId: string): Promise<readonly TransferOffer[]> {
    return this.run(() => pendingOffersOf(this.state, partyId));
  }

  lookupCommand(commandId: string): Promise<CommandCompletion | null> {
    return this.run(() => this.state.completions.get(commandId)?.completion ?? null);
  }

  ledgerEnd(): Promise<Offset> {
    return this.run(() => this.state.updates.length);
  }

  updates(fromOffset: Offset, subscription: UpdateSubscription = {}): AsyncIterable<LedgerUpdate> {
    return streamUpdates(this, fromOffset, subscription, this.faults);
  }

  now(): Promise<Date> {
    return this.run(() => new Date(this.nowMs()));
  }

  openMiningRound(): Promise<MiningRound> {
    return this.run(() => this.state.miningRound);
  }

  trafficParameters(): Promise<TrafficParameters> {
    return this.run(() => ({
      extraTrafficPriceUsdPerMb: EXTRA_TRAFFIC_PRICE_USD_PER_MB,
      transferBytes: TYPICAL_TRANSFER_BYTES,
    }));
  }

  // --- the port: commands -------------------------------------------------------------------

  submitTransfer(command: LocalTransferCommand): Promise<TransferOutcome> {
    return this.submit<TransferOutcome>(command.commandId, (at): TransferEntry => {
      const executeBefore =
        command.executeBefore === undefined
          ? at + this.settings.offerLifetimeMs
          : epochMs(command.executeBefore, 'executeBefore');
      return {
        op: 'transfer',
        at,
        commandId: command.commandId,
        sender: command.sender,
        receiver: command.receiver,
        instrument: checkInstrument(command.instrument),
        amount: amountText(command.amount),
        meta: copyMeta(command.meta),
        executeBefore,
        ...(command.inputHoldingIds !== undefined && {
          inputHoldingIds: holdingIdsOf(command.inputHoldingIds),
        }),
        ...(command.avoidHoldingIds !== undefined &&
          command.avoidHoldingIds.length > 0 && {
            avoidHoldingIds: holdingIdsOf(command.avoidHoldingIds),
          }),
      };
    });
  }

  /** A transfer to oneself naming the holding, which the ledger applies as a wallet's split. */
  async splitHolding(command: SplitHoldingCommand): Promise<SplitOutcome> {
    const result = await this.submit<TransferOutcome>(command.commandId, (at): TransferEntry => {
      const { commandId, owner, holdingId } = command;
      requireParty(this.state, owner);
      const holding = checkSplit(command, this.state.holdings.get(holdingId));
      return {
        op: 'transfer',
        at,
        commandId,
        sender: owner,
        receiver: owner,
        instrument: holding.instrument,
        amount: amountText(command.amount),
        meta: copyMeta(command.meta),
        executeBefore: at + this.settings.offerLifetimeMs,
        inputHoldingIds: [holdingId],
      };
    });
    return this.run(() =>
      splitOutcomeOf(result, command, this.state.holdingChanges[result.offset - 1]?.created ?? []),
    );
  }

  submitTransfers(command: TransferBatchCommand): Promise<CommandResult> {
    const { transfers } = command;
    return this.submit<CommandResult>(
      command.commandId,
      (at): TransferBatchEntry => ({
        op: 'transfers',
        at,
        commandId: command.commandId,
        transfers: batchLegs(transfers).map((transfer) => ({
          sender: transfer.sender,
          receiver: transfer.receiver,
          instrument: checkInstrument(transfer.instrument),
          amount: amountText(transfer.amount),
          meta: copyMeta(transfer.meta),
          executeBefore:
            transfer.executeBefore === undefined
              ? at + this.settings.offerLifetimeMs
              : epochMs(transfer.executeBefore, 'executeBefore'),
          ...(transfer.inputHoldingIds !== undefined && {
            inputHoldingIds: holdingIdsOf(transfer.inputHoldingIds),
          }),
        })),
      }),
    );
  }

  acceptOffer(command: OfferCommand): Promise<CommandResult> {
    return this.submitOfferAction('acceptOffer', command);
  }

  rejectOffer(command: OfferCommand): Promise<CommandResult> {
    return this.submitOfferAction('rejectOffer', command);
  }

  withdrawOffer(command: OfferCommand): Promise<CommandResult> {
    return this.submitOfferAction('withdrawOffer', command);
  }

  private submitOfferAction(op: OfferActionEntry['op'], command: OfferCommand) {
    return this.submit<CommandResult>(command.commandId, (at): OfferActionEntry => {
      const { commandId, offerId, actor } = command;
      return { op, at, commandId, offerId, actor };
    });
  }

  // --- allocations ---------------------------------------------------------------------------

  getAllocations(partyId: string): Promise<readonly Allocation[]> {
    return this.run(() => allocationsOf(this.state, partyId));
  }

  allocate(command: AllocateCommand): Promise<AllocateOutcome> {
    return this.submit<AllocateOutcome>(
      command.commandId,
      (at): AllocateEntry => ({
        op: 'allocate',
        at,
        commandId: command.commandId,
        settlement: settlementRecord(command.settlement),
        transferLegId: String(command.transferLegId),
        leg: legRecord(command.leg),
      }),
    );
  }

  executeSettlement(command: SettlementCommand): Promise<CommandResult> {
    return this.submit<CommandResult>(command.commandId, (at) => ({
      op: 'executeSettlement',
      at,
      commandId: command.commandId,
      allocationIds: idList(command.allocationIds, 'allocationIds'),
      actAs: idList(command.actAs, 'actAs'),
    }));
  }

  cancelAllocation(command: AllocationCommand): Promise<CommandResult> {
    return this.submitRelease('cancelAllocation', command);
  }

  withdrawAllocation(command: AllocationCommand): Promise<CommandResult> {
    return this.submitRelease('withdrawAllocation', command);
  }

  private submitRelease(op: AllocationReleaseEntry['op'], command: AllocationCommand) {
    return this.submit<CommandResult>(
      command.commandId,
      (at): AllocationReleaseEntry => ({
        op,
        at,
        commandId: command.commandId,
        allocationId: String(command.allocationId),
        actAs: idList(command.actAs, 'actAs'),
      }),
    );
  }

  // --- devnet controls ----------------------------------------------------------------------

  createParty(request: CreatePartyRequest): Promise<CreatedParty> {
    return this.run(() => {
      const partyId = partyIdOf(request.hint, request.publicKey, this.state.operatorNamespace);
      const { preapprovals = [] } = request;
      if (this.state.parties.has(partyId)) return { partyId, created: false };
      this.commit({
        op: 'createParty',
        partyId,
        publicKey: request.publicKey ? keyHex(request.publicKey) : null,
        preapprovals: preapprovals === 'all' ? 'all' : preapprovals.map(checkInstrument),
      });
      return { partyId, created: true };
    });
  }

  listParties(): Promise<readonly PartyInfo[]> {
    return this.run(() =>
      [...this.state.parties.values()].map(({ partyId, kind }) => ({ partyId, kind })),
    );
  }

  preapproves(receiver: string, instrument: Instrument): Promise<boolean> {
    return this.run(() => {
      const party = this.state.parties.get(receiver);
      return party !== undefined && isPreapproved(party, instrument);
    });
  }

  addSigningKey(partyId: string, rawPublicKey: Uint8Array): Promise<void> {
    return this.run(() => {
      const publicKey = keyHex(checkPublicKey(rawPublicKey));
      if (requireParty(this.state, partyId).signingKeys.has(publicKey)) return;
      this.commit({ op: 'addSigningKey', partyId, publicKey });
    });
  }

  createInstrument(instrument: Instrument): Promise<void> {
    return this.run(() => {
      const checked = checkInstrument(instrument);
      if (this.state.instruments.has(instrumentKey(checked))) return;
      this.commit({ op: 'createInstrument', instrument: checked });
    });
  }

  setPreapproval(receiver: string, instrument: Instrument, enabled: boolean): Promise<void> {
    return this.run(() => {
      this.commit({
        op: 'setPreapproval',
        receiver,
        instrument: checkInstrument(instrument),
        enabled,
      });
    });
  }

  operatorNamespace(): string {
    return this.state.operatorNamespace;
  }

  submitPreapproval(command: PreapprovalCommand): Promise<CommandResult> {
    return this.submit<CommandResult>(command.commandId, (at) => ({
      op: 'preapprove',
      at,
      commandId: command.commandId,
      receiver: command.receiver,
      instrument: checkInstrument(command.instrument),
    }));
  }

  mint(request: Parameters<LocalLedger['mint']>[0]) {
    return this.changeSupply<CommandResult & { readonly holdingId: string }>('mint', request);
  }

  burn(request: Parameters<LocalLedger['burn']>[0]): Promise<CommandResult> {
    return this.changeSupply<CommandResult>('burn', request);
  }

  advanceClock(ms: number): Promise<Date> {
    return this.run(() => {
      this.commit({ op: 'advanceClock', ms });
      this.settleDue();
      return new Date(this.nowMs());
    });
  }

  setAmuletPrice(priceUsd: Amount): Promise<void> {
    return this.run(() => {
      this.commit({ op: 'setAmuletPrice', priceUsd: amountText(priceUsd) });
    });
  }

  setFaults(faults: LedgerFaults): void {
    this.assertOpen();
    this.faults.configure(faults);
  }

  deliveryFaults(): DeliveryFaults {
    return this.faults;
  }

  faultsInjected(): InjectedFaults {
    return this.faults.injected();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.notifier.notify();
    await this.tail;
  }

  // --- the update source of the stream ------------------------------------------------------

  updateAt(offset: number): LedgerUpdate | undefined {
    return this.state.updates[offset - 1];
  }

  holdingChangesAt(offset: Offset): HoldingChanges | undefined {
    return this.state.holdingChanges[offset - 1];
  }

  isClosed(): boolean {
    return this.closed;
  }

  nextChange(signal?: AbortSignal): Promise<void> {
    return this.notifier.next(signal);
  }

  // --- machinery ----------------------------------------------------------------------------

  private changeSupply<T extends CommandResult>(
    op: SupplyEntry['op'],
    request: Parameters<LocalLedger['mint']>[0],
  ): Promise<T> {
    const commandId = request.commandId === undefined ? null : checkCommandId(request.commandId);
    return this.run(() => {
      const at = this.nowMs();
      const prior = commandId === null ? null : this.deduplicated(commandId, at);
      if (prior) return prior as T;
      const { owner } = request;
      const instrument = checkInstrument(request.instrument);
      const amount = amountText(request.amount);
      return this.commit({ op, at, commandId, owner, instrument, amount }) as T;
    });
  }

  /** A port submission: faults apply, a committed `commandId` returns its first outcome. */
  private async submit<T extends StoredResult>(
    commandId: string,
    entryAt: (atMs: EpochMs) => ChangeEntry,
  ): Promise<T> {
    checkCommandId(commandId);
    this.assertOpen();
    await this.faults.delay();
    return this.run(() => {
      if (this.faults.rejectsSubmission()) {
        throw new LedgerError('rejected', 'the ledger refused the submission (injected fault)');
      }
      const at = this.nowMs();
      const result = this.deduplicated(commandId, at) ?? this.commit(entryAt(at));
      if (this.faults.timesOutAfterCommit()) {
        throw new LedgerError('timeout', `no answer for ${commandId} in time (injected fault)`);
      }
      return result as T;
    });
  }

  private deduplicated(commandId: string, atMs: number): StoredResult | null {
    return deduplicatedResult(this.state, commandId, atMs, this.settings.deduplicationPeriodMs);
  }

  /** Runs `work` after every earlier call, with due items settled and the timer re-armed. */
  private run<T>(work: () => T): Promise<T> {
    const result = this.tail.then(() => {
      this.assertOpen();
      try {
        this.settleDue();
        return work();
      } finally {
        this.schedule();
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Applies and journals one change; the journal write completes before anyone hears of it. */
  private commit(entry: ChangeEntry): StoredResult | undefined {
    const endBefore = this.state.updates.length;
    const result = applyEntry(this.state, entry);
    try {
      this.journal?.append(entry);
    } catch (error) {
      // Memory is now ahead of the journal: stop rather than acknowledge what would be lost.
      void this.close();
      throw error;
    }
    if (this.state.updates.length > endBefore) this.notifier.notify();
    return result;
  }

  private settleDue(): void {
    const at = this.nowMs();
    if (isDue(this.state, at)) this.commit({ op: 'settle', at });
  }

  private nowMs(): EpochMs {
    return ledgerTimeMs(Date.now(), this.state.clockSkewMs, lastRecordTimeMs(this.state));
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    const waitMs = Math.max(nextDueMs(this.state) - this.nowMs(), 0) + 1;
    this.timer = setTimeout(
      () => {
        this.run(() => undefined).catch(() => undefined);
      },
      Math.min(waitMs, TIMER_DELAY_MAX_MS),
    );
    this.timer.unref();
  }

  private assertOpen(): void {
    if (this.closed) throw new LedgerError('closed', 'the ledger is closed');
  }
}
