/**
 * The local ledger's updates, holdings and offers in Canton's JSON shapes (API 3.4.12,
 * `TRANSACTION_SHAPE_LEDGER_EFFECTS`), as the devnet ledger serves them. Contracts are instances
 * of the devnet package's templates (ids.ts) with the Token Standard interface views, and keep
 * the ledger's own ids as contract ids. Each port event becomes the subtree a Token Standard
 * registry produces for it:
 *
 * - direct `transfer`: `TransferFactory_Transfer` (result `_Completed`) → the receiver's
 *   pre-approval `TransferPreapproval_Send` (result metadata: `tx-kind` transfer, `sender`, the
 *   transfer's metadata) → `Archive` of each spent holding, the receiver's holding, the change;
 * - `offer_created`: `TransferFactory_Transfer` (result `_Pending`) → `Archive` of the inputs,
 *   the sender's locked holding, the change, the `TransferInstruction`;
 * - accepted `transfer`: `TransferInstruction_Accept` (result `_Completed`, metadata `tx-kind`
 *   transfer and `sender`) → `Archive` of the locked holding, the receiver's holding;
 * - `offer_rejected` / `offer_withdrawn`: `TransferInstruction_Reject` / `_Withdraw` (result
 *   `_Failed`, metadata `tx-kind` unlock) → `Archive` of the locked holding, the sender's holding;
 * - `mint` / `burn`: the admin's transfer factory's `Devnet_Mint` / `Devnet_Burn` (result
 *   metadata `tx-kind` mint / burn with `sender` and `burned`) → the holdings created / spent.
 *
 * Each node's `witnessParties` are the parties Canton's projection shows it to: the parties of
 * the contract's stakeholders and the choice's actors, and everyone who sees a node sees its
 * subtree. So a receiver sees a direct transfer from the pre-approval down, and an offer only as
 * the created instruction, as on a participant (`projectTransaction`).
 */
import { type Amount, type Instrument, sameInstrument } from '@poolparty/core';
import type {
  Holding,
  HoldingLock,
  LedgerEvent,
  LedgerUpdate,
  Meta,
  Offset,
  TransferOffer,
} from '../../port.js';
import { damlDecimal, damlTime } from './daml.js';
import { renderAllocationEvent } from './encode-allocations.js';
import {
  annotations,
  createdEvent,
  ids,
  instrumentIdOf,
  metadata,
  NO_EXTRA_ARGS,
  unique,
  unlockedOf,
  VIEW_OK,
} from './encode-parts.js';
import {
  ARCHIVE_CHOICE,
  BURNED_META_KEY,
  DEVNET_BURN_CHOICE,
  DEVNET_HOLDING_TEMPLATE_ID,
  DEVNET_LOCK_ALLOCATION_META_KEY,
  DEVNET_LOCK_OFFER_META_KEY,
  DEVNET_MINT_CHOICE,
  DEVNET_PACKAGE_NAME,
  DEVNET_PREAPPROVAL_SEND_CHOICE,
  DEVNET_PREAPPROVAL_TEMPLATE_ID,
  DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
  DEVNET_TRANSFER_INSTRUCTION_TEMPLATE_ID,
  HOLDING_INTERFACE_REPORTED_ID,
  preapprovalContractId,
  TRANSFER_FACTORY_INTERFACE_REPORTED_ID,
  TRANSFER_FACTORY_TRANSFER_CHOICE,
  TRANSFER_INSTRUCTION_ACCEPT_CHOICE,
  TRANSFER_INSTRUCTION_INTERFACE_REPORTED_ID,
  TRANSFER_INSTRUCTION_REJECT_CHOICE,
  TRANSFER_INSTRUCTION_WITHDRAW_CHOICE,
  TRANSFER_RESULT_COMPLETED,
  TRANSFER_RESULT_FAILED,
  TRANSFER_RESULT_PENDING,
  transferFactoryContractId,
} from './ids.js';
import type {
  CreatedEvent,
  Event,
  ExercisedEvent,
  JsGetUpdatesResponse,
  JsTransaction,
} from './types.js';

