/**
 * Canton transactions (JSON Ledger API, `TRANSACTION_SHAPE_LEDGER_EFFECTS`) to the port's
 * updates, by the Token Standard's parsing rules:
 *
 * - Events are read in `nodeId` order. An exercise that is understood accounts for its whole
 *   subtree (`nodeId` up to `lastDescendantNodeId`); reading continues after it, so a transfer
 *   is never counted twice through its nested implementation choices.
 * - `TransferFactory_Transfer`: a `transfer` when its result is `_Completed`, an `offer_created`
 *   (offer id = the new instruction's contract id) when `_Pending`; nothing when `_Failed`. The
 *   transfer's details come from the choice argument. A transfer to oneself is a merge: no event.
 * - `TransferInstruction_Accept` / `_Reject` / `_Withdraw` on an instruction: `transfer` with the
 *   offer id / `offer_rejected` / `offer_withdrawn`. A participant shows only the instruction's
 *   contract id, so the details come from the caller (`offerOf`, e.g. the instruction's created
 *   event). Without them, an accept is still read from the transaction itself (receiver holdings,
 *   the `sender` annotation, the result metadata); a reject or withdraw cannot be, and fails with
 *   `unknown_offer`.
 * - Any other exercise whose result metadata carries a `tx-kind`: `transfer` (the receiver's view
 *   of a one-step transfer: created holdings of parties other than the `sender` annotation),
 *   `mint` (the created holdings), `burn` (the `burned` annotation); `merge-split`, `unlock` and
 *   `expire-dust` move no value between parties and give no event. An exercise without one is
 *   looked into: its children are read on their own.
 * - A created `TransferInstruction` outside an understood exercise (the receiver's view of an
 *   offer): `offer_created`. Other created and archived events give no event: they are the
 *   holdings a transfer moved, or contracts of other applications.
 *
 * Metadata annotations (`tx-kind`, `sender`, `burned`) describe the node, not the transfer, so
 * they are not part of a decoded transfer's `meta`; `burned` becomes `feesBurned`.
 */
import { Amount, AmountRangeError, type Instrument, instrumentKey } from '@poolparty/core';
import type {
  Allocation,
  Holding,
  LedgerEvent,
  LedgerUpdate,
  Meta,
  Offset,
  TransferOffer,
} from '../../port.js';
import { parseDamlDecimal, parseDamlTime } from './daml.js';
import { CantonWireError } from './errors.js';
import {
  ALLOCATION_CANCEL_CHOICE,
  ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  ALLOCATION_FACTORY_ALLOCATE_CHOICE,
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
  ALLOCATION_RESULT_COMPLETED,
  ALLOCATION_WITHDRAW_CHOICE,
  ANNOTATION_META_KEYS,
  BURNED_META_KEY,
  SENDER_META_KEY,
  sameEntity,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_FACTORY_TRANSFER_CHOICE,
  TRANSFER_INSTRUCTION_ACCEPT_CHOICE,
  TRANSFER_INSTRUCTION_CHOICES,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  TRANSFER_INSTRUCTION_REJECT_CHOICE,
  TRANSFER_INSTRUCTION_WITHDRAW_CHOICE,
  TRANSFER_RESULT_COMPLETED,
  TRANSFER_RESULT_FAILED,
  TRANSFER_RESULT_PENDING,
  TX_KIND_META_KEY,
} from './ids.js';
import { integer, isRecord, type JsonRecord, list, optionalText, record, text } from './json.js';
import type {
  ArchivedEvent,
  CreatedEvent,
  ExercisedEvent,
  JsGetUpdatesResponse,
  JsTransaction,
} from './types.js';
import {
  allocationOfSpecification,
  decodeAllocation,
  decodeHolding,
  decodeTransferInstruction,
  transferOfTransfer,
} from './views.js';

export interface DecodeOptions {
  /**
   * The offer behind a transfer instruction the transaction accepts, rejects or withdraws, when
   * the reader knows it (it saw the instruction created, or fetched it by contract id).
   */
  readonly offerOf?: (offerId: string) => TransferOffer | undefined;
  /**
   * The allocation an `Allocation_ExecuteTransfer`, `_Cancel` or `_Withdraw` acts on, when the
   * reader knows it. Without it an execution reads as the transfer its result annotates, and a
   * cancel or withdraw as the unlock it is.
   */
  readonly allocationOf?: (allocationId: string) => Allocation | undefined;
}

