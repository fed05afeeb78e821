/**
 * The port's holdings and offers from the Token Standard interface views of created contracts:
 * `Holding` (owner, instrument, amount, lock) and `TransferInstruction` (the pending transfer).
 * A view whose computation failed (`viewStatus.code` ≠ 0) counts as absent.
 */
import type {
  Allocation,
  Holding,
  HoldingLock,
  SettlementInfo,
  TransferLeg,
  TransferOffer,
} from '../../port.js';
import { parseDamlDecimal, parseDamlTime } from './daml.js';
import {
  ALLOCATION_INTERFACE_ID,
  DEVNET_LOCK_ALLOCATION_META_KEY,
  DEVNET_LOCK_OFFER_META_KEY,
  HOLDING_INTERFACE_ID,
  sameEntity,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from './ids.js';
import { instrumentId, isRecord, list, metaValues, optionalText, record, text } from './json.js';
import type { CreatedEvent } from './types.js';

/** The value of the event's view of `interfaceId`, or undefined when it has none. */
export function interfaceViewValue(event: CreatedEvent, interfaceId: string): unknown {
  const views = record(event, 'created event').interfaceViews;
  if (views === undefined || views === null) return undefined;
  for (const [index, item] of list(views, 'interfaceViews').entries()) {
    const view = record(item, `interfaceViews[${index}]`);
    const status = view.viewStatus;
    if (
      sameEntity(text(view.interfaceId, `interfaceViews[${index}].interfaceId`), interfaceId) &&
      isRecord(status) &&
      status.code === 0 &&
      view.viewValue !== null &&
      view.viewValue !== undefined
    ) {
      return view.viewValue;
    }
  }
  return undefined;
}

function holdingLock(value: unknown, meta: Readonly<Record<string, string>>, path: string) {
  if (value === null || value === undefined) return null;
  const lock = record(value, path);
  const expiresAt = optionalText(lock.expiresAt, `${path}.expiresAt`);
  const allocationId = meta[DEVNET_LOCK_ALLOCATION_META_KEY];
  const result: HoldingLock = {
    offerId: meta[DEVNET_LOCK_OFFER_META_KEY] ?? null,
    expiresAt: expiresAt === null ? null : parseDamlTime(expiresAt),
    context: optionalText(lock.context, `${path}.context`),
    ...(allocationId !== undefined && { allocationId }),
  };
  return result;
}

/** The holding a created event shows through its `Holding` view; null when it has none. */
export function decodeHolding(event: CreatedEvent): Holding | null {
  const value = interfaceViewValue(event, HOLDING_INTERFACE_ID);
  if (value === undefined) return null;
  const path = `Holding view of ${event.contractId}`;
  const view = record(value, path);
  const meta = metaValues(view.meta, `${path}.meta`);
  return {
    holdingId: text(event.contractId, 'contractId'),
    owner: text(view.owner, `${path}.owner`),
    instrument: instrumentId(view.instrumentId, `${path}.instrumentId`),
    amount: parseDamlDecimal(text(view.amount, `${path}.amount`)),
    lock: holdingLock(view.lock, meta, `${path}.lock`),
  };
}

/** The offer a `Transfer` record (factory argument, instruction view) describes. */
export function transferOfTransfer(offerId: string, value: unknown, path: string): TransferOffer {
  const transfer = record(value, path);
  return {
    offerId,
    sender: text(transfer.sender, `${path}.sender`),
    receiver: text(transfer.receiver, `${path}.receiver`),
    instrument: instrumentId(transfer.instrumentId, `${path}.instrumentId`),
    amount: parseDamlDecimal(text(transfer.amount, `${path}.amount`)),
    meta: metaValues(transfer.meta, `${path}.meta`),
    executeBefore: parseDamlTime(text(transfer.executeBefore, `${path}.executeBefore`)),
  };
}

/**
 * The offer a created event shows through its `TransferInstruction` view (offer id = contract
 * id); null when it has none.
 */
export function decodeTransferInstruction(event: CreatedEvent): TransferOffer | null {
  const value = interfaceViewValue(event, TRANSFER_INSTRUCTION_INTERFACE_ID);
  if (value === undefined) return null;
  const path = `TransferInstruction view of ${event.contractId}`;
  const view = record(value, path);
  return transferOfTransfer(
    text(event.contractId, 'contractId'),
    view.transfer,
    `${path}.transfer`,
  );
}

/**
 * The holdings a transfer instruction names as its inputs (`transfer.inputHoldingCids` of its
 * view); null when the event has no such view. Amulet names the holding it locked for the
 * instruction there, which is how a reader finds the offer a locked holding belongs to when the
 * lock itself does not say.
 */
export function instructionInputHoldingIds(event: CreatedEvent): string[] | null {
  const value = interfaceViewValue(event, TRANSFER_INSTRUCTION_INTERFACE_ID);
  if (value === undefined) return null;
  const path = `TransferInstruction view of ${event.contractId}.transfer.inputHoldingCids`;
  const transfer = record(record(value, 'TransferInstruction view').transfer, 'transfer');
  return list(transfer.inputHoldingCids, path).map((cid, i) => text(cid, `${path}[${i}]`));
}

function settlementOf(value: unknown, path: string): SettlementInfo {
  const settlement = record(value, path);
  const ref = record(settlement.settlementRef, `${path}.settlementRef`);
  const time = (name: 'requestedAt' | 'allocateBefore' | 'settleBefore') =>
    parseDamlTime(text(settlement[name], `${path}.${name}`));
  return {
    executor: text(settlement.executor, `${path}.executor`),
    settlementRef: text(ref.id, `${path}.settlementRef.id`),
    requestedAt: time('requestedAt'),
    allocateBefore: time('allocateBefore'),
    settleBefore: time('settleBefore'),
    meta: metaValues(settlement.meta, `${path}.meta`),
  };
}

function legOf(value: unknown, path: string): TransferLeg {
  const leg = record(value, path);
  return {
    sender: text(leg.sender, `${path}.sender`),
    receiver: text(leg.receiver, `${path}.receiver`),
    instrument: instrumentId(leg.instrumentId, `${path}.instrumentId`),
    amount: parseDamlDecimal(text(leg.amount, `${path}.amount`)),
    meta: metaValues(leg.meta, `${path}.meta`),
  };
}

/** The allocation an `AllocationSpecification` (a view's, a factory argument's) describes. */
export function allocationOfSpecification(
  allocationId: string,
  value: unknown,
  holdingIds: readonly string[],
  path: string,
): Allocation {
  const specification = record(value, path);
  return {
    allocationId,
    settlement: settlementOf(specification.settlement, `${path}.settlement`),
    transferLegId: text(specification.transferLegId, `${path}.transferLegId`),
    leg: legOf(specification.transferLeg, `${path}.transferLeg`),
    holdingIds,
  };
}

/**
 * The allocation a created event shows through its `Allocation` view (allocation id = contract
 * id); null when it has none.
 */
export function decodeAllocation(event: CreatedEvent): Allocation | null {
  const value = interfaceViewValue(event, ALLOCATION_INTERFACE_ID);
  if (value === undefined) return null;
  const path = `Allocation view of ${event.contractId}`;
  const view = record(value, path);
  const holdingIds = list(view.holdingCids, `${path}.holdingCids`).map((cid, i) =>
    text(cid, `${path}.holdingCids[${i}]`),
  );
  const allocationId = text(event.contractId, 'contractId');
  return allocationOfSpecification(allocationId, view.allocation, holdingIds, `${path}.allocation`);
}
