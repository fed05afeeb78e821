/**
 * The local ledger's allocations in Canton's JSON shapes: the devnet `Allocation` contract (signed
 * by the instrument's admin and the leg's sender, observed by the executor and the receiver) with
 * its `AllocationView`, and each allocation event as the subtree a registry produces for it:
 *
 * - `allocation_created`: the admin's factory's `AllocationFactory_Allocate` (result `_Completed`
 *   naming the allocation) → `Archive` of the inputs, the sender's locked holding, the change,
 *   the `Allocation`;
 * - `allocation_executed`: `Allocation_ExecuteTransfer` on the allocation, its executor, sender
 *   and receiver acting (result metadata `tx-kind` transfer and `sender`) → `Archive` of the
 *   locked holding, the receiver's holding; a settlement's legs are one such node each, side by
 *   side in one transaction;
 * - `allocation_cancelled` / `allocation_withdrawn`: `Allocation_Cancel` (the three acting) /
 *   `Allocation_Withdraw` (the sender) (result metadata `tx-kind` unlock) → `Archive` of the
 *   locked holding, the sender's holding.
 */
import type { Allocation, Holding, LedgerEvent, Offset } from '../../port.js';
import { damlDecimal, damlTime } from './daml.js';
import type { HoldingPool, RenderContext } from './encode.js';
import {
  annotations,
  createdEvent,
  ids,
  instrumentIdOf,
  metadata,
  NO_EXTRA_ARGS,
  unlockedOf,
  VIEW_OK,
} from './encode-parts.js';
import {
  ALLOCATION_CANCEL_CHOICE,
  ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  ALLOCATION_FACTORY_ALLOCATE_CHOICE,
  ALLOCATION_FACTORY_INTERFACE_REPORTED_ID,
  ALLOCATION_INTERFACE_REPORTED_ID,
  ALLOCATION_RESULT_COMPLETED,
  ALLOCATION_WITHDRAW_CHOICE,
  DEVNET_ALLOCATION_TEMPLATE_ID,
  DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
  transferFactoryContractId,
} from './ids.js';
import type { CreatedEvent } from './types.js';

type AllocationEvent = Extract<
  LedgerEvent,
  {
    kind:
      | 'allocation_created'
      | 'allocation_executed'
      | 'allocation_cancelled'
      | 'allocation_withdrawn';
  }
>;

/**
 * The allocation's `AllocationSpecification`, in the Daml JSON encoding: what its contract holds,
 * and what `AllocationFactory_Allocate` is asked for.
 */
export function allocationSpecification(
  allocation: Pick<Allocation, 'settlement' | 'transferLegId' | 'leg'>,
) {
  const { settlement, leg } = allocation;
  return {
    settlement: {
      executor: settlement.executor,
      settlementRef: { id: settlement.settlementRef, cid: null },
      requestedAt: damlTime(settlement.requestedAt),
      allocateBefore: damlTime(settlement.allocateBefore),
      settleBefore: damlTime(settlement.settleBefore),
      meta: metadata(settlement.meta),
    },
    transferLegId: allocation.transferLegId,
    transferLeg: {
      sender: leg.sender,
      receiver: leg.receiver,
      amount: damlDecimal(leg.amount),
      instrumentId: instrumentIdOf(leg.instrument),
      meta: metadata(leg.meta),
    },
  };
}

/** Who signs an allocation contract, and who observes it. */
export function allocationParties(allocation: Allocation) {
  const { leg, settlement } = allocation;
  return {
    signatories: [leg.instrument.admin, leg.sender],
    observers: [settlement.executor, leg.receiver],
  };
}

/** The parties that control execution and cancellation: executor, sender, receiver. */
function controllers(allocation: Allocation): string[] {
  return [allocation.settlement.executor, allocation.leg.sender, allocation.leg.receiver];
}

function allocationCreated(
  allocation: Allocation,
  offset: Offset,
  nodeId: number,
  createdAt: Date,
): CreatedEvent {
  const view = {
    allocation: allocationSpecification(allocation),
    holdingCids: [...allocation.holdingIds],
    meta: metadata({}),
  };
  return createdEvent(
    {
      contractId: allocation.allocationId,
      templateId: DEVNET_ALLOCATION_TEMPLATE_ID,
      createArgument: { admin: allocation.leg.instrument.admin, ...view },
      interfaceViews: [
        { interfaceId: ALLOCATION_INTERFACE_REPORTED_ID, viewStatus: VIEW_OK, viewValue: view },
      ],
      ...allocationParties(allocation),
    },
    offset,
    nodeId,
    createdAt,
  );
}