export type DecodedUpdatesItem =
  | { readonly kind: 'transaction'; readonly update: LedgerUpdate }
  | { readonly kind: 'checkpoint'; readonly offset: Offset; readonly recordTime: Date }
  /** A reassignment, topology transaction, or a checkpoint without a record time. */
  | { readonly kind: 'other'; readonly offset: Offset | null };

type Node =
  | { readonly kind: 'created'; readonly nodeId: number; readonly event: CreatedEvent }
  | { readonly kind: 'exercised'; readonly nodeId: number; readonly event: ExercisedEvent }
  | { readonly kind: 'archived'; readonly nodeId: number; readonly event: ArchivedEvent };

/** The transaction's events in `nodeId` order; kinds this codec does not know are left out. */
function nodesOf(tx: JsTransaction): Node[] {
  const nodes: Node[] = [];
  list(record(tx, 'transaction').events, 'events').forEach((item, index) => {
    const wrapper = record(item, `events[${index}]`);
    const path = (kind: string) => `events[${index}].${kind}`;
    if (wrapper.CreatedEvent !== undefined) {
      const event = record(wrapper.CreatedEvent, path('CreatedEvent')) as unknown as CreatedEvent;
      nodes.push({ kind: 'created', nodeId: integer(event.nodeId, path('nodeId')), event });
    } else if (wrapper.ExercisedEvent !== undefined) {
      const event = record(
        wrapper.ExercisedEvent,
        path('ExercisedEvent'),
      ) as unknown as ExercisedEvent;
      integer(event.lastDescendantNodeId, path('ExercisedEvent.lastDescendantNodeId'));
      text(event.choice, path('ExercisedEvent.choice'));
      text(event.contractId, path('ExercisedEvent.contractId'));
      nodes.push({ kind: 'exercised', nodeId: integer(event.nodeId, path('nodeId')), event });
    } else if (wrapper.ArchivedEvent !== undefined) {
      const event = record(
        wrapper.ArchivedEvent,
        path('ArchivedEvent'),
      ) as unknown as ArchivedEvent;
      nodes.push({ kind: 'archived', nodeId: integer(event.nodeId, path('nodeId')), event });
    }
  });
  return nodes.sort((a, b) => a.nodeId - b.nodeId);
}

class TransactionTree {
  private readonly createdById = new Map<string, CreatedEvent>();

  constructor(readonly nodes: readonly Node[]) {
    for (const node of nodes) {
      if (node.kind === 'created') this.createdById.set(node.event.contractId, node.event);
    }
  }

  /** The nodes below `exercise`: `nodeId` in (its nodeId, its lastDescendantNodeId]. */
  subtree(exercise: ExercisedEvent): Node[] {
    return this.nodes.filter(
      (node) => node.nodeId > exercise.nodeId && node.nodeId <= exercise.lastDescendantNodeId,
    );
  }

  created(contractId: string): CreatedEvent | undefined {
    return this.createdById.get(contractId);
  }
}

/** `{values}` of a Daml `Metadata`, leniently: other applications' results may differ. */
function looseMeta(value: unknown): Meta {
  if (!isRecord(value) || !isRecord(value.values)) return {};
  const entries = Object.entries(value.values).filter(([, v]) => typeof v === 'string');
  return Object.fromEntries(entries) as Meta;
}

function resultMeta(exercise: ExercisedEvent): Meta {
  return isRecord(exercise.exerciseResult) ? looseMeta(exercise.exerciseResult.meta) : {};
}

function withoutAnnotations(meta: Meta): Meta {
  return Object.fromEntries(Object.entries(meta).filter(([key]) => !ANNOTATION_META_KEYS.has(key)));
}

/** Holdings' sum; beyond `Numeric 10`'s range only for data no real ledger writes. */
function sum(amounts: readonly Amount[]): Amount {
  try {
    return Amount.sum(amounts);
  } catch (error) {
    if (!(error instanceof AmountRangeError)) throw error;
    throw new CantonWireError(
      'invalid_decimal',
      `holdings add up beyond Numeric 10: ${error.message}`,
    );
  }
}

function burnedOf(metas: readonly Meta[]): Amount {
  for (const meta of metas) {
    const burned = meta[BURNED_META_KEY];
    if (burned !== undefined) return parseDamlDecimal(burned);
  }
  return Amount.ZERO;
}

