/**
 * A transfer or offer that reached a pool's LP party (docs/spec/liquidity.md#deposits): read the
 * intent it names (its reference, else the sender's open intent for the pool) and the sides that
 * intent has taken, plan with core's `attributeLiquidityDeposit`, then write: the deposit, the
 * intent's next state, and the command that moves the amount on — forwarded to the swap party,
 * accepted first when it is an offer, or returned whole to its sender.
 */
import {
  attributeLiquidityDeposit,
  type LiquidityAttribution,
  type LiquidityCandidate,
  type Side,
  sameInstrument,
  sideOf,
} from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import type { Queryable } from '@poolparty/store';
import {
  depositsOfLiquidityIntent,
  findLiquidityIntentByReference,
  findOpenLiquidityIntent,
  getLiquidityDeposit,
  insertLiquidityDeposit,
  type LiquidityDepositStatus,
  type LiquidityIntentRecord,
  transitionLiquidityIntent,
} from '@poolparty/store';
import { lockPool } from './accounting.js';
import type { IncomingDeposit } from './intake.js';
import { recordOfferAction, recordTransfer } from './legs.js';
import { recordForward } from './liquidity-legs.js';

/** The deposit's id: one per ledger event, so a second delivery is recognised. */
export function liquidityDepositIdOf(updateId: string, eventIndex: number): string {
  return `lp:${updateId}:${eventIndex}`;
}

/** The sides an intent's deposits have taken (those not returned). */
const TAKING: readonly LiquidityDepositStatus[] = ['accepting', 'forwarding', 'forwarded'];

async function candidateFor(
  tx: Queryable,
  incoming: IncomingDeposit,
): Promise<{ intent: LiquidityIntentRecord | null; candidate: LiquidityCandidate | null }> {
  const reference = incoming.meta[REASON_META_KEY];
  const intent =
    typeof reference === 'string' && reference.length > 0
      ? await findLiquidityIntentByReference(tx, reference)
      : await findOpenLiquidityIntent(tx, incoming.sender, incoming.pool.poolId);
  if (intent === null) return { intent, candidate: null };
  const deposits = await depositsOfLiquidityIntent(tx, intent.liquidityIntentId);
  const sidesTaken = deposits.flatMap((d) => (TAKING.includes(d.status) && d.side ? [d.side] : []));
  return { intent, candidate: { ...intent, sidesTaken } };
}

function sideOfIncoming(incoming: IncomingDeposit): Side | null {
  const { pool, instrument } = incoming;
  const traded = [pool.tokenA, pool.tokenB].some((i) => sameInstrument(i, instrument));
  return traded ? sideOf(pool, instrument) : null;
}

/**
 * Takes one deposit to an LP party; a second delivery of the same event changes nothing. The
 * pool's lock is taken before the intent is read, as a cancel and an expiry take it: the intent
 * read here is the one the deposit's state change applies to, so a deposit is never kept by an
 * intent that has stopped waiting. Should the intent have moved on all the same, the deposit goes
 * back to its sender as one that arrived too late.
 */
export async function takeLiquidityDeposit(
  tx: Queryable,
  incoming: IncomingDeposit,
  now: Date,
): Promise<void> {
  const depositId = liquidityDepositIdOf(incoming.updateId, incoming.eventIndex);
  await lockPool(tx, incoming.pool.poolId);
  if ((await getLiquidityDeposit(tx, depositId)) !== null) return;
  const { intent, candidate } = await candidateFor(tx, incoming);
  const side = sideOfIncoming(incoming);
  const planned = attributeLiquidityDeposit(
    {
      poolId: incoming.pool.poolId,
      sender: incoming.sender,
      side,
      receivedAt: incoming.recordTime,
    },
    candidate,
  );
  const plan = await takeSide(tx, planned, intent, incoming, depositId, now);
  const taken = plan.kind === 'take' && intent !== null;
  const offer = incoming.offerId !== null;
  const status: LiquidityDepositStatus = offer ? 'accepting' : taken ? 'forwarding' : 'returning';
  await insertLiquidityDeposit(tx, {
    depositId,
    updateId: incoming.updateId,
    eventIndex: incoming.eventIndex,
    offset: incoming.offset,
    poolId: incoming.pool.poolId,
    liquidityIntentId: taken ? intent.liquidityIntentId : null,
    sender: incoming.sender,
    side,
    instrument: incoming.instrument,
    amount: incoming.amount,
    reference: incoming.meta[REASON_META_KEY] ?? null,
    offerId: incoming.offerId,
    status,
    unmatchedReason: plan.kind === 'return' ? plan.reason : null,
    receivedAt: incoming.recordTime,
  });
  await moveOn(
    tx,
    incoming,
    { depositId, taken, intentId: taken ? intent.liquidityIntentId : null },
    now,
  );
}

/**
 * Moves the intent that takes the deposit to its next state; the plan as it stands when that
 * applied, a return (`intent_not_open`) when the intent had already moved on.
 */
async function takeSide(
  tx: Queryable,
  plan: LiquidityAttribution,
  intent: LiquidityIntentRecord | null,
  incoming: IncomingDeposit,
  depositId: string,
  now: Date,
): Promise<LiquidityAttribution> {
  if (plan.kind !== 'take' || intent === null) return plan;
  const moved = await transitionLiquidityIntent(tx, {
    liquidityIntentId: intent.liquidityIntentId,
    // Its first side takes it from `pending`, its second from `partial`: never a step skipped.
    from: [plan.becomes === 'partial' ? 'pending' : 'partial'],
    to: plan.becomes,
    at: now,
    payload: { side: plan.side, amount: incoming.amount.toString(), depositId },
  });
  return moved === null ? { kind: 'return', reason: 'intent_not_open' } : plan;
}

/** The command that moves a deposit on from the LP party: accept, forward, reject or return. */
async function moveOn(
  tx: Queryable,
  incoming: IncomingDeposit,
  deposit: {
    readonly depositId: string;
    readonly taken: boolean;
    readonly intentId: string | null;
  },
  now: Date,
): Promise<void> {
  const { pool } = incoming;
  const subject = {
    intentId: null,
    depositId: null,
    liquidityDepositId: deposit.depositId,
    liquidityIntentId: deposit.intentId,
  };
  if (incoming.offerId !== null) {
    const kind = deposit.taken ? 'accept' : 'reject';
    const action = {
      kind,
      poolId: pool.poolId,
      offerId: incoming.offerId,
      actor: pool.lpParty,
    } as const;
    await recordOfferAction(tx, subject, action, now, deposit.taken ? 'lp_accept' : 'reject');
    return;
  }
  const { amount } = incoming;
  if (deposit.taken) {
    const { depositId, intentId: liquidityIntentId } = deposit;
    await recordForward(
      tx,
      pool,
      { depositId, liquidityIntentId, instrument: incoming.instrument, amount },
      now,
    );
    return;
  }
  // Nobody's: back whole from the LP party to its sender.
  await recordTransfer(
    tx,
    subject,
    'lp_return',
    {
      kind: 'transfer',
      poolId: null,
      side: null,
      sender: pool.lpParty,
      receiver: incoming.sender,
      instrument: incoming.instrument,
      amount: amount.toString(),
      reason: `return:${deposit.depositId}`,
    },
    now,
  );
}