export interface EncodeTransactionInput {
  readonly update: LedgerUpdate;
  /** The holdings the update created and archived (`LocalLedger.holdingChangesAt`). */
  readonly created: readonly Holding[];
  readonly archived: readonly Holding[];
  /**
   * The offers the update touches, by offer id. Not needed by today's events, which carry every
   * detail of their offer; part of the input so a caller never has to know which events do.
   */
  readonly offers: ReadonlyMap<string, TransferOffer>;
  readonly synchronizerId: string;
  /**
   * When the update is a transfer to oneself (a merge or split, which has no port event): its
   * detail (`LocalLedger.holdingChangesAt`), shown as the factory's exercise a participant shows.
   */
  readonly selfTransfer?: SelfTransferDetail;
}

/** A transfer to oneself: whose holdings, of which instrument, the amount and the metadata. */
export interface SelfTransferDetail {
  readonly owner: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly meta: Meta;
}

export interface CreatedEventOptions {
  /** When the contract was created: the record time of the update at `offset`. Default: epoch. */
  readonly createdAt?: Date;
}

export interface TransferInstructionCreatedOptions extends CreatedEventOptions {
  /** The holdings the instruction locked (the view's `inputHoldingCids`, as Amulet shows). */
  readonly lockedHoldingIds?: readonly string[];
}

/**
 * The ledger does not keep a direct transfer's deadline (it settled at once); its factory
 * argument shows the record time plus the ledger's default offer lifetime.
 */
const DIRECT_TRANSFER_DEADLINE_MS = 24 * 60 * 60_000;

/** What the devnet tells a wallet about a lock beyond the Token Standard's fields: whose it is. */
function lockMeta(lock: HoldingLock | null): Meta {
  if (lock === null) return {};
  return {
    ...(lock.offerId !== null && { [DEVNET_LOCK_OFFER_META_KEY]: lock.offerId }),
    ...(lock.allocationId !== undefined && {
      [DEVNET_LOCK_ALLOCATION_META_KEY]: lock.allocationId,
    }),
  };
}

function holdingView(holding: Holding) {
  const { lock } = holding;
  return {
    owner: holding.owner,
    instrumentId: instrumentIdOf(holding.instrument),
    amount: damlDecimal(holding.amount),
    lock:
      lock === null
        ? null
        : {
            holders: [holding.instrument.admin],
            expiresAt: lock.expiresAt === null ? null : damlTime(lock.expiresAt),
            expiresAfter: null,
            context: lock.context,
          },
    meta: metadata(lockMeta(lock)),
  };
}

function holdingCreated(holding: Holding, offset: Offset, nodeId: number, createdAt: Date) {
  const view = holdingView(holding);
  return createdEvent(
    {
      contractId: holding.holdingId,
      templateId: DEVNET_HOLDING_TEMPLATE_ID,
      createArgument: { admin: holding.instrument.admin, ...view },
      interfaceViews: [
        { interfaceId: HOLDING_INTERFACE_REPORTED_ID, viewStatus: VIEW_OK, viewValue: view },
      ],
      signatories: [holding.instrument.admin, holding.owner],
      observers: [],
    },
    offset,
    nodeId,
    createdAt,
  );
}

/**
 * A holding's created event, with its `Holding` view (for the ACS and the update stream). The
 * synchronizer is not part of a created event (the active-contract entry around it names it);
 * the parameter keeps the signature the same as for the contracts' other renderings.
 */
export function encodeHoldingCreated(
  holding: Holding,
  offset: Offset,
  _synchronizerId: string,
  options: CreatedEventOptions = {},
): CreatedEvent {
  return holdingCreated(holding, offset, 0, options.createdAt ?? new Date(0));
}

