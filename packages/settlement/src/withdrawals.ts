/**
 * Withdrawals (docs/spec/liquidity.md#withdrawals): a provider burns units for both sides of a
 * pool. One transaction takes the pool's lock, reads the position and the books, plans with
 * core's `planWithdrawal`, and writes the burn (position, supply), the books' move (reserve →
 * outgoing) and one payout command per side before anything is submitted; a refusal burns
 * nothing. The payouts are confirmed from the update stream, each side once.
 */
import { randomBytes } from 'node:crypto';
import {
  Amount,
  assert,
  type BurnRequest,
  DomainError,
  type ForwardedSides,
  liquidityOf,
  planWithdrawal,
  type Side,
  settlePositionFees,
  transferArrived,
} from '@poolparty/core';
import type { Database, EngineCommand, Queryable, WithdrawalRecord } from '@poolparty/store';
import {
  announceEngineWork,
  debitPosition,
  getPool,
  getPosition,
  insertWithdrawal,
  moveWithdrawalPayout,
  raiseOperatorFlag,
} from '@poolparty/store';
import { lockPool, moveBalances } from './accounting.js';
import { fromSwapParty, recordTransfer, transferPayloadOf } from './legs.js';

const WITHDRAWAL_ID_BYTES = 12;

export interface WithdrawalRequest {
  readonly poolId: string;
  readonly providerParty: string;
  readonly apiKeyId: string;
  readonly burn: BurnRequest;
  readonly minimum: ForwardedSides;
  readonly now: Date;
}

/** Records a withdrawal, or refuses it with a domain error and burns nothing. */
export async function recordWithdrawal(
  db: Database,
  request: WithdrawalRequest,
): Promise<WithdrawalRecord> {
  return db.transaction(async (tx) => {
    // An unknown pool has no books to lock: refuse it as a 404 first. Pools are never removed, so
    // the pool found here is the one locked; it is read again under the lock for its supply.
    if ((await getPool(tx, request.poolId)) === null) {
      throw new DomainError('pool_not_found', `No pool ${request.poolId}.`);
    }
    const books = await lockPool(tx, request.poolId);
    const pool = await getPool(tx, request.poolId);
    assert(pool !== null, `pool ${request.poolId} went away under its lock`);
    const position = await getPosition(tx, request.poolId, request.providerParty);
    const plan = planWithdrawal(
      liquidityOf(books, pool.lpSupply),
      position && {
        units: position.units,
        basisA: position.basisA,
        basisB: position.basisB,
      },
      request.burn,
      request.minimum,
    );
    if (plan.kind === 'refused') throw refusal(plan.code, plan.message);
    assert(position !== null, 'a withdrawal planned without a position');
    const withdrawal = await insertWithdrawal(tx, {
      withdrawalId: `wdr_${randomBytes(WITHDRAWAL_ID_BYTES).toString('base64url')}`,
      poolId: request.poolId,
      providerParty: request.providerParty,
      apiKeyId: request.apiKeyId,
      units: plan.units,
      amountA: plan.pay.a,
      amountB: plan.pay.b,
      minimumA: request.minimum.a,
      minimumB: request.minimum.b,
      createdAt: request.now,
    });
    const burned = await debitPosition(tx, {
      poolId: request.poolId,
      providerParty: request.providerParty,
      units: plan.units,
      basisA: plan.basis.a,
      basisB: plan.basis.b,
      // Settled before the burn: what the units earned stays the position's to report.
      fees: settlePositionFees(position.fees, position.units, pool.lpFeeGrowth),
      now: request.now,
    });
    assert(burned, `position of ${request.providerParty} changed under its lock`, {
      poolId: request.poolId,
    });
    await moveBalances(tx, request.poolId, plan.movements, request.now);
    for (const side of ['a', 'b'] as const) {
      const amount = plan.pay[side];
      if (!amount.isPositive()) continue;
      const subject = { intentId: null, depositId: null, withdrawalId: withdrawal.withdrawalId };
      const reason = `withdraw:${withdrawal.withdrawalId}`;
      const payload = fromSwapParty(pool, side, request.providerParty, amount, reason);
      await recordTransfer(tx, { ...subject, part: side }, 'lp_payout', payload, request.now);
    }
    // The payouts go out now, not at an engine's next idle round.
    await announceEngineWork(tx);
    return withdrawal;
  });
}

function refusal(
  code: 'no_position' | 'insufficient_units' | 'minimum_not_met' | 'nothing_to_pay',
  message: string,
): DomainError {
  switch (code) {
    case 'no_position':
      return new DomainError('position_not_found', message);
    case 'insufficient_units':
      return new DomainError('insufficient_units', message);
    case 'minimum_not_met':
      return new DomainError('withdrawal_minimum_not_met', message);
    case 'nothing_to_pay':
      return new DomainError('nothing_to_withdraw', message);
  }
}

function sideOfCommand(command: EngineCommand): { poolId: string; side: Side } | null {
  const payload = transferPayloadOf(command);
  return payload.poolId === null || payload.side === null
    ? null
    : { poolId: payload.poolId, side: payload.side };
}

/** A withdrawal's payout arrived (directly, or its offer was accepted): the books give it up. */
export async function withdrawalPaid(
  tx: Queryable,
  command: EngineCommand,
  transfer: { readonly updateId: string; readonly feesBurned: Amount },
  now: Date,
): Promise<void> {
  const leg = sideOfCommand(command);
  if (leg === null || (command.withdrawalId ?? null) === null) return;
  const books = await lockPool(tx, leg.poolId);
  const paid = await moveWithdrawalPayout(tx, {
    withdrawalId: command.withdrawalId as string,
    side: leg.side,
    from: ['pending', 'offered'],
    to: 'paid',
    updateId: transfer.updateId,
    now,
  });
  if (paid === null) return;
  const amount = Amount.parse(transferPayloadOf(command).amount);
  await moveBalances(
    tx,
    leg.poolId,
    transferArrived(books, leg.side, amount, transfer.feesBurned),
    now,
  );
}

/** The payout became an offer the provider must accept. */
export async function withdrawalOffered(tx: Queryable, command: EngineCommand, now: Date) {
  const leg = sideOfCommand(command);
  if (leg === null || (command.withdrawalId ?? null) === null) return;
  await lockPool(tx, leg.poolId);
  await moveWithdrawalPayout(tx, {
    withdrawalId: command.withdrawalId as string,
    side: leg.side,
    from: ['pending'],
    to: 'offered',
    now,
  });
}

/**
 * The payout cannot reach the provider (its attempts spent, or its offer rejected or expired):
 * the amount stays in `outgoing`, the side is `flagged`, and an operator is told — never lost,
 * never paid twice.
 */
export async function withdrawalPayoutFailed(
  tx: Queryable,
  command: EngineCommand,
  error: string,
  now: Date,
): Promise<void> {
  const leg = sideOfCommand(command);
  if (leg === null || (command.withdrawalId ?? null) === null) return;
  await lockPool(tx, leg.poolId);
  const flagged = await moveWithdrawalPayout(tx, {
    withdrawalId: command.withdrawalId as string,
    side: leg.side,
    from: ['pending', 'offered'],
    to: 'flagged',
    now,
  });
  if (flagged === null) return;
  await raiseOperatorFlag(tx, {
    intentId: null,
    depositId: null,
    kind: 'withdrawal_payout_failed',
    details: {
      commandId: command.commandId,
      withdrawalId: command.withdrawalId,
      side: leg.side,
      error,
    },
    createdAt: now,
  });
}