/** An allocation's created event, with its `Allocation` view (for the ACS and contract reads). */
export function encodeAllocationCreated(
  allocation: Allocation,
  offset: Offset,
  options: { readonly createdAt?: Date } = {},
): CreatedEvent {
  return allocationCreated(allocation, offset, 0, options.createdAt ?? new Date(0));
}

const lockedForAllocation =
  (allocation: Allocation) =>
  (holding: Holding): boolean =>
    holding.lock?.allocationId === allocation.allocationId;

/** The one holding of the leg's amount that went to `owner` unlocked. */
function legHolding(pool: HoldingPool, allocation: Allocation, owner: string): Holding[] {
  const { instrument, amount } = allocation.leg;
  const unlocked = unlockedOf(owner, instrument);
  return pool.takeFirst((holding) => unlocked(holding) && holding.amount.eq(amount));
}

function allocated(allocation: Allocation, context: RenderContext): void {
  const { sender, instrument } = allocation.leg;
  const admin = instrument.admin;
  const inputs = context.archived.take(unlockedOf(sender, instrument));
  const locked = context.created.take(lockedForAllocation(allocation));
  const change = context.created.take(unlockedOf(sender, instrument));
  const { tree } = context;
  tree.exercise(
    {
      contractId: transferFactoryContractId(admin),
      templateId: DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
      interfaceId: ALLOCATION_FACTORY_INTERFACE_REPORTED_ID,
      choice: ALLOCATION_FACTORY_ALLOCATE_CHOICE,
      choiceArgument: {
        expectedAdmin: admin,
        allocation: allocationSpecification(allocation),
        requestedAt: damlTime(context.recordTime),
        inputHoldingCids: ids(inputs),
        extraArgs: NO_EXTRA_ARGS,
      },
      actingParties: [sender],
      consuming: false,
      exerciseResult: {
        output: {
          tag: ALLOCATION_RESULT_COMPLETED,
          value: { allocationCid: allocation.allocationId },
        },
        senderChangeCids: ids(change),
        meta: metadata({}),
      },
    },
    [admin],
    () => {
      for (const holding of inputs) tree.archive(holding);
      for (const holding of [...locked, ...change]) tree.holding(holding);
      tree.created((offset, nodeId, createdAt) =>
        allocationCreated(allocation, offset, nodeId, createdAt),
      );
    },
  );
}

/** An exercise on the allocation that ends it: its locked holding archived, the leg's amount paid out. */
function ended(
  allocation: Allocation,
  choice: string,
  actors: readonly string[],
  context: RenderContext,
): void {
  const executed = choice === ALLOCATION_EXECUTE_TRANSFER_CHOICE;
  const { sender, receiver, instrument } = allocation.leg;
  const spent = context.archived.take(lockedForAllocation(allocation));
  const paid = legHolding(context.created, allocation, executed ? receiver : sender);
  const exerciseResult = executed
    ? {
        senderHoldingCids: [],
        receiverHoldingCids: ids(paid),
        meta: metadata(annotations('transfer', sender)),
      }
    : { senderHoldingCids: ids(paid), meta: metadata(annotations('unlock', sender)) };
  const { tree } = context;
  tree.exercise(
    {
      contractId: allocation.allocationId,
      templateId: DEVNET_ALLOCATION_TEMPLATE_ID,
      interfaceId: ALLOCATION_INTERFACE_REPORTED_ID,
      choice,
      choiceArgument: { extraArgs: NO_EXTRA_ARGS },
      actingParties: actors,
      consuming: true,
      exerciseResult,
      implementedInterfaces: [ALLOCATION_INTERFACE_REPORTED_ID],
    },
    [instrument.admin, ...controllers(allocation)],
    () => {
      for (const holding of spent) tree.archive(holding);
      for (const holding of paid) tree.holding(holding);
    },
  );
}

const ENDING_CHOICES = {
  allocation_executed: ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  allocation_cancelled: ALLOCATION_CANCEL_CHOICE,
  allocation_withdrawn: ALLOCATION_WITHDRAW_CHOICE,
} as const;

export function renderAllocationEvent(event: AllocationEvent, context: RenderContext): void {
  const { allocation } = event;
  if (event.kind === 'allocation_created') {
    allocated(allocation, context);
    return;
  }
  // Only the sender withdraws; executing and cancelling take all three controllers.
  const actors =
    event.kind === 'allocation_withdrawn' ? [allocation.leg.sender] : controllers(allocation);
  ended(allocation, ENDING_CHOICES[event.kind], actors, context);
}