function transferRecord(
  transfer: Omit<TransferOffer, 'offerId'>,
  requestedAt: Date,
  inputHoldingCids: readonly string[],
) {
  return {
    sender: transfer.sender,
    receiver: transfer.receiver,
    amount: damlDecimal(transfer.amount),
    instrumentId: instrumentIdOf(transfer.instrument),
    requestedAt: damlTime(requestedAt),
    executeBefore: damlTime(transfer.executeBefore),
    inputHoldingCids: [...inputHoldingCids],
    meta: metadata(transfer.meta),
  };
}

function instructionCreated(
  offer: TransferOffer,
  offset: Offset,
  nodeId: number,
  createdAt: Date,
  lockedHoldingIds: readonly string[],
) {
  const transfer = transferRecord(offer, createdAt, lockedHoldingIds);
  return createdEvent(
    {
      contractId: offer.offerId,
      templateId: DEVNET_TRANSFER_INSTRUCTION_TEMPLATE_ID,
      createArgument: { admin: offer.instrument.admin, transfer },
      interfaceViews: [
        {
          interfaceId: TRANSFER_INSTRUCTION_INTERFACE_REPORTED_ID,
          viewStatus: VIEW_OK,
          viewValue: {
            originalInstructionCid: null,
            transfer,
            status: { tag: 'TransferPendingReceiverAcceptance', value: {} },
            meta: metadata({}),
          },
        },
      ],
      signatories: [offer.instrument.admin, offer.sender],
      observers: [offer.receiver],
    },
    offset,
    nodeId,
    createdAt,
  );
}

/** An offer's `TransferInstruction` created event, with its interface view. */
export function encodeTransferInstructionCreated(
  offer: TransferOffer,
  offset: Offset,
  _synchronizerId: string,
  options: TransferInstructionCreatedOptions = {},
): CreatedEvent {
  const createdAt = options.createdAt ?? new Date(0);
  return instructionCreated(offer, offset, 0, createdAt, options.lockedHoldingIds ?? []);
}

/** The `/v2/updates` item of an offset checkpoint. */
export function encodeCheckpoint(
  offset: Offset,
  recordTime: Date,
  synchronizerId: string,
): JsGetUpdatesResponse {
  return {
    update: {
      OffsetCheckpoint: {
        value: {
          offset,
          synchronizerTimes: [{ synchronizerId, recordTime: damlTime(recordTime) }],
        },
      },
    },
  };
}

/** The `/v2/updates` item of a transaction. */
export function encodeTransactionItem(tx: JsTransaction): JsGetUpdatesResponse {
  return { update: { Transaction: { value: tx } } };
}

// --- transactions ----------------------------------------------------------------------------

/** Holdings not yet placed in the tree; each event's renderer takes the ones it accounts for. */
export class HoldingPool {
  private readonly remaining: Holding[];

  constructor(holdings: readonly Holding[]) {
    this.remaining = [...holdings];
  }

  take(matches: (holding: Holding) => boolean): Holding[] {
    const taken = this.remaining.filter(matches);
    for (const holding of taken) this.remaining.splice(this.remaining.indexOf(holding), 1);
    return taken;
  }

  /** The first matching holding only: one leg's among several legs' alike holdings. */
  takeFirst(matches: (holding: Holding) => boolean): Holding[] {
    const index = this.remaining.findIndex(matches);
    return index < 0 ? [] : this.remaining.splice(index, 1);
  }

  rest(): Holding[] {
    return this.take(() => true);
  }
}

/** The sender's holding locked for the offer (or locked without naming an offer). */
const lockedFor =
  (offer: { readonly offerId: string; readonly sender: string; readonly instrument: Instrument }) =>
  (holding: Holding): boolean =>
    holding.owner === offer.sender &&
    sameInstrument(holding.instrument, offer.instrument) &&
    holding.lock !== null &&
    (holding.lock.offerId === offer.offerId || holding.lock.offerId === null);