function isInterfaceChoice(exercise: ExercisedEvent, interfaceId: string): boolean {
  const exercisedVia = optionalText(exercise.interfaceId, `${exercise.choice}: interfaceId`);
  // Absent: exercised on the template directly, which the Token Standard choice names identify.
  return exercisedVia === null || sameEntity(exercisedVia, interfaceId);
}

/** The first acting party: who spent when no `sender` annotation says. */
function firstActor(exercise: ExercisedEvent): string | undefined {
  const actors = list(exercise.actingParties, `${exercise.choice}: actingParties`);
  return actors.length === 0 ? undefined : text(actors[0], `${exercise.choice}: actingParties[0]`);
}

function transferOutput(exercise: ExercisedEvent): { tag: string; value: JsonRecord } {
  const path = `${exercise.choice} on ${exercise.contractId}: exerciseResult`;
  const output = record(record(exercise.exerciseResult, path).output, `${path}.output`);
  const value = output.value === undefined || output.value === null ? {} : output.value;
  return {
    tag: text(output.tag, `${path}.output.tag`),
    value: record(value, `${path}.output.value`),
  };
}

/** Holdings created in `nodes`, summed per owner and instrument, in order of first appearance. */
function createdHoldingTotals(nodes: readonly Node[], include: (owner: string) => boolean) {
  const totals = new Map<string, { owner: string; instrument: Instrument; amount: Amount }>();
  for (const node of nodes) {
    if (node.kind !== 'created') continue;
    const holding = decodeHolding(node.event);
    if (holding === null || !include(holding.owner)) continue;
    const key = `${holding.owner}\n${instrumentKey(holding.instrument)}`;
    const total = totals.get(key);
    totals.set(key, {
      owner: holding.owner,
      instrument: holding.instrument,
      amount: total === undefined ? holding.amount : sum([total.amount, holding.amount]),
    });
  }
  return [...totals.values()];
}

function factoryTransfer(exercise: ExercisedEvent): LedgerEvent[] {
  const path = `${exercise.choice} on ${exercise.contractId}: choiceArgument.transfer`;
  const argument = record(exercise.choiceArgument, `${path}`);
  const output = transferOutput(exercise);
  switch (output.tag) {
    case TRANSFER_RESULT_COMPLETED: {
      const {
        offerId: _,
        executeBefore: __,
        ...transfer
      } = transferOfTransfer('', argument.transfer, path);
      if (transfer.sender === transfer.receiver) return [];
      const feesBurned = burnedOf([resultMeta(exercise)]);
      return [{ kind: 'transfer', ...transfer, offerId: null, feesBurned }];
    }
    case TRANSFER_RESULT_PENDING: {
      const offerId = text(output.value.transferInstructionCid, `${path} result cid`);
      return [{ kind: 'offer_created', ...transferOfTransfer(offerId, argument.transfer, path) }];
    }
    case TRANSFER_RESULT_FAILED:
      return [];
    default:
      throw new CantonWireError('malformed', `${exercise.choice}: unknown result ${output.tag}`);
  }
}

function unknownOffer(exercise: ExercisedEvent, missing: string): CantonWireError {
  return new CantonWireError(
    'unknown_offer',
    `${exercise.choice} on ${exercise.contractId}: ${missing}; the transaction does not show the instruction, pass it through offerOf`,
  );
}

