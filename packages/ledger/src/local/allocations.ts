/**
 * Token Standard allocations on the local ledger's holdings: allocate, execute a settlement,
 * cancel, withdraw. Each reads the state, asks allocation-rules.ts, and only then writes, so a
 * refused command changes nothing, and a settlement moves every leg in one update or none.
 *
 * Allocating locks exactly the leg's amount, as Amulet's allocations do: the selected inputs are
 * archived, the sender gets a holding of the amount locked for the allocation (until the
 * settlement's `settleBefore`) and unlocked change. Executing moves each locked holding's amount
 * to its receiver; cancelling or withdrawing gives the sender an unlocked holding back.
 */
import { Amount } from '@poolparty/core';
import {
  type AllocationRelease,
  allocationLock,
  checkRelease,
  checkSettlement,
  planAllocation,
} from '../allocation-rules.js';
import {
  type AllocateOutcome,
  type Allocation,
  type AllocationEventBody,
  type CommandResult,
  LedgerError,
  type SettlementInfo,
  type TransferLeg,
} from '../port.js';
import type {
  AllocateEntry,
  AllocationReleaseEntry,
  ExecuteSettlementEntry,
  SettlementRecord,
  TransferLegRecord,
} from './entries.js';
import {
  archiveHoldings,
  createHolding,
  holdingsOfInstrument,
  type LedgerState,
  ledgerId,
  nextOffset,
  recordCompletion,
  recordUpdate,
  requireInstrument,
  requireParty,
} from './state.js';

function settlementOf(record: SettlementRecord): SettlementInfo {
  return Object.freeze({
    executor: record.executor,
    settlementRef: record.settlementRef,
    requestedAt: new Date(record.requestedAt),
    allocateBefore: new Date(record.allocateBefore),
    settleBefore: new Date(record.settleBefore),
    meta: Object.freeze({ ...record.meta }),
  });
}

function legOf(state: LedgerState, record: TransferLegRecord): TransferLeg {
  const amount = Amount.tryParse(record.amount);
  if (!(amount instanceof Amount)) {
    throw new LedgerError('invalid_amount', `amount must be a decimal, not ${record.amount}`);
  }
  return Object.freeze({
    sender: requireParty(state, record.sender).partyId,
    receiver: requireParty(state, record.receiver).partyId,
    instrument: requireInstrument(state, record.instrument),
    amount,
    meta: Object.freeze({ ...record.meta }),
  });
}

export function applyAllocate(state: LedgerState, entry: AllocateEntry): AllocateOutcome {
  const settlement = settlementOf(entry.settlement);
  requireParty(state, settlement.executor);
  const leg = legOf(state, entry.leg);
  const { transferLegId } = entry;
  const plan = planAllocation(
    { atMs: entry.at, settlement, transferLegId, leg },
    holdingsOfInstrument(state, leg.sender, leg.instrument),
  );
  archiveHoldings(
    state,
    plan.inputs.map((h) => h.holdingId),
  );
  if (plan.change.isPositive()) createHolding(state, leg.sender, leg.instrument, plan.change);
  const allocationId = ledgerId(state, 'allocation', nextOffset(state));
  const lock = allocationLock(allocationId, settlement, transferLegId);
  const locked = createHolding(state, leg.sender, leg.instrument, leg.amount, lock);
  const allocation: Allocation = Object.freeze({
    allocationId,
    settlement,
    transferLegId,
    leg,
    holdingIds: Object.freeze([locked.holdingId]),
  });
  state.allocations.set(allocationId, allocation);
  const result = recordUpdate(state, entry.at, entry.commandId, [
    { kind: 'allocation_created', ...eventBody(allocation) },
  ]);
  const outcome = { ...result, allocationId };
  recordCompletion(state, entry.commandId, outcome);
  return outcome;
}

function eventBody(allocation: Allocation): AllocationEventBody {
  const { sender, receiver, instrument, amount } = allocation.leg;
  return { sender, receiver, instrument, amount, allocation };
}

function requireAllocation(state: LedgerState, allocationId: string): Allocation {
  const allocation = state.allocations.get(allocationId);
  if (allocation) return allocation;
  throw new LedgerError('allocation_not_found', `no pending allocation ${allocationId}`);
}

/** Ends an allocation: its locked holdings archived, their amount to `owner`, unlocked. */
function endAllocation(state: LedgerState, allocation: Allocation, owner: string): void {
  archiveHoldings(state, allocation.holdingIds);
  state.allocations.delete(allocation.allocationId);
  createHolding(state, owner, allocation.leg.instrument, allocation.leg.amount);
}

export function applyExecuteSettlement(
  state: LedgerState,
  entry: ExecuteSettlementEntry,
): CommandResult {
  const allocations = entry.allocationIds.map((id) => requireAllocation(state, id));
  checkSettlement(allocations, entry.actAs, entry.at);
  for (const allocation of allocations) endAllocation(state, allocation, allocation.leg.receiver);
  const result = recordUpdate(
    state,
    entry.at,
    entry.commandId,
    allocations.map((allocation) => ({ kind: 'allocation_executed', ...eventBody(allocation) })),
  );
  recordCompletion(state, entry.commandId, result);
  return result;
}

const RELEASES = {
  cancelAllocation: { release: 'cancel', kind: 'allocation_cancelled' },
  withdrawAllocation: { release: 'withdraw', kind: 'allocation_withdrawn' },
} as const satisfies Record<
  AllocationReleaseEntry['op'],
  { release: AllocationRelease; kind: string }
>;

export function applyAllocationRelease(
  state: LedgerState,
  entry: AllocationReleaseEntry,
): CommandResult {
  const allocation = requireAllocation(state, entry.allocationId);
  const { release, kind } = RELEASES[entry.op];
  checkRelease(allocation, entry.actAs, release);
  endAllocation(state, allocation, allocation.leg.sender);
  const result = recordUpdate(state, entry.at, entry.commandId, [
    { kind, ...eventBody(allocation) },
  ]);
  recordCompletion(state, entry.commandId, result);
  return result;
}