export interface ExerciseFields {
  readonly contractId: string;
  readonly templateId: string;
  readonly interfaceId?: string;
  readonly choice: string;
  readonly choiceArgument: unknown;
  readonly actingParties: readonly string[];
  readonly consuming: boolean;
  readonly exerciseResult: unknown;
  readonly implementedInterfaces?: readonly string[];
}

export class TreeWriter {
  readonly events: Event[] = [];
  private nextNodeId = 0;
  /** Parties that see the node being written: its own informees plus those of its ancestors. */
  private seers: readonly string[] = [];

  constructor(
    private readonly offset: Offset,
    private readonly recordTime: Date,
  ) {}

  private withSeers(parties: readonly string[]): string[] {
    return unique([...this.seers, ...parties]);
  }

  holding(holding: Holding): void {
    const event = holdingCreated(holding, this.offset, this.nextNodeId++, this.recordTime);
    event.witnessParties = this.withSeers(event.witnessParties);
    this.events.push({ CreatedEvent: event });
  }

  instruction(offer: TransferOffer, lockedHoldingIds: readonly string[]): void {
    const event = instructionCreated(
      offer,
      this.offset,
      this.nextNodeId++,
      this.recordTime,
      lockedHoldingIds,
    );
    event.witnessParties = this.withSeers(event.witnessParties);
    this.events.push({ CreatedEvent: event });
  }

  /** A created contract other than a holding or an instruction, built with its node id. */
  created(build: (offset: Offset, nodeId: number, createdAt: Date) => CreatedEvent): void {
    const event = build(this.offset, this.nextNodeId++, this.recordTime);
    event.witnessParties = this.withSeers(event.witnessParties);
    this.events.push({ CreatedEvent: event });
  }

  /** A consuming `Archive` of a spent holding: how ledger effects show it (no payload). */
  archive(holding: Holding): void {
    this.exercise(
      {
        contractId: holding.holdingId,
        templateId: DEVNET_HOLDING_TEMPLATE_ID,
        choice: ARCHIVE_CHOICE,
        choiceArgument: {},
        actingParties: [holding.instrument.admin, holding.owner],
        consuming: true,
        exerciseResult: {},
        implementedInterfaces: [HOLDING_INTERFACE_REPORTED_ID],
      },
      [holding.instrument.admin, holding.owner],
      () => undefined,
    );
  }

  /** An exercise seen by `informees` (and everyone who sees its parent), then its children. */
  exercise(fields: ExerciseFields, informees: readonly string[], children: () => void): void {
    const parentSeers = this.seers;
    this.seers = this.withSeers([...informees, ...fields.actingParties]);
    const event: ExercisedEvent = {
      offset: this.offset,
      nodeId: this.nextNodeId++,
      contractId: fields.contractId,
      templateId: fields.templateId,
      ...(fields.interfaceId === undefined ? {} : { interfaceId: fields.interfaceId }),
      choice: fields.choice,
      choiceArgument: fields.choiceArgument,
      actingParties: unique(fields.actingParties),
      consuming: fields.consuming,
      witnessParties: [...this.seers],
      lastDescendantNodeId: 0,
      exerciseResult: fields.exerciseResult,
      packageName: DEVNET_PACKAGE_NAME,
      implementedInterfaces: [...(fields.implementedInterfaces ?? [])],
      acsDelta: fields.consuming,
    };
    this.events.push({ ExercisedEvent: event });
    children();
    event.lastDescendantNodeId = this.nextNodeId - 1;
    this.seers = parentSeers;
  }
}

type TransferEvent = Extract<LedgerEvent, { kind: 'transfer' }>;

export interface RenderContext {
  readonly tree: TreeWriter;
  readonly created: HoldingPool;
  readonly archived: HoldingPool;
  readonly recordTime: Date;
}