function acceptedTransfer(
  exercise: ExercisedEvent,
  tree: TransactionTree,
  options: DecodeOptions,
): LedgerEvent[] {
  const offerId = exercise.contractId;
  const output = transferOutput(exercise);
  // Pending: the registry's workflow continues in a later transaction; Failed: nothing moved.
  if (output.tag !== TRANSFER_RESULT_COMPLETED) return [];
  const below = tree.subtree(exercise).flatMap((node) => {
    if (node.kind !== 'exercised') return [];
    const meta = resultMeta(node.event);
    return meta[TX_KIND_META_KEY] === 'transfer' ? [meta] : [];
  });
  const metas = [resultMeta(exercise), ...below];
  const feesBurned = burnedOf(metas);
  const known = options.offerOf?.(offerId);
  if (known !== undefined) {
    const { sender, receiver, instrument, amount, meta } = known;
    return [{ kind: 'transfer', sender, receiver, instrument, amount, meta, offerId, feesBurned }];
  }
  const cids = list(output.value.receiverHoldingCids ?? [], 'receiverHoldingCids');
  const received = cids.map((cid) => {
    const created = tree.created(text(cid, 'receiverHoldingCids[]'));
    const holding = created === undefined ? null : decodeHolding(created);
    if (holding === null) throw unknownOffer(exercise, `receiver holding ${cid} not shown`);
    return holding;
  });
  const first = received[0];
  if (first === undefined) throw unknownOffer(exercise, 'no receiver holdings');
  const sender = metas.find((meta) => meta[SENDER_META_KEY] !== undefined)?.[SENDER_META_KEY];
  if (sender === undefined) throw unknownOffer(exercise, 'no sender annotation');
  // The accept's own result metadata wins over its children's; entries, not assignment, so a
  // key like `__proto__` stays data.
  const meta: Meta = Object.fromEntries(
    metas.toReversed().flatMap((m) => Object.entries(withoutAnnotations(m))),
  );
  return [
    {
      kind: 'transfer',
      sender,
      receiver: first.owner,
      instrument: first.instrument,
      amount: sum(received.map((holding) => holding.amount)),
      meta,
      offerId,
      feesBurned,
    },
  ];
}

function endedOffer(
  exercise: ExercisedEvent,
  kind: 'offer_rejected' | 'offer_withdrawn',
  options: DecodeOptions,
): LedgerEvent[] {
  const known = options.offerOf?.(exercise.contractId);
  if (known === undefined) throw unknownOffer(exercise, 'offer details unknown');
  return [{ kind, ...known, offerId: exercise.contractId }];
}

/** The receiver's view of a one-step transfer: what the parties other than the sender got. */
function annotatedTransfer(exercise: ExercisedEvent, tree: TransactionTree): LedgerEvent[] {
  const annotations = resultMeta(exercise);
  const sender = annotations[SENDER_META_KEY] ?? firstActor(exercise);
  if (sender === undefined) return [];
  const meta = withoutAnnotations(annotations);
  const feesBurned = burnedOf([annotations]);
  return createdHoldingTotals(tree.subtree(exercise), (owner) => owner !== sender).map(
    ({ owner, instrument, amount }) => ({
      kind: 'transfer',
      sender,
      receiver: owner,
      instrument,
      amount,
      meta,
      offerId: null,
      feesBurned,
    }),
  );
}

function minted(exercise: ExercisedEvent, tree: TransactionTree): LedgerEvent[] {
  return createdHoldingTotals(tree.subtree(exercise), () => true).map(
    ({ owner, instrument, amount }) => ({ kind: 'mint', owner, instrument, amount }),
  );
}

function burned(exercise: ExercisedEvent, tree: TransactionTree): LedgerEvent[] {
  const annotations = resultMeta(exercise);
  const amountText = annotations[BURNED_META_KEY];
  const owner = annotations[SENDER_META_KEY] ?? firstActor(exercise);
  if (amountText === undefined || owner === undefined) return [];
  const argument = isRecord(exercise.choiceArgument) ? exercise.choiceArgument : {};
  const named = isRecord(argument.instrumentId) ? argument.instrumentId : null;
  // Spent holdings show no payload in ledger effects; the change holding names the instrument.
  const instrument: Instrument | undefined =
    named !== null && typeof named.admin === 'string' && typeof named.id === 'string'
      ? { admin: named.admin, id: named.id }
      : createdHoldingTotals(tree.subtree(exercise), () => true)[0]?.instrument;
  if (instrument === undefined) return [];
  return [{ kind: 'burn', owner, instrument, amount: parseDamlDecimal(amountText) }];
}

/** The allocation event of an `AllocationFactory_Allocate`: its allocation, when it completed. */
function allocated(exercise: ExercisedEvent, tree: TransactionTree): LedgerEvent[] {
  const output = transferOutput(exercise);
  // Pending (an allocation instruction) or failed: no allocation yet.
  if (output.tag !== ALLOCATION_RESULT_COMPLETED) return [];
  const allocationId = text(output.value.allocationCid, `${exercise.choice} result allocationCid`);
  const shown = tree.created(allocationId);
  const viewed = shown === undefined ? null : decodeAllocation(shown);
  const path = `${exercise.choice} on ${exercise.contractId}: choiceArgument.allocation`;
  const argument = record(exercise.choiceArgument, path);
  // Without the allocation's view, its holdings are the locked ones the choice created.
  const locked = tree.subtree(exercise).flatMap((node) => {
    if (node.kind !== 'created') return [];
    const holding = decodeHolding(node.event);
    return holding?.lock ? [holding.holdingId] : [];
  });
  const allocation =
    viewed ?? allocationOfSpecification(allocationId, argument.allocation, locked, path);
  return [allocationEvent('allocation_created', allocation)];
}

