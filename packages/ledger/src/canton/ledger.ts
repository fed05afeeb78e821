/**
 * The `canton` ledger adapter: the ledger port over a participant's JSON Ledger API v2, the
 * Token Standard registries and the validator's scan proxy.
 *
 * Decisions Canton's truth forced (docs/decisions.md, "Canton adapter"):
 * - Deduplication is Canton's: (userId, actAs, commandId). A resubmission that reaches the
 *   participant is refused as DUPLICATE_COMMAND and resolved to the first outcome through the
 *   completion and its transaction. Commands this process committed are also answered from a
 *   local index without asking the ledger again.
 * - Refusals the adapter can see coming (amount, metadata, unknown party, a self-transfer, a
 *   deadline already passed, not enough holdings, an offer that is gone, the wrong actor) are
 *   decided before anything is submitted, so they provably changed nothing.
 * - Ledger time is the latest record time the participant reported: of a transaction or of an
 *   offset checkpoint. `now()` asks for the update range ending at the ledger end, which ends
 *   with the checkpoint that carries the current time.
 */

import { Amount, fingerprint, type Instrument } from '@poolparty/core';
import {
  type ActingRight,
  type AllocateCommand,
  type AllocateOutcome,
  type Allocation,
  type AllocationCommand,
  type CommandCompletion,
  type CommandResult,
  type ExecuteAtomicSwapCommand,
  type Holding,
  LedgerError,
  type LedgerUpdate,
  type MiningRound,
  type OfferCommand,
  type Offset,
  type PartyInfo,
  type PrepareAtomicSwapCommand,
  type PreparedAtomicSwap,
  type SettlementCommand,
  type SplitHoldingCommand,
  type SplitOutcome,
  type TrafficParameters,
  type TransferCommand,
  type TransferOffer,
  type TransferOutcome,
  type UpdateSubscription,
} from '../port.js';
import { checkMeta, checkSplit, splitOutcomeOf } from '../rules.js';
import { ActiveSets } from './active-sets.js';
import { CantonAllocations } from './allocations.js';
import { cantonSwapParticipant } from './atomic-swap-participant.js';
import { InteractiveAtomicSwaps } from './atomic-swaps.js';
import { tokenSource } from './auth.js';
import {
  factoryTransfer,
  instructionCommand,
  jsCommands,
  selectTransferInputs,
  transferChoiceArgument,
  transferOutcomeOf,
} from './commands.js';
import { CompletionIndex } from './completions.js';
import { CantonRequestError, isDuplicateCommand } from './errors.js';
import { type PartyScope, transactionFormat } from './filters.js';
import { CLAIM_ROUNDS_MAX, HoldingClaims } from './holding-claims.js';
import { needsLockOffers, withLockOffers } from './holdings.js';
import { JsonHttpClient } from './http.js';
import { signersOf } from './interactive-submission.js';
import { OfferBook } from './offer-book.js';
import type { CantonLedger, CantonLedgerOptions } from './options.js';
import { namespaceOf, ParticipantClient, recordTimeOf, transactionOf } from './participant.js';
import {
  disclosedContractsOf,
  type InstructionChoice,
  RegistryClient,
  registryUrls,
} from './registry.js';
import { ScanProxyClient } from './scan.js';
import { httpUpdates, type StreamContext, streamError, webSocketUpdates } from './update-stream.js';
import {
  type Command,
  type CreatedEvent,
  createdHoldings,
  type DisclosedContract,
  decodeHolding,
  HOLDING_INTERFACE_ID,
  type JsTransaction,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from './wire/index.js';

const DEFAULT_SUBMIT_TIMEOUT_MS = 30_000;
/** Commands of this process answered without asking the ledger: the latest this many. */
const SUBMITTED_KEPT = 100_000;
/** Lifetime of an offer whose command gives no `executeBefore`. */
const DEFAULT_OFFER_LIFETIME_MS = 24 * 60 * 60_000;

/** One command to submit for one party. */
interface CommandSubmission {
  readonly commandId: string;
  readonly party: string;
  readonly command: Command;
  readonly disclosedContracts: readonly DisclosedContract[];
  readonly kind: 'submit' | 'offer';
}

/** A command this process committed, with what the port answered for it. */
interface Submitted {
  readonly completion: CommandCompletion;
  readonly transfer?: TransferOutcome;
  readonly result?: CommandResult;
  readonly split?: SplitOutcome;
}

function checkCommandId(commandId: unknown): string {
  if (typeof commandId !== 'string' || commandId.length === 0) {
    throw new TypeError('commandId must be a non-empty string');
  }
  return commandId;
}

function checkOffset(offset: unknown): void {
  if (!(typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0)) {
    throw new RangeError(`an offset is a non-negative integer, not ${String(offset)}`);
  }
}

function checkUrl(value: unknown, name: string): string {
  try {
    const url = new URL(String(value));
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // refused below
  }
  throw new RangeError(`${name} must be an http(s) URL, not ${String(value)}`);
}

function originOf(url: string): string {
  return new URL(url).origin;
}

/** Opens the adapter; reads the participant id and the user's rights, so a wrong URL, credential or user fails here. */
export async function openCantonLedger(options: CantonLedgerOptions): Promise<CantonLedger> {
  const ledger = new CantonLedgerImpl(options);
  await ledger.start();
  return ledger;
}

class CantonLedgerImpl implements CantonLedger {
  private readonly participant: ParticipantClient;
  private readonly registry: RegistryClient;
  private readonly scan: ScanProxyClient;
  private readonly userId: string;
  private readonly submitTimeoutMs: number;
  private readonly closing = new AbortController();
  private participantNamespace = '';
  private latestRecordTimeMs: number | null = null;
  /** The reading of the ledger's time under way, which callers meanwhile share. */
  private timeReading: Promise<Date> | null = null;
  /** The ledger-end read the callers of this turn of the event loop share, until it is sent. */
  private endAsked: Promise<Offset> | null = null;
  private readonly submitted = new Map<string, Submitted>();
  private readonly claims = new HoldingClaims();
  private readonly knownParties = new Set<string>();
  private readonly offers: OfferBook;
  private readonly completions: CompletionIndex;
  /** Each party's holdings and instructions, caught up from one read to the next. */
  private readonly activeSets: ActiveSets;
  private readonly allocations: CantonAllocations;
  private readonly atomicSwaps: InteractiveAtomicSwaps;

  constructor(private readonly options: CantonLedgerOptions) {
    const ledgerApiUrl = checkUrl(options.ledgerApiUrl, 'ledgerApiUrl');
    checkUrl(options.scanProxyUrl, 'scanProxyUrl');
    for (const url of registryUrls(options.registries ?? { defaultUrl: '' })) {
      checkUrl(url, 'a registry URL');
    }
    if (typeof options.userId !== 'string' || options.userId.length === 0) {
      throw new RangeError('userId must be a non-empty string');
    }
    this.userId = options.userId;
    const timeout = options.submitTimeoutMs ?? DEFAULT_SUBMIT_TIMEOUT_MS;
    if (!(Number.isFinite(timeout) && timeout > 0)) {
      throw new RangeError(`submitTimeoutMs must be positive, not ${timeout}`);
    }
    this.submitTimeoutMs = timeout;
    const http = new JsonHttpClient(tokenSource(options.auth, options.userId));
    const participant = new ParticipantClient(http, ledgerApiUrl, options.userId);
    this.participant = participant;
    // The ledger token goes only to this participant's own services, never to a third party's
    // registry.
    const own = new Set([originOf(options.ledgerApiUrl), originOf(options.scanProxyUrl)]);
    this.registry = new RegistryClient(http, options.registries, (base) => own.has(originOf(base)));
    this.scan = new ScanProxyClient(http, options.scanProxyUrl);
    this.offers = new OfferBook(
      async (offerId) => participant.instructionEvent(offerId, await participant.readScope()),
      async (allocationId) =>
        participant.allocationEvent(allocationId, await participant.readScope()),
    );
    this.completions = new CompletionIndex((beginExclusive, parties) =>
      participant.completionsPage(beginExclusive, parties),
    );
    this.allocations = new CantonAllocations({
      participant,
      registry: this.registry,
      userId: this.userId,
      submitTimeoutMs: this.submitTimeoutMs,
      ...(options.externalSigners !== undefined && { externalSigners: options.externalSigners }),
      now: () => this.now(),
      ledgerEnd: () => this.ledgerEnd(),
      getHoldings: (partyId) => this.getHoldings(partyId),
      requireParty: (partyId) => this.requireParty(partyId),
      decode: (commandId, transaction) => this.decodeCommitted(commandId, transaction),
      firstTransaction: (commandId, party) => this.firstTransaction(commandId, party),
    });
    this.atomicSwaps = new InteractiveAtomicSwaps({
      participant: cantonSwapParticipant({
        participant,
        registry: this.registry,
        submitTimeoutMs: this.submitTimeoutMs,
        decode: (commandId, transaction) => this.decodeCommitted(commandId, transaction),
        firstTransaction: (commandId, party) => this.firstTransaction(commandId, party),
      }),
      userId: this.userId,
      ...(options.externalSigners !== undefined && { externalSigners: options.externalSigners }),
      now: () => this.now(),
      getHoldings: (partyId) => this.getHoldings(partyId),
      requireParty: (partyId) => this.requireParty(partyId),
      isSigningKeyOf: (partyId, key) => this.isSigningKeyOf(partyId, key),
      endAside: (holdingIds, spent) => this.claims.endAside(holdingIds, spent),
    });
    this.activeSets = new ActiveSets({
      list: (party, interfaceId, offset) =>
        participant.activeContracts(offset, { kind: 'parties', parties: [party] }, interfaceId),
      changes: (party, interfaceId, beginExclusive, endInclusive) =>
        participant.activeSetChanges(party, interfaceId, beginExclusive, endInclusive),
    });
  }

  async start(): Promise<void> {
    this.participantNamespace = await this.participant.namespace();
    // The user's rights: an unknown user, or a token for another one, fails here and not at the
    // first submission.
    await this.participant.readScope();
  }

  // --- reads ---------------------------------------------------------------------------------

  async getParty(partyId: string): Promise<PartyInfo | null> {
    this.assertOpen();
    if (typeof partyId !== 'string' || namespaceOf(partyId) === null) return null;
    if (!(await this.participant.knowsParty(partyId))) return null;
    this.knownParties.add(partyId);
    // External parties live in the namespace of their own key, internal ones in the
    // participant's.
    const kind = namespaceOf(partyId) === this.participantNamespace ? 'internal' : 'external';
    return { partyId, kind };
  }

  /**
   * The user's `CanActAs` right for the party, or a key held for it (`externalSigners`). A
   * party's kind is no sign of either: it is derived from the namespace, and on the devnet ledger
   * server every party has its own.
   */
  async canActAs(partyId: string): Promise<ActingRight> {
    this.assertOpen();
    if (this.options.externalSigners?.(partyId) !== undefined) return { canAct: true };
    if ((await this.participant.actAsParties()).has(partyId)) return { canAct: true };
    return {
      canAct: false,
      reason: `the participant's user ${this.userId} has no CanActAs right for it`,
    };
  }

  /**
   * Whether the key's fingerprint is the party's namespace: true for the key an external party
   * was created with. A party whose namespace delegates to further keys is not seen through.
   */
  async isSigningKeyOf(partyId: string, rawPublicKey: Uint8Array): Promise<boolean> {
    this.assertOpen();
    if (!(rawPublicKey instanceof Uint8Array) || rawPublicKey.length !== 32) return false;
    if (typeof partyId !== 'string' || namespaceOf(partyId) !== fingerprint(rawPublicKey)) {
      return false;
    }
    return (await this.getParty(partyId)) !== null;
  }

  listInstruments(): Promise<readonly Instrument[]> {
    this.assertOpen();
    return this.registry.instruments();
  }

  /**
   * Unknown parties hold nothing: an empty list, not an error. A lock that does not name its
   * offer gets it from the party's pending instructions (read at the same offset).
   */
  async getHoldings(partyId: string): Promise<readonly Holding[]> {
    this.assertOpen();
    if (typeof partyId !== 'string' || namespaceOf(partyId) === null) return [];
    const end = await this.ledgerEnd();
    const events = await this.partyContracts(partyId, HOLDING_INTERFACE_ID, end);
    const holdings = events.flatMap((event) => {
      const holding = decodedHolding(event);
      return holding !== null && holding.owner === partyId ? [holding] : [];
    });
    if (!needsLockOffers(holdings)) return holdings;
    return withLockOffers(
      holdings,
      await this.partyContracts(partyId, TRANSFER_INSTRUCTION_INTERFACE_ID, end),
    );
  }

  /** Instructions stay pending past their deadline on Canton; expired ones are listed too. */
  async getPendingOffers(partyId: string): Promise<readonly TransferOffer[]> {
    this.assertOpen();
    const end = await this.ledgerEnd();
    const events = await this.partyContracts(partyId, TRANSFER_INSTRUCTION_INTERFACE_ID, end);
    return this.offers
      .learn(events)
      .filter((offer) => offer.sender === partyId || offer.receiver === partyId);
  }

  async lookupCommand(commandId: string): Promise<CommandCompletion | null> {
    this.assertOpen();
    checkCommandId(commandId);
    const known = this.submitted.get(commandId);
    if (known !== undefined) return known.completion;
    return this.completions.lookup(commandId, await this.completionParties());
  }

  /**
   * Callers asking in the same turn of the event loop share one read, sent once they all asked:
   * a transfer reads the time and its sender's holdings together, a round every pool's holdings.
   * The read starts after each of them asked, so each sees every commit it knew of (unlike a read
   * already under way, which may have left before that commit).
   */
  async ledgerEnd(): Promise<Offset> {
    this.assertOpen();
    if (this.endAsked === null) {
      this.endAsked = Promise.resolve().then(() => {
        this.endAsked = null;
        return this.participant.ledgerEnd();
      });
    }
    return this.endAsked;
  }

  updates(fromOffset: Offset, subscription: UpdateSubscription = {}): AsyncIterable<LedgerUpdate> {
    return this.stream(fromOffset, subscription);
  }

  /**
   * Callers who ask while a reading is under way share it (a price book's two reads ask
   * together): a reading that began before they asked is still a lower bound of the ledger's
   * time. The service's own commits are noted as they are answered, so a shared reading never
   * goes behind them.
   */
  now(): Promise<Date> {
    this.assertOpen();
    if (this.timeReading === null) {
      this.timeReading = this.readTime().finally(() => {
        this.timeReading = null;
      });
    }
    return this.timeReading;
  }

  private async readTime(): Promise<Date> {
    const end = await this.ledgerEnd();
    const scope = await this.participant.readScope();
    const readsSomeone = scope.kind === 'any' || scope.parties.length > 0;
    if (end > 0 && readsSomeone) {
      try {
        const items = await this.participant.updatesBetween(end - 1, end, scope);
        for (const item of items) this.noteTime(recordTimeOf(item));
      } catch (error) {
        // The clock is read from the latest record time seen; a participant briefly unable to
        // answer (a 5xx, a timeout) leaves that reading as it was rather than failing the caller.
        if (!(error instanceof LedgerError && error.retryable)) throw error;
      }
    }
    // A participant that reported nothing yet has no time of its own to tell.
    return new Date(this.latestRecordTimeMs ?? Date.now());
  }

  async openMiningRound(): Promise<MiningRound> {
    return this.scan.openMiningRound(await this.now());
  }

  async trafficParameters(): Promise<TrafficParameters> {
    return this.scan.trafficParameters(await this.now());
  }

  // --- commands ------------------------------------------------------------------------------

  submitTransfer(command: TransferCommand): Promise<TransferOutcome> {
    this.assertOpen();
    return this.transferNow(command);
  }

  /**
   * A self-transfer naming the holding as its only input (the registry's `self` kind). The
   * holding is claimed as a transfer's inputs are, so no other transfer of the owner in this
   * process names it meanwhile; one that another transfer names is refused, not waited for.
   */
  async splitHolding(command: SplitHoldingCommand): Promise<SplitOutcome> {
    this.assertOpen();
    const commandId = checkCommandId(command.commandId);
    const prior = this.submitted.get(commandId)?.split;
    if (prior !== undefined) return prior;
    const { owner, holdingId } = command;
    await this.requireParty(owner);
    const time = this.now();
    time.catch(() => undefined);
    const found = (await this.getHoldings(owner)).find((h) => h.holdingId === holdingId);
    if (found === undefined) {
      // Spent, perhaps by this very command's earlier commit (before a restart).
      const first = await this.firstTransaction(commandId, owner);
      if (first !== null) return this.splitCommitted(command, first);
    }
    const holding = checkSplit(command, found);
    if (this.claims.taken(owner, holdingId)) {
      throw new LedgerError('invalid_inputs', `holding ${holdingId} is named by another transfer`);
    }
    this.claims.claim(owner, [holdingId]);
    let spent = false;
    try {
      const requestedAt = await time;
      const argument = transferChoiceArgument({
        sender: owner,
        receiver: owner,
        instrument: holding.instrument,
        amount: command.amount,
        meta: { ...command.meta },
        requestedAt,
        executeBefore: new Date(requestedAt.getTime() + DEFAULT_OFFER_LIFETIME_MS),
        inputHoldingIds: [holdingId],
      });
      const factory = await this.registry.transferFactory(holding.instrument.admin, argument);
      const transaction = await this.submitForTransaction({
        commandId,
        party: owner,
        ...factoryTransfer(factory, argument),
        kind: 'submit',
      });
      spent = true;
      return await this.splitCommitted(command, transaction);
    } finally {
      this.claims.release(owner, [holdingId], spent);
    }
  }

  /** The outcome of a split that committed as `transaction`, remembered for a resubmission. */
  private async splitCommitted(
    command: SplitHoldingCommand,
    transaction: JsTransaction,
  ): Promise<SplitOutcome> {
    const update = await this.decodeCommitted(command.commandId, transaction);
    const split = splitOutcomeOf(update, command, createdHoldings(transaction));
    return this.remember(update, command.commandId, { split }).split;
  }

  private async transferNow(command: TransferCommand): Promise<TransferOutcome> {
    const commandId = checkCommandId(command.commandId);
    const prior = this.submitted.get(commandId)?.transfer;
    if (prior !== undefined) return prior;
    const { sender, receiver, instrument, amount } = command;
    if (!(amount instanceof Amount) || !amount.isPositive()) {
      throw new LedgerError('invalid_amount', `amount must be a positive Amount, not ${amount}`);
    }
    const meta = Object.fromEntries(
      Object.entries(command.meta ?? {}).map(([key, value]) => [key, String(value)]),
    );
    checkMeta(meta);
    if (!isInstrument(instrument)) {
      throw new LedgerError('unknown_instrument', 'an instrument has a non-empty admin and id');
    }
    await this.requireParty(sender);
    await this.requireParty(receiver);
    if (sender === receiver) {
      throw new LedgerError('not_authorized', 'a party cannot transfer to itself');
    }
    // The time and the sender's holdings are independent reads: asked together.
    const time = this.now();
    time.catch(() => undefined);
    const inputs = await this.claimInputs({
      sender,
      instrument,
      amount,
      commandId,
      avoid: command.avoidHoldingIds ?? [],
    });
    let spent = false;
    try {
      const outcome = await this.transferFrom(command, commandId, meta, await time, inputs);
      spent = outcome.spent;
      return outcome.transfer;
    } finally {
      this.claims.release(sender, inputs.holdingIds, spent);
    }
  }

  /**
   * Reads the sender's holdings and claims the inputs of a transfer of `amount` among those no
   * other transfer of this process named, no swap holds (holding-claims.ts) and the caller does
   * not avoid; when they fall short while others of the sender's transfers run, waits for one to
   * end and reads again.
   */
  private async claimInputs(transfer: {
    readonly sender: string;
    readonly instrument: Instrument;
    readonly amount: Amount;
    readonly commandId: string;
    readonly avoid: readonly string[];
  }) {
    const { sender, amount } = transfer;
    const avoided = new Set(transfer.avoid);
    for (let round = 0; ; round += 1) {
      const releasesBefore = this.claims.releases(sender);
      const holdings = await this.getHoldings(sender);
      const inputs = selectTransferInputs(
        holdings,
        transfer,
        (id) => avoided.has(id) || this.claims.taken(sender, id),
      );
      const short = inputs.total.lt(amount) && round < CLAIM_ROUNDS_MAX;
      // A transfer that ended during the read may have spent what the read still lists and made
      // change it does not list yet: read again rather than come up short.
      if (short && this.claims.releases(sender) !== releasesBefore) continue;
      if (!short || !this.claims.busy(sender)) {
        this.claims.claim(sender, inputs.holdingIds);
        return inputs;
      }
      await this.claims.nextRelease(sender);
    }
  }

  /** Submits the transfer from the claimed inputs; `spent` when it committed (now or before). */
  private async transferFrom(
    command: TransferCommand,
    commandId: string,
    meta: Record<string, string>,
    requestedAt: Date,
    inputs: { readonly holdingIds: readonly string[]; readonly total: Amount },
  ): Promise<{ transfer: TransferOutcome; spent: boolean }> {
    const { sender, receiver, instrument, amount } = command;
    const executeBefore =
      command.executeBefore ?? new Date(requestedAt.getTime() + DEFAULT_OFFER_LIFETIME_MS);
    if (!(executeBefore instanceof Date) || Number.isNaN(executeBefore.getTime())) {
      throw new TypeError('executeBefore must be a valid Date');
    }
    if (executeBefore.getTime() <= requestedAt.getTime()) {
      throw new LedgerError('offer_expired', 'executeBefore is not in the future');
    }
    const argument = transferChoiceArgument({
      sender,
      receiver,
      instrument,
      amount,
      meta,
      requestedAt,
      executeBefore,
      inputHoldingIds: inputs.holdingIds,
    });
    // The registry first: it is what knows whether the instrument exists.
    const factory = await this.registry.transferFactory(instrument.admin, argument);
    if (inputs.total.lt(amount)) {
      // Spent, perhaps by this very command's earlier commit (before a restart).
      const first = await this.committed(commandId, sender);
      if (first !== null) {
        const transfer = transferOutcomeOf(first);
        return { transfer: this.remember(first, commandId, { transfer }).transfer, spent: false };
      }
      throw new LedgerError(
        'insufficient_holdings',
        `${sender} holds ${inputs.total} unlocked ${instrument.id}, needs ${amount}`,
      );
    }
    const update = await this.submitCommand({
      commandId,
      party: sender,
      ...factoryTransfer(factory, argument),
      kind: 'submit',
    });
    const transfer = transferOutcomeOf(update);
    return { transfer: this.remember(update, commandId, { transfer }).transfer, spent: true };
  }

  acceptOffer(command: OfferCommand): Promise<CommandResult> {
    return this.offerChoice(command, 'accept');
  }

  rejectOffer(command: OfferCommand): Promise<CommandResult> {
    return this.offerChoice(command, 'reject');
  }

  withdrawOffer(command: OfferCommand): Promise<CommandResult> {
    return this.offerChoice(command, 'withdraw');
  }

  // --- allocations (allocations.ts) ---------------------------------------------------------

  getAllocations(partyId: string): Promise<readonly Allocation[]> {
    this.assertOpen();
    return this.allocations.getAllocations(partyId);
  }

  allocate(command: AllocateCommand): Promise<AllocateOutcome> {
    return this.checked(command.commandId, () => this.allocations.allocate(command));
  }

  executeSettlement(command: SettlementCommand): Promise<CommandResult> {
    return this.checked(command.commandId, () => this.allocations.executeSettlement(command));
  }

  cancelAllocation(command: AllocationCommand): Promise<CommandResult> {
    return this.checked(command.commandId, () => this.allocations.cancelAllocation(command));
  }

  withdrawAllocation(command: AllocationCommand): Promise<CommandResult> {
    return this.checked(command.commandId, () => this.allocations.withdrawAllocation(command));
  }

  // --- atomic swaps (atomic-swaps.ts) ---------------------------------------------------------

  setAsideForSwap(
    owner: string,
    pick: (taken: (holdingId: string) => boolean) => readonly string[],
    forMs: number,
  ): void {
    this.assertOpen();
    // No await between the pick and setting its holdings aside: no transfer claims one between.
    const picked = pick((holdingId) => this.claims.taken(owner, holdingId));
    this.claims.setAside(owner, picked, Date.now() + forMs);
  }

  endSetAside(holdingIds: readonly string[]): void {
    this.claims.endAside(holdingIds, false);
  }

  prepareAtomicSwap(command: PrepareAtomicSwapCommand): Promise<PreparedAtomicSwap> {
    return this.checked(command.commandId, () => this.atomicSwaps.prepare(command));
  }

  executeAtomicSwap(command: ExecuteAtomicSwapCommand): Promise<CommandResult> {
    return this.checked(command.prepared?.commandId, () => this.atomicSwaps.execute(command));
  }

  async close(): Promise<void> {
    this.closing.abort();
  }

  // --- machinery -----------------------------------------------------------------------------

  /** A command's call, once the adapter is open and the command id is one the ledger takes. */
  private checked<T>(commandId: string | undefined, call: () => Promise<T>): Promise<T> {
    this.assertOpen();
    checkCommandId(commandId);
    return call();
  }

  private async offerChoice(command: OfferCommand, choice: InstructionChoice) {
    this.assertOpen();
    const commandId = checkCommandId(command.commandId);
    const prior = this.submitted.get(commandId)?.result;
    if (prior !== undefined) return prior;
    const { offerId, actor } = command;
    const offer = await this.pendingOffer(offerId, actor);
    if (offer === null) {
      // Gone, perhaps by this very command's earlier commit (before a restart).
      const first = await this.committed(commandId, actor);
      if (first !== null)
        return this.remember(first, commandId, { result: resultOf(first) }).result;
      throw new LedgerError('offer_not_found', `no pending offer ${offerId}`);
    }
    const entitled = choice === 'withdraw' ? offer.sender : offer.receiver;
    if (actor !== entitled) {
      const role = choice === 'withdraw' ? 'sender' : 'receiver';
      throw new LedgerError('not_authorized', `only the ${role} may ${choice} offer ${offerId}`);
    }
    // Canton does not archive an expired instruction; accepting it fails in the registry's
    // code. The adapter knows the deadline and says so before submitting.
    if (choice === 'accept' && (await this.now()).getTime() >= offer.executeBefore.getTime()) {
      throw new LedgerError(
        'offer_expired',
        `offer ${offerId} expired at ${offer.executeBefore.toISOString()}`,
      );
    }
    const context = await this.registry.choiceContext(offer.instrument.admin, offerId, choice);
    const update = await this.submitCommand({
      commandId,
      party: actor,
      command: instructionCommand(offerId, choice, context),
      disclosedContracts: disclosedContractsOf(context),
      kind: 'offer',
    });
    return this.remember(update, commandId, { result: resultOf(update) }).result;
  }

  /** Submits one command for `party` and answers its transaction, decoded. */
  private async submitCommand(input: CommandSubmission): Promise<LedgerUpdate> {
    return this.decodeCommitted(input.commandId, await this.submitForTransaction(input));
  }

  /** Submits one command for `party` and answers its transaction (a duplicate's first one). */
  private async submitForTransaction(input: CommandSubmission): Promise<JsTransaction> {
    const { commandId, party, kind } = input;
    const commands = jsCommands({
      command: input.command,
      commandId,
      actAs: party,
      userId: this.userId,
      disclosedContracts: input.disclosedContracts,
    });
    try {
      return await this.participant.submitAndWaitForTransaction({
        commands,
        transactionFormat: transactionFormat({ kind: 'parties', parties: [party] }),
        kind,
        timeoutMs: this.submitTimeoutMs,
        externalSigners: signersOf([party], this.options.externalSigners),
      });
    } catch (error) {
      if (error instanceof CantonRequestError && isDuplicateCommand(error.failure)) {
        return this.firstOutcome(commandId, party);
      }
      throw error;
    }
  }

  /**
   * A committed transaction the codec cannot read: the command took effect but its outcome is
   * unknown to the caller, who resolves it like any other timeout.
   */
  private async decodeCommitted(commandId: string, transaction: JsTransaction) {
    try {
      const update = await this.offers.decodeTransaction(transaction);
      this.noteTime(update.recordTime);
      return update;
    } catch (error) {
      if (error instanceof LedgerError) throw error;
      throw new LedgerError(
        'timeout',
        `${commandId} committed as ${transaction.updateId}, but its transaction is unreadable: ${(error as Error).message}`,
      );
    }
  }

  /** The transaction of a command Canton refused as a duplicate: its first commit. */
  private async firstOutcome(commandId: string, party: string): Promise<JsTransaction> {
    const first = await this.firstTransaction(commandId, party);
    if (first === null) {
      throw new LedgerError(
        'timeout',
        `${commandId} is a duplicate, but its first commit is not readable yet; see lookupCommand`,
      );
    }
    return first;
  }

  /** The update an earlier submission of `commandId` for `party` committed, or null. */
  private async committed(commandId: string, party: string): Promise<LedgerUpdate | null> {
    const transaction = await this.firstTransaction(commandId, party);
    return transaction === null ? null : this.decodeCommitted(commandId, transaction);
  }

  /** The transaction an earlier submission of `commandId` committed, as `party` sees it. */
  private async firstTransaction(commandId: string, party: string): Promise<JsTransaction | null> {
    const parties = await this.completionParties();
    const completion = await this.completions.lookup(
      commandId,
      parties.includes(party) ? parties : [...parties, party],
    );
    return completion === null ? null : this.participant.transactionAt(completion.offset, party);
  }

  /** The parties whose completions the user can read: its rights, or every party it sees. */
  private async completionParties(): Promise<readonly string[]> {
    const scope = await this.participant.readScope();
    return scope.kind === 'parties' ? scope.parties : this.participant.parties();
  }

  /** The created events of active contracts of `interfaceId` with `partyId` as stakeholder. */
  private async partyContracts(
    partyId: string,
    interfaceId: string,
    offset: Offset,
  ): Promise<CreatedEvent[]> {
    if (typeof partyId !== 'string' || namespaceOf(partyId) === null) return [];
    try {
      return await this.activeSets.read(partyId, interfaceId, offset);
    } catch (error) {
      if (error instanceof LedgerError && (await this.getParty(partyId)) === null) return [];
      throw error;
    }
  }

  /**
   * The offer if its instruction is still active: as the actor sees it, else as any party the
   * user reads as sees it (then the actor is not a party to it).
   */
  private async pendingOffer(offerId: string, actor: string): Promise<TransferOffer | null> {
    if (typeof offerId !== 'string' || offerId.length === 0) return null;
    const mine = await this.getPendingOffers(actor);
    const own = mine.find((offer) => offer.offerId === offerId);
    if (own !== undefined) return own;
    const end = await this.ledgerEnd();
    const scope = await this.participant.readScope();
    const all = this.offers.learn(
      await this.participant.activeContracts(end, scope, TRANSFER_INSTRUCTION_INTERFACE_ID),
    );
    return all.find((offer) => offer.offerId === offerId) ?? null;
  }

  private async *stream(
    fromOffset: Offset,
    subscription: UpdateSubscription,
  ): AsyncGenerator<LedgerUpdate, void, undefined> {
    checkOffset(fromOffset);
    this.assertOpen();
    const signals = [this.closing.signal];
    if (subscription.signal) signals.push(subscription.signal);
    const signal = AbortSignal.any(signals);
    const parties = subscription.parties === undefined ? undefined : [...subscription.parties];
    let scope: PartyScope;
    try {
      scope =
        parties === undefined ? await this.participant.readScope() : { kind: 'parties', parties };
      // The offers pending where the stream starts: their accept / reject / withdraw may follow.
      this.offers.learn(
        await this.participant.activeContracts(
          Math.min(fromOffset, await this.ledgerEnd()),
          scope,
          TRANSFER_INSTRUCTION_INTERFACE_ID,
        ),
      );
    } catch (error) {
      // Stopped (or the adapter closed) while starting: end quietly, as a running stream does.
      if (signal.aborted) return;
      throw error instanceof LedgerError ? streamError(error) : error;
    }
    if (scope.kind === 'parties' && scope.parties.length === 0) {
      // Nobody to read for: nothing will ever come, until the subscriber stops.
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return;
    }
    const context: StreamContext = {
      http: this.participant.http,
      ledgerApiUrl: this.participant.ledgerApiUrl,
      scope,
      parties,
      signal,
      decode: (item) => this.offers.decodeItem(item, transactionOf(item)),
      onRecordTime: (time) => this.noteTime(time),
    };
    if (this.options.transport === 'http') {
      yield* httpUpdates(context, fromOffset, () => this.ledgerEnd());
    } else {
      yield* webSocketUpdates(context, fromOffset);
    }
  }

  private async requireParty(partyId: string): Promise<void> {
    if (this.knownParties.has(partyId)) return;
    if ((await this.getParty(partyId)) === null) {
      throw new LedgerError('unknown_party', `the ledger does not know party ${partyId}`);
    }
  }

  private remember<A extends Pick<Submitted, 'transfer' | 'result' | 'split'>>(
    update: LedgerUpdate,
    commandId: string,
    answer: A,
  ): A {
    const { updateId, offset, recordTime } = update;
    // Bounded: older commands are answered from the completions, as after a restart.
    if (this.submitted.size >= SUBMITTED_KEPT) {
      const oldest = this.submitted.keys().next().value;
      if (oldest !== undefined) this.submitted.delete(oldest);
    }
    this.submitted.set(commandId, {
      completion: { commandId, updateId, offset, recordTime },
      ...answer,
    });
    return answer;
  }

  private noteTime(time: Date | null): void {
    if (time === null) return;
    const ms = time.getTime();
    if (Number.isNaN(ms)) return;
    if (this.latestRecordTimeMs === null || ms > this.latestRecordTimeMs) {
      this.latestRecordTimeMs = ms;
    }
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted)
      throw new LedgerError('closed', 'the ledger adapter is closed');
  }
}

/**
 * Holdings decoded, by their created event. A contract never changes and the kept active sets
 * hand back the same event objects read after read, so each holding is decoded once rather than
 * at every read of its owner's holdings (a swap party's hundreds, before every payout).
 */
const decodedHoldings = new WeakMap<CreatedEvent, Holding | null>();

function decodedHolding(event: CreatedEvent): Holding | null {
  const kept = decodedHoldings.get(event);
  if (kept !== undefined) return kept;
  const holding = decodeHolding(event);
  decodedHoldings.set(event, holding);
  return holding;
}

function isInstrument(value: unknown): value is Instrument {
  const { admin, id } = (value ?? {}) as Partial<Record<keyof Instrument, unknown>>;
  return typeof admin === 'string' && admin.length > 0 && typeof id === 'string' && id.length > 0;
}

function resultOf(update: LedgerUpdate): CommandResult {
  return { updateId: update.updateId, offset: update.offset };
}