function factoryExercise(
  admin: string,
  sender: string,
  transfer: Record<string, unknown>,
  exerciseResult: unknown,
  informees: readonly string[],
  children: () => void,
  { tree }: RenderContext,
): void {
  tree.exercise(
    {
      contractId: transferFactoryContractId(admin),
      templateId: DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
      interfaceId: TRANSFER_FACTORY_INTERFACE_REPORTED_ID,
      choice: TRANSFER_FACTORY_TRANSFER_CHOICE,
      choiceArgument: { expectedAdmin: admin, transfer, extraArgs: NO_EXTRA_ARGS },
      actingParties: [sender],
      consuming: false,
      exerciseResult,
    },
    informees,
    children,
  );
}

function directTransfer(event: TransferEvent, context: RenderContext): void {
  const { sender, receiver, instrument } = event;
  const admin = instrument.admin;
  const inputs = context.archived.take(unlockedOf(sender, instrument));
  const received = context.created.take(unlockedOf(receiver, instrument));
  const change = context.created.take(unlockedOf(sender, instrument));
  const deadline = new Date(context.recordTime.getTime() + DIRECT_TRANSFER_DEADLINE_MS);
  const transfer = transferRecord(
    { ...event, executeBefore: deadline },
    context.recordTime,
    ids(inputs),
  );
  const result = {
    output: { tag: TRANSFER_RESULT_COMPLETED, value: { receiverHoldingCids: ids(received) } },
    senderChangeCids: ids(change),
    meta: metadata(
      event.feesBurned.isZero() ? {} : { [BURNED_META_KEY]: event.feesBurned.toString() },
    ),
  };
  factoryExercise(
    admin,
    sender,
    transfer,
    result,
    [admin],
    () => {
      context.tree.exercise(
        {
          contractId: preapprovalContractId(receiver, instrument),
          templateId: DEVNET_PREAPPROVAL_TEMPLATE_ID,
          choice: DEVNET_PREAPPROVAL_SEND_CHOICE,
          choiceArgument: {
            sender,
            amount: damlDecimal(event.amount),
            inputHoldingCids: ids(inputs),
            meta: metadata(event.meta),
          },
          actingParties: [sender],
          consuming: false,
          exerciseResult: {
            receiverHoldingCids: ids(received),
            senderChangeCids: ids(change),
            meta: metadata({ ...event.meta, ...annotations('transfer', sender, event.feesBurned) }),
          },
        },
        [admin, receiver],
        () => {
          for (const holding of inputs) context.tree.archive(holding);
          for (const holding of [...received, ...change]) context.tree.holding(holding);
        },
      );
    },
    context,
  );
}

function offerCreated(offer: TransferOffer, context: RenderContext): void {
  const { sender, instrument } = offer;
  const admin = instrument.admin;
  const inputs = context.archived.take(unlockedOf(sender, instrument));
  const locked = context.created.take(lockedFor(offer));
  const change = context.created.take(unlockedOf(sender, instrument));
  const transfer = transferRecord(offer, context.recordTime, ids(inputs));
  const result = {
    output: { tag: TRANSFER_RESULT_PENDING, value: { transferInstructionCid: offer.offerId } },
    senderChangeCids: ids(change),
    meta: metadata({}),
  };
  factoryExercise(
    admin,
    sender,
    transfer,
    result,
    [admin],
    () => {
      for (const holding of inputs) context.tree.archive(holding);
      for (const holding of [...locked, ...change]) context.tree.holding(holding);
      context.tree.instruction(offer, ids(locked));
    },
    context,
  );
}

function instructionExercise(
  offer: { readonly offerId: string; readonly sender: string; readonly receiver: string },
  admin: string,
  choice: string,
  actor: string,
  exerciseResult: unknown,
  { tree }: RenderContext,
  children: () => void,
): void {
  tree.exercise(
    {
      contractId: offer.offerId,
      templateId: DEVNET_TRANSFER_INSTRUCTION_TEMPLATE_ID,
      interfaceId: TRANSFER_INSTRUCTION_INTERFACE_REPORTED_ID,
      choice,
      choiceArgument: { extraArgs: NO_EXTRA_ARGS },
      actingParties: [actor],
      consuming: true,
      exerciseResult,
      implementedInterfaces: [TRANSFER_INSTRUCTION_INTERFACE_REPORTED_ID],
    },
    [admin, offer.sender, offer.receiver],
    children,
  );
}