function allocationEvent(
  kind:
    | 'allocation_created'
    | 'allocation_executed'
    | 'allocation_cancelled'
    | 'allocation_withdrawn',
  allocation: Allocation,
): LedgerEvent {
  const { sender, receiver, instrument, amount } = allocation.leg;
  return { kind, sender, receiver, instrument, amount, allocation };
}

const ALLOCATION_ENDINGS: Readonly<
  Record<string, 'allocation_executed' | 'allocation_cancelled' | 'allocation_withdrawn'>
> = {
  [ALLOCATION_EXECUTE_TRANSFER_CHOICE]: 'allocation_executed',
  [ALLOCATION_CANCEL_CHOICE]: 'allocation_cancelled',
  [ALLOCATION_WITHDRAW_CHOICE]: 'allocation_withdrawn',
};

/** The allocation event of a choice that ends an allocation; null when its details are unknown. */
function endedAllocation(exercise: ExercisedEvent, options: DecodeOptions): LedgerEvent[] | null {
  const kind = ALLOCATION_ENDINGS[exercise.choice];
  if (kind === undefined || !isInterfaceChoice(exercise, ALLOCATION_INTERFACE_ID)) return null;
  const known = options.allocationOf?.(exercise.contractId);
  return known === undefined ? null : [allocationEvent(kind, known)];
}

/** The events an exercise accounts for, subtree included; null when it is to be looked into. */
function decodeExercise(
  exercise: ExercisedEvent,
  tree: TransactionTree,
  options: DecodeOptions,
): LedgerEvent[] | null {
  switch (exercise.choice) {
    case TRANSFER_FACTORY_TRANSFER_CHOICE:
      if (isInterfaceChoice(exercise, TRANSFER_FACTORY_INTERFACE_ID)) {
        return factoryTransfer(exercise);
      }
      break;
    case TRANSFER_INSTRUCTION_ACCEPT_CHOICE:
      if (isInterfaceChoice(exercise, TRANSFER_INSTRUCTION_INTERFACE_ID)) {
        return acceptedTransfer(exercise, tree, options);
      }
      break;
    case TRANSFER_INSTRUCTION_REJECT_CHOICE:
      if (isInterfaceChoice(exercise, TRANSFER_INSTRUCTION_INTERFACE_ID)) {
        return endedOffer(exercise, 'offer_rejected', options);
      }
      break;
    case TRANSFER_INSTRUCTION_WITHDRAW_CHOICE:
      if (isInterfaceChoice(exercise, TRANSFER_INSTRUCTION_INTERFACE_ID)) {
        return endedOffer(exercise, 'offer_withdrawn', options);
      }
      break;
    case ALLOCATION_FACTORY_ALLOCATE_CHOICE:
      if (isInterfaceChoice(exercise, ALLOCATION_FACTORY_INTERFACE_ID)) {
        return allocated(exercise, tree);
      }
      break;
    default: {
      const ended = endedAllocation(exercise, options);
      if (ended !== null) return ended;
    }
  }
  switch (resultMeta(exercise)[TX_KIND_META_KEY]) {
    case 'transfer':
      return annotatedTransfer(exercise, tree);
    case 'mint':
      return minted(exercise, tree);
    case 'burn':
      return burned(exercise, tree);
    case 'merge-split':
    case 'unlock':
    case 'expire-dust':
      return [];
    default:
      return null;
  }
}

/** The holdings a transaction created, as their `Holding` views show them, in node order. */
export function createdHoldings(tx: JsTransaction): Holding[] {
  return nodesOf(tx).flatMap((node) => {
    const holding = node.kind === 'created' ? decodeHolding(node.event) : null;
    return holding === null ? [] : [holding];
  });
}

