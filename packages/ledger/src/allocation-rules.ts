/**
 * The decisions of Token Standard allocations, as pure functions of what the ledger read: whether
 * a leg may be allocated and from which holdings, whether allocations form one settlement its
 * submitters may execute now, and who may release an allocation. An adapter reads its state,
 * asks these, and writes only what they allowed; so a refusal changes nothing.
 *
 * The semantics are Splice's (`Splice.Api.Token.AllocationV1`): deadlines are exclusive, the
 * executor, sender and receiver together control execution and cancellation, the sender alone
 * withdraws, and neither withdrawal nor cancellation has a deadline.
 */
import { Amount, sameInstrument } from '@poolparty/core';
import {
  type Allocation,
  type Holding,
  type HoldingLock,
  LedgerError,
  type SettlementInfo,
  type TransferLeg,
} from './port.js';
import { checkMeta } from './rules.js';

/** The most legs one settlement executes in one transaction (the transaction's size grows with each). */
export const SETTLEMENT_LEGS_MAX = 64;
/** The longest settlement reference or leg id accepted, in characters (Canton's text limit is far above). */
export const ALLOCATION_REF_CHARS_MAX = 256;

export interface AllocationRequest {
  readonly atMs: number;
  readonly settlement: SettlementInfo;
  readonly transferLegId: string;
  readonly leg: TransferLeg;
}

/** The holdings an allocation spends and the change the sender gets back unlocked. */
export interface AllocationPlan {
  readonly inputs: readonly Holding[];
  readonly change: Amount;
}

function checkRef(value: string, name: string): void {
  if (value.length === 0 || value.length > ALLOCATION_REF_CHARS_MAX) {
    throw new LedgerError(
      'invalid_settlement',
      `${name} must have 1 to ${ALLOCATION_REF_CHARS_MAX} characters, not ${value.length}`,
    );
  }
}

/** Refuses a settlement whose deadlines contradict or whose metadata exceed the limits. */
export function checkSettlementInfo(settlement: SettlementInfo): void {
  checkRef(settlement.settlementRef, 'settlementRef');
  checkMeta(settlement.meta);
  if (settlement.settleBefore.getTime() < settlement.allocateBefore.getTime()) {
    throw new LedgerError(
      'invalid_settlement',
      `settleBefore ${settlement.settleBefore.toISOString()} is before allocateBefore ${settlement.allocateBefore.toISOString()}`,
    );
  }
}

/**
 * Whether the leg may be allocated now, and from which of the sender's holdings: its unlocked
 * ones of the instrument, largest first (ties: in the order given), the same selection as a
 * transfer's, so that an allocation spends the fewest holdings.
 */
export function planAllocation(
  request: AllocationRequest,
  senderHoldings: readonly Holding[],
): AllocationPlan {
  const { settlement, leg } = request;
  checkSettlementInfo(settlement);
  checkRef(request.transferLegId, 'transferLegId');
  checkMeta(leg.meta);
  if (!leg.amount.isPositive()) {
    throw new LedgerError('invalid_amount', `amount must be positive, not ${leg.amount}`);
  }
  if (request.atMs >= settlement.allocateBefore.getTime()) {
    throw new LedgerError(
      'deadline_passed',
      `allocateBefore ${settlement.allocateBefore.toISOString()} has passed`,
    );
  }
  const spendable = senderHoldings
    .filter((h) => h.lock === null && h.owner === leg.sender)
    .filter((h) => sameInstrument(h.instrument, leg.instrument))
    .sort((a, b) => b.amount.compare(a.amount));
  const inputs: Holding[] = [];
  let covered = Amount.ZERO;
  for (const holding of spendable) {
    if (covered.gte(leg.amount)) break;
    inputs.push(holding);
    covered = covered.add(holding.amount);
  }
  if (covered.lt(leg.amount)) {
    throw new LedgerError(
      'insufficient_holdings',
      `${leg.sender} holds ${covered} unlocked ${leg.instrument.id}, needs ${leg.amount}`,
    );
  }
  return { inputs, change: covered.sub(leg.amount) };
}

/** The lock of the holding that backs an allocation: it lapses when the settlement can no longer run. */
export function allocationLock(
  allocationId: string,
  settlement: SettlementInfo,
  transferLegId: string,
): HoldingLock {
  return {
    offerId: null,
    expiresAt: settlement.settleBefore,
    context: `allocation for leg ${transferLegId} of settlement ${settlement.settlementRef}`,
    allocationId,
  };
}

/** The parties that together control an allocation's execution and cancellation. */
export function allocationControllers(allocation: Allocation): readonly string[] {
  const { settlement, leg } = allocation;
  return [settlement.executor, leg.sender, leg.receiver];
}

function requireActing(
  actAs: readonly string[],
  parties: readonly string[],
  what: string,
  allocationId: string,
): void {
  const missing = parties.filter((party) => !actAs.includes(party));
  if (missing.length > 0) {
    throw new LedgerError(
      'not_authorized',
      `${what} of allocation ${allocationId} needs ${[...new Set(missing)].join(', ')} among the acting parties`,
    );
  }
}

function sameSettlement(a: SettlementInfo, b: SettlementInfo): boolean {
  return (
    a.executor === b.executor &&
    a.settlementRef === b.settlementRef &&
    a.requestedAt.getTime() === b.requestedAt.getTime() &&
    a.allocateBefore.getTime() === b.allocateBefore.getTime() &&
    a.settleBefore.getTime() === b.settleBefore.getTime()
  );
}

/**
 * Whether the allocations, each named once, form one settlement (the same settlement info, each
 * leg once) that `actAs` may execute at `atMs`. Checked as a whole before anything moves, so the
 * settlement executes every leg or, refused, none.
 */
export function checkSettlement(
  allocations: readonly Allocation[],
  actAs: readonly string[],
  atMs: number,
): void {
  const [first] = allocations;
  if (first === undefined || allocations.length > SETTLEMENT_LEGS_MAX) {
    throw new LedgerError(
      'invalid_settlement',
      `a settlement executes 1 to ${SETTLEMENT_LEGS_MAX} allocations, not ${allocations.length}`,
    );
  }
  const ids = new Set(allocations.map((a) => a.allocationId));
  const legs = new Set(allocations.map((a) => a.transferLegId));
  if (ids.size !== allocations.length || legs.size !== allocations.length) {
    throw new LedgerError('invalid_settlement', 'each allocation and each leg may appear once');
  }
  for (const allocation of allocations) {
    if (!sameSettlement(allocation.settlement, first.settlement)) {
      throw new LedgerError(
        'invalid_settlement',
        `allocation ${allocation.allocationId} belongs to another settlement than ${first.allocationId}`,
      );
    }
    requireActing(actAs, allocationControllers(allocation), 'execution', allocation.allocationId);
  }
  if (atMs >= first.settlement.settleBefore.getTime()) {
    throw new LedgerError(
      'deadline_passed',
      `settleBefore ${first.settlement.settleBefore.toISOString()} has passed`,
    );
  }
}

export type AllocationRelease = 'cancel' | 'withdraw';

/** Whether `actAs` may release the allocation this way; at any time, expired or not. */
export function checkRelease(
  allocation: Allocation,
  actAs: readonly string[],
  release: AllocationRelease,
): void {
  const parties =
    release === 'cancel' ? allocationControllers(allocation) : [allocation.leg.sender];
  requireActing(
    actAs,
    parties,
    release === 'cancel' ? 'cancellation' : 'withdrawal',
    allocation.allocationId,
  );
}