function acceptedTransfer(event: TransferEvent & { offerId: string }, context: RenderContext) {
  const { sender, receiver, instrument } = event;
  const spent = context.archived.take(lockedFor(event));
  const received = context.created.take(unlockedOf(receiver, instrument));
  const result = {
    output: { tag: TRANSFER_RESULT_COMPLETED, value: { receiverHoldingCids: ids(received) } },
    senderChangeCids: [],
    meta: metadata({ ...event.meta, ...annotations('transfer', sender, event.feesBurned) }),
  };
  const choice = TRANSFER_INSTRUCTION_ACCEPT_CHOICE;
  instructionExercise(event, instrument.admin, choice, receiver, result, context, () => {
    for (const holding of spent) context.tree.archive(holding);
    for (const holding of received) context.tree.holding(holding);
  });
}

function endedOffer(offer: TransferOffer, choice: string, actor: string, context: RenderContext) {
  const spent = context.archived.take(lockedFor(offer));
  const returned = context.created.take(unlockedOf(offer.sender, offer.instrument));
  const result = {
    output: { tag: TRANSFER_RESULT_FAILED, value: {} },
    senderChangeCids: ids(returned),
    meta: metadata(annotations('unlock', offer.sender)),
  };
  instructionExercise(offer, offer.instrument.admin, choice, actor, result, context, () => {
    for (const holding of spent) context.tree.archive(holding);
    for (const holding of returned) context.tree.holding(holding);
  });
}

function supplyChange(
  event: Extract<LedgerEvent, { kind: 'mint' | 'burn' }>,
  context: RenderContext,
): void {
  const { owner, instrument } = event;
  const admin = instrument.admin;
  const spent = event.kind === 'burn' ? context.archived.take(unlockedOf(owner, instrument)) : [];
  const created = context.created.take(unlockedOf(owner, instrument));
  const amount = damlDecimal(event.amount);
  const mint = event.kind === 'mint';
  context.tree.exercise(
    {
      contractId: transferFactoryContractId(admin),
      templateId: DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
      choice: mint ? DEVNET_MINT_CHOICE : DEVNET_BURN_CHOICE,
      choiceArgument: {
        owner,
        instrumentId: instrumentIdOf(instrument),
        amount,
        ...(mint ? {} : { inputHoldingCids: ids(spent) }),
      },
      actingParties: [admin, owner],
      consuming: false,
      exerciseResult: mint
        ? { holdingCids: ids(created), meta: metadata(annotations('mint', owner)) }
        : {
            senderChangeCids: ids(created),
            meta: metadata(annotations('burn', owner, event.amount)),
          },
    },
    [admin, owner],
    () => {
      for (const holding of spent) context.tree.archive(holding);
      for (const holding of created) context.tree.holding(holding);
    },
  );
}

/**
 * A transfer to oneself: the factory's exercise archiving the inputs and creating the owner's
 * holding of the amount (and change), annotated `merge-split` as Splice's registries do.
 */
function selfTransfer(merge: SelfTransferDetail, context: RenderContext): void {
  const { owner, instrument } = merge;
  const inputs = context.archived.take(unlockedOf(owner, instrument));
  const created = context.created.take(unlockedOf(owner, instrument));
  const deadline = new Date(context.recordTime.getTime() + DIRECT_TRANSFER_DEADLINE_MS);
  const transfer = transferRecord(
    { sender: owner, receiver: owner, ...merge, executeBefore: deadline },
    context.recordTime,
    ids(inputs),
  );
  const result = {
    output: { tag: TRANSFER_RESULT_COMPLETED, value: { receiverHoldingCids: ids(created) } },
    senderChangeCids: [],
    meta: metadata(annotations('merge-split', owner)),
  };
  factoryExercise(
    instrument.admin,
    owner,
    transfer,
    result,
    [instrument.admin, owner],
    () => {
      for (const holding of inputs) context.tree.archive(holding);
      for (const holding of created) context.tree.holding(holding);
    },
    context,
  );
}