/** The port's update for a transaction; throws `CantonWireError` on what it cannot read. */
export function decodeTransaction(tx: JsTransaction, options: DecodeOptions = {}): LedgerUpdate {
  const tree = new TransactionTree(nodesOf(tx));
  const events: LedgerEvent[] = [];
  let coveredUntil = Number.NEGATIVE_INFINITY;
  for (const node of tree.nodes) {
    if (node.nodeId <= coveredUntil) continue;
    if (node.kind === 'created') {
      const offer = decodeTransferInstruction(node.event);
      if (offer !== null) events.push({ kind: 'offer_created', ...offer });
    } else if (node.kind === 'exercised') {
      const decoded = decodeExercise(node.event, tree, options);
      if (decoded !== null) {
        events.push(...decoded);
        coveredUntil = node.event.lastDescendantNodeId;
      }
    }
  }
  const commandId = tx.commandId === undefined || tx.commandId === null ? '' : tx.commandId;
  const traffic = tx.paidTrafficCost;
  return {
    offset: integer(tx.offset, 'offset'),
    updateId: text(tx.updateId, 'updateId'),
    recordTime: parseDamlTime(text(tx.recordTime, 'recordTime')),
    // Another party's command id is shown as empty: unknown to this reader.
    commandId: text(commandId, 'commandId') === '' ? null : commandId,
    trafficBytes:
      traffic === undefined || traffic === null ? null : integer(traffic, 'paidTrafficCost'),
    events,
  };
}

/**
 * The contract ids of the transfer instructions the transaction accepts, rejects or withdraws:
 * what a reader looks up before `decodeTransaction` when it does not know them yet.
 */
export function exercisedOfferIds(tx: JsTransaction): string[] {
  const offerChoices = new Set<string>(Object.values(TRANSFER_INSTRUCTION_CHOICES));
  return nodesOf(tx).flatMap((node) =>
    node.kind === 'exercised' &&
    offerChoices.has(node.event.choice) &&
    isInterfaceChoice(node.event, TRANSFER_INSTRUCTION_INTERFACE_ID)
      ? [node.event.contractId]
      : [],
  );
}

/**
 * The contract ids of the allocations the transaction executes, cancels or withdraws: what a
 * reader looks up before `decodeTransaction` when it does not know them yet.
 */
export function exercisedAllocationIds(tx: JsTransaction): string[] {
  return nodesOf(tx).flatMap((node) =>
    node.kind === 'exercised' &&
    ALLOCATION_ENDINGS[node.event.choice] !== undefined &&
    isInterfaceChoice(node.event, ALLOCATION_INTERFACE_ID)
      ? [node.event.contractId]
      : [],
  );
}

/** The latest record time of a checkpoint's synchronizers; null when it names none. */
function checkpointTime(value: JsonRecord): Date | null {
  const times = value.synchronizerTimes;
  if (times === undefined || times === null) return null;
  let latest: Date | null = null;
  list(times, 'synchronizerTimes').forEach((item, index) => {
    const path = `synchronizerTimes[${index}]`;
    const time = parseDamlTime(text(record(item, path).recordTime, `${path}.recordTime`));
    if (latest === null || time > latest) latest = time;
  });
  return latest;
}

function offsetOf(value: unknown): Offset | null {
  return isRecord(value) && typeof value.offset === 'number' ? value.offset : null;
}

/** One item of the `/v2/updates` stream (HTTP list or WebSocket message). */
export function decodeUpdatesItem(
  item: JsGetUpdatesResponse,
  options: DecodeOptions = {},
): DecodedUpdatesItem {
  const update = record(item, 'updates item').update;
  if (update === undefined || update === null) return { kind: 'other', offset: null };
  const kinds = record(update, 'update');
  if (kinds.Transaction !== undefined) {
    const tx = record(kinds.Transaction, 'update.Transaction').value;
    return { kind: 'transaction', update: decodeTransaction(tx as JsTransaction, options) };
  }
  if (kinds.OffsetCheckpoint !== undefined) {
    const value = record(record(kinds.OffsetCheckpoint, 'OffsetCheckpoint').value, 'value');
    const offset = integer(value.offset, 'OffsetCheckpoint.value.offset');
    const recordTime = checkpointTime(value);
    return recordTime === null
      ? { kind: 'other', offset }
      : { kind: 'checkpoint', offset, recordTime };
  }
  const [other] = Object.values(kinds);
  return { kind: 'other', offset: isRecord(other) ? offsetOf(other.value ?? other) : null };
}