function renderEvent(event: LedgerEvent, context: RenderContext): void {
  switch (event.kind) {
    case 'transfer':
      if (event.offerId === null) directTransfer(event, context);
      else acceptedTransfer({ ...event, offerId: event.offerId }, context);
      return;
    case 'offer_created':
      offerCreated(event, context);
      return;
    case 'offer_rejected':
      endedOffer(event, TRANSFER_INSTRUCTION_REJECT_CHOICE, event.receiver, context);
      return;
    case 'offer_withdrawn':
      endedOffer(event, TRANSFER_INSTRUCTION_WITHDRAW_CHOICE, event.sender, context);
      return;
    case 'mint':
    case 'burn':
      supplyChange(event, context);
      return;
    case 'allocation_created':
    case 'allocation_executed':
    case 'allocation_cancelled':
    case 'allocation_withdrawn':
      renderAllocationEvent(event, context);
      return;
    default: {
      // Every kind is rendered; this answers a caller that bypassed the types.
      const unknown: { readonly kind: string } = event;
      throw new RangeError(`no Canton rendering for a ${unknown.kind} event`);
    }
  }
}

/** A local-ledger update as the transaction a participant would show for it. */
export function encodeTransaction(input: EncodeTransactionInput): JsTransaction {
  const { update } = input;
  const tree = new TreeWriter(update.offset, update.recordTime);
  const context: RenderContext = {
    tree,
    created: new HoldingPool(input.created),
    archived: new HoldingPool(input.archived),
    recordTime: update.recordTime,
  };
  for (const event of update.events) renderEvent(event, context);
  if (input.selfTransfer !== undefined) selfTransfer(input.selfTransfer, context);
  // Holding changes no event accounts for still happened: show them as they are.
  for (const holding of context.archived.rest()) tree.archive(holding);
  for (const holding of context.created.rest()) tree.holding(holding);
  return {
    updateId: update.updateId,
    commandId: update.commandId ?? '',
    workflowId: '',
    effectiveAt: damlTime(update.recordTime),
    events: tree.events,
    offset: update.offset,
    synchronizerId: input.synchronizerId,
    recordTime: damlTime(update.recordTime),
    ...(update.trafficBytes === null ? {} : { paidTrafficCost: update.trafficBytes }),
  };
}

/**
 * The transaction as `parties` see it: the events one of them witnesses, with the witnesses
 * narrowed to them, as a participant answers a party-filtered query; null when they see nothing.
 */
export function projectTransaction(
  tx: JsTransaction,
  parties: readonly string[],
): JsTransaction | null {
  const readers = new Set(parties);
  const narrowed = (witnesses: readonly string[]) => witnesses.filter((p) => readers.has(p));
  const events = tx.events.flatMap((event): Event[] => {
    if ('CreatedEvent' in event) {
      const witnessParties = narrowed(event.CreatedEvent.witnessParties);
      return witnessParties.length === 0
        ? []
        : [{ CreatedEvent: { ...event.CreatedEvent, witnessParties } }];
    }
    if ('ExercisedEvent' in event) {
      const witnessParties = narrowed(event.ExercisedEvent.witnessParties);
      return witnessParties.length === 0
        ? []
        : [{ ExercisedEvent: { ...event.ExercisedEvent, witnessParties } }];
    }
    const witnessParties = narrowed(event.ArchivedEvent.witnessParties);
    return witnessParties.length === 0
      ? []
      : [{ ArchivedEvent: { ...event.ArchivedEvent, witnessParties } }];
  });
  return events.length === 0 ? null : { ...tx, events };
}
