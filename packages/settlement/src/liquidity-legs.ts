/**
 * Liquidity's legs after intake (docs/spec/liquidity.md#exactly-once): a deposit offer accepted,
 * a deposit forwarded to the swap party, the intent completed with a mint or refunded, amounts
 * returned, and what a leg that cannot be sent leaves for an operator. Every outcome applies under
 * the pool's lock (taken before any intent row) and only if a compare-and-set on the deposit or the
 * intent succeeds first, so a second delivery moves nothing.
 */
import {
  Amount,
  assert,
  credit,
  type ForwardedSides,
  lateSideReturned,
  liquidityOf,
  planLiquidityCompletion,
  type Side,
  transferArrived,
} from '@poolparty/core';
import type { EngineCommand, LiquidityDepositRecord, Queryable } from '@poolparty/store';
import {
  countOpenLiquidityCommands,
  creditPosition,
  depositsOfLiquidityIntent,
  endCommandOffer,
  failCommand,
  getLiquidityDeposit,
  getLiquidityIntent,
  getPool,
  type LiquidityIntentRecord,
  liquidityDepositByOffer,
  moveLiquidityDeposit,
  openCommandsOfLiquidityDeposit,
  raiseOperatorFlag,
  transitionLiquidityIntent,
} from '@poolparty/store';
import { lockPool, moveBalances } from './accounting.js';
import type { Effects } from './context.js';
import {
  fromSwapParty,
  offerActionPayloadOf,
  recordOfferAction,
  recordTransfer,
  transferPayloadOf,
} from './legs.js';
import { settledPositionFees } from './lp-fees.js';

/** The legs of liquidity, which this module and withdrawals.ts apply. */
export const LIQUIDITY_LEGS = ['lp_accept', 'forward', 'lp_return', 'lp_payout'] as const;

export function isLiquidityCommand(command: EngineCommand): boolean {
  return (
    (LIQUIDITY_LEGS as readonly string[]).includes(command.leg) ||
    (command.leg === 'reject' && (command.liquidityDepositId ?? null) !== null)
  );
}

async function depositOf(tx: Queryable, command: EngineCommand) {
  const id = command.liquidityDepositId ?? null;
  return id === null ? null : getLiquidityDeposit(tx, id);
}

/**
 * An accept of the service's committed. For a deposit still `accepting`, the provider's offer to
 * the LP party: the amount is held there, and forwarded on. For one `forwarding`, the offer the
 * forward became (the swap party pre-approves no such token): the amount reached the swap party.
 */
export async function liquidityOfferAccepted(
  tx: Queryable,
  command: EngineCommand,
  now: Date,
  effects: Effects,
) {
  const deposit = await depositOf(tx, command);
  if (deposit === null) return;
  if (deposit.status === 'forwarding') {
    // The forward's offer is taken: the service has no withdrawal of it left to make.
    await endCommandOffer(tx, offerActionPayloadOf(command).offerId);
    return liquidityForwarded(tx, command, now, effects);
  }
  const moved = await moveLiquidityDeposit(tx, {
    depositId: deposit.depositId,
    from: ['accepting'],
    to: 'forwarding',
    now,
  });
  if (moved === null) return;
  const pool = await getPool(tx, moved.poolId);
  assert(pool !== null, `unknown pool ${moved.poolId}`);
  await recordForward(tx, pool, moved, now);
}

/** The pool's parties a liquidity leg moves between. */
type PoolParties = {
  readonly poolId: string;
  readonly swapParty: string;
  readonly lpParty: string;
};

/** Records the forward of a deposit the LP party holds to the pool's swap party. */
export async function recordForward(
  tx: Queryable,
  pool: PoolParties,
  deposit: Pick<
    LiquidityDepositRecord,
    'depositId' | 'liquidityIntentId' | 'instrument' | 'amount'
  >,
  now: Date,
): Promise<void> {
  const subject = {
    intentId: null,
    depositId: null,
    liquidityDepositId: deposit.depositId,
    liquidityIntentId: deposit.liquidityIntentId,
  };
  const payload = {
    kind: 'transfer',
    poolId: null,
    side: null,
    sender: pool.lpParty,
    receiver: pool.swapParty,
    instrument: deposit.instrument,
    amount: deposit.amount.toString(),
    reason: `forward:${deposit.depositId}`,
  } as const;
  await recordTransfer(tx, subject, 'forward', payload, now);
}

/**
 * A deposit reached the swap party: it is in the books' `inflight`. The intent completes once
 * both its sides are there; a side that arrives after the intent stopped waiting goes back.
 */
export async function liquidityForwarded(
  tx: Queryable,
  command: EngineCommand,
  now: Date,
  effects: Effects,
): Promise<void> {
  const deposit = await depositOf(tx, command);
  if (deposit === null || deposit.side === null) return;
  await lockPool(tx, deposit.poolId);
  const moved = await moveLiquidityDeposit(tx, {
    depositId: deposit.depositId,
    from: ['forwarding'],
    to: 'forwarded',
    now,
  });
  if (moved === null) return;
  const amount = deposit.amount;
  await moveBalances(tx, deposit.poolId, [credit(deposit.side, 'inflight', amount)], now);
  const intent =
    deposit.liquidityIntentId && (await getLiquidityIntent(tx, deposit.liquidityIntentId));
  if (!intent) return;
  if (intent.status === 'refunding') {
    await returnSides(tx, intent, { [deposit.side]: amount }, now);
    return;
  }
  if (intent.status === 'joining') await completeIfJoined(tx, intent, now, effects);
}

/** The amounts of both sides with the swap party; null while a side is still on its way. */
function forwardedSides(deposits: readonly LiquidityDepositRecord[]): ForwardedSides | null {
  const of = (side: Side) => deposits.find((d) => d.side === side && d.status === 'forwarded');
  const [a, b] = [of('a'), of('b')];
  if (a === undefined || b === undefined) return null;
  return { a: a.amount, b: b.amount };
}

async function completeIfJoined(
  tx: Queryable,
  intent: LiquidityIntentRecord,
  now: Date,
  effects: Effects,
): Promise<void> {
  const forwarded = forwardedSides(await depositsOfLiquidityIntent(tx, intent.liquidityIntentId));
  if (forwarded === null) return;
  const books = await lockPool(tx, intent.poolId);
  const pool = await getPool(tx, intent.poolId);
  assert(pool !== null, `unknown pool ${intent.poolId}`);
  const liquidity = liquidityOf(books, pool.lpSupply);
  const plan = planLiquidityCompletion(liquidity, forwarded, intent.minimumUnits);
  await moveBalances(tx, intent.poolId, plan.movements, now);
  if (plan.kind === 'refund') {
    await transitionLiquidityIntent(tx, {
      liquidityIntentId: intent.liquidityIntentId,
      from: ['joining'],
      to: 'refunding',
      at: now,
      failure: plan.failure,
    });
    await returnSides(tx, intent, plan.refund, now, false);
    return;
  }
  await creditPosition(tx, {
    poolId: intent.poolId,
    providerParty: intent.providerParty,
    units: plan.minted,
    basisA: plan.join.a,
    basisB: plan.join.b,
    supplyAdded: plan.minted.add(plan.locked),
    // Settled before the units join, so they take no share of the fees before them.
    fees: await settledPositionFees(tx, intent.poolId, intent.providerParty),
    now,
  });
  await transitionLiquidityIntent(tx, {
    liquidityIntentId: intent.liquidityIntentId,
    from: ['joining'],
    to: 'completed',
    at: now,
    completion: {
      mintedUnits: plan.minted,
      joinedA: plan.join.a,
      joinedB: plan.join.b,
      returnedA: plan.excess.a,
      returnedB: plan.excess.b,
    },
  });
  await returnSides(tx, intent, plan.excess, now, false);
  effects.poolsRepriced.add(intent.poolId);
}

/**
 * Sends amounts back from the swap party to the provider, one leg per side with something to
 * return. `fromInflight`: a late side still counted in `inflight` moves to `outgoing` first (a
 * completion's plan has moved its own amounts already).
 */
async function returnSides(
  tx: Queryable,
  intent: LiquidityIntentRecord,
  amounts: Partial<Record<Side, Amount>>,
  now: Date,
  fromInflight = true,
): Promise<void> {
  const pool = await getPool(tx, intent.poolId);
  assert(pool !== null, `unknown pool ${intent.poolId}`);
  for (const side of ['a', 'b'] as const) {
    const amount = amounts[side];
    if (amount === undefined || !amount.isPositive()) continue;
    if (fromInflight) await moveBalances(tx, intent.poolId, lateSideReturned(side, amount), now);
    const subject = {
      intentId: null,
      depositId: null,
      liquidityIntentId: intent.liquidityIntentId,
    };
    const reason = `return:${intent.liquidityIntentId}`;
    const payload = fromSwapParty(pool, side, intent.providerParty, amount, reason);
    await recordTransfer(tx, { ...subject, part: side }, 'lp_return', payload, now);
  }
}

/**
 * An amount returned to its sender arrived: from the swap party its books give it up; from the
 * LP party the deposit is back with its sender. A refunding intent ends once nothing is left open.
 */
export async function liquidityReturned(
  tx: Queryable,
  command: EngineCommand,
  transfer: { readonly feesBurned: Amount },
  now: Date,
): Promise<void> {
  const payload = transferPayloadOf(command);
  if (payload.poolId !== null && payload.side !== null) {
    const books = await lockPool(tx, payload.poolId);
    const amount = Amount.parse(payload.amount);
    await moveBalances(
      tx,
      payload.poolId,
      transferArrived(books, payload.side, amount, transfer.feesBurned),
      now,
    );
  } else if ((command.liquidityDepositId ?? null) !== null) {
    await moveLiquidityDeposit(tx, {
      depositId: command.liquidityDepositId as string,
      from: ['returning', 'accepting'],
      to: 'returned',
      now,
    });
  }
  const intentId = command.liquidityIntentId ?? null;
  if (intentId !== null) await settleRefunding(tx, intentId, now);
}

/**
 * The service's rejection of a deposit offer to the LP party committed (an offer it did not ask
 * for, or one for an intent that stopped waiting): the offered holdings are back with their
 * sender, at no cost to anyone, and nothing else is owed.
 */
export async function liquidityOfferRejected(
  tx: Queryable,
  command: EngineCommand,
  now: Date,
): Promise<void> {
  const deposit = await depositOf(tx, command);
  if (deposit === null) return;
  await lockPool(tx, deposit.poolId);
  await moveLiquidityDeposit(tx, {
    depositId: deposit.depositId,
    from: ['accepting', 'returning'],
    to: 'returned',
    now,
  });
  const intentId = command.liquidityIntentId ?? deposit.liquidityIntentId;
  if (intentId !== null) await settleRefunding(tx, intentId, now);
}

/** A refunding intent ends when none of its legs is open: refunded, or refund_failed if any was flagged. */
async function settleRefunding(tx: Queryable, liquidityIntentId: string, now: Date): Promise<void> {
  if ((await countOpenLiquidityCommands(tx, liquidityIntentId)) > 0) return;
  const deposits = await depositsOfLiquidityIntent(tx, liquidityIntentId);
  if (deposits.some((d) => d.status === 'accepting' || d.status === 'forwarding')) return;
  const flagged = deposits.some((d) => d.status === 'flagged');
  await transitionLiquidityIntent(tx, {
    liquidityIntentId,
    from: ['refunding'],
    to: flagged ? 'refund_failed' : 'refunded',
    at: now,
  });
}

/**
 * The intent stops waiting (it expired with a side in, a side's offer could not be accepted or
 * forwarded): whatever is with the swap party goes back, what is still on its way goes back when
 * it arrives, and the intent ends once nothing is left open.
 */
export async function refundLiquidityIntent(
  tx: Queryable,
  intent: LiquidityIntentRecord,
  failure: { readonly code: string; readonly message: string },
  now: Date,
  from: readonly ('partial' | 'joining')[] = ['partial', 'joining'],
): Promise<void> {
  await lockPool(tx, intent.poolId);
  const moved = await transitionLiquidityIntent(tx, {
    liquidityIntentId: intent.liquidityIntentId,
    from,
    to: 'refunding',
    at: now,
    failure,
  });
  if (moved === null) return;
  const deposits = await depositsOfLiquidityIntent(tx, intent.liquidityIntentId);
  const held = Object.fromEntries(
    deposits.flatMap((d) => (d.status === 'forwarded' && d.side ? [[d.side, d.amount]] : [])),
  );
  await returnSides(tx, intent, held, now);
  await settleRefunding(tx, intent.liquidityIntentId, now);
}

/**
 * A liquidity leg given up (its attempts spent, or its offer came back): the amount stays where
 * it is — with the LP party, or in the swap party's `outgoing` — and an operator is told; never
 * guessed, never sent twice.
 */
export async function liquidityLegFailed(
  tx: Queryable,
  command: EngineCommand,
  error: string,
  now: Date,
): Promise<void> {
  const deposit = await depositOf(tx, command);
  const poolId = deposit?.poolId ?? transferPoolOf(command);
  if (poolId !== null) await lockPool(tx, poolId);
  await failCommand(tx, command.commandId, error, now);
  const intentId = command.liquidityIntentId ?? deposit?.liquidityIntentId ?? null;
  // The accept of the provider's own offer: not accepted, its holdings stay with the provider.
  // The swap party's accept of a forward that became an offer is a forward failing: flagged.
  if (command.leg === 'lp_accept' && deposit?.status === 'accepting') {
    await moveLiquidityDeposit(tx, {
      depositId: deposit.depositId,
      from: ['accepting'],
      to: 'returned',
      now,
    });
  } else {
    if (deposit !== null) {
      await moveLiquidityDeposit(tx, {
        depositId: deposit.depositId,
        from: ['forwarding', 'returning', 'accepting'],
        to: 'flagged',
        now,
      });
    }
    await raiseOperatorFlag(tx, {
      intentId: null,
      depositId: null,
      kind: `liquidity_${command.leg}_failed`,
      details: { commandId: command.commandId, liquidityIntentId: intentId, error },
      createdAt: now,
    });
  }
  if (intentId === null) return;
  const intent = await getLiquidityIntent(tx, intentId);
  if (intent === null) return;
  if (intent.status === 'partial' || intent.status === 'joining') {
    const message = `A deposit could not be taken in (${error}); what arrived is returned.`;
    await refundLiquidityIntent(tx, intent, { code: 'deposit_not_taken', message }, now);
  } else if (intent.status === 'refunding') {
    await settleRefunding(tx, intentId, now);
  }
}

function transferPoolOf(command: EngineCommand): string | null {
  const payload = command.payload as { readonly poolId?: string | null } | null;
  return payload?.poolId ?? null;
}

/**
 * A deposit offer to an LP party ended before the service accepted it (its sender withdrew it):
 * the deposit is back with its sender, the accept still open is moot, and the intent it was for
 * returns whatever else arrived.
 */
export async function liquidityOfferTakenBack(
  tx: Queryable,
  offerId: string,
  ending: 'rejected' | 'withdrawn',
  now: Date,
): Promise<void> {
  const deposit = await liquidityDepositByOffer(tx, offerId);
  if (deposit === null) return;
  await lockPool(tx, deposit.poolId);
  const returned = await moveLiquidityDeposit(tx, {
    depositId: deposit.depositId,
    from: ['accepting', 'returning'],
    to: 'returned',
    now,
  });
  if (returned === null) return;
  for (const open of await openCommandsOfLiquidityDeposit(tx, deposit.depositId)) {
    await failCommand(tx, open.commandId, `the offer was ${ending}`, now);
  }
  const intent =
    deposit.liquidityIntentId && (await getLiquidityIntent(tx, deposit.liquidityIntentId));
  if (!intent) return;
  if (intent.status === 'partial' || intent.status === 'joining') {
    const message = `The deposit offer was ${ending} before the service accepted it; what else arrived is returned.`;
    await refundLiquidityIntent(tx, intent, { code: `deposit_offer_${ending}`, message }, now);
  } else if (intent.status === 'refunding') {
    await settleRefunding(tx, intent.liquidityIntentId, now);
  }
}

/** The forward became an offer to the swap party: the swap party accepts it. */
export async function forwardOffered(
  tx: Queryable,
  command: EngineCommand,
  offerId: string,
  now: Date,
): Promise<void> {
  const deposit = await depositOf(tx, command);
  if (deposit === null || deposit.status !== 'forwarding') return;
  const pool = await getPool(tx, deposit.poolId);
  assert(pool !== null, `unknown pool ${deposit.poolId}`);
  const subject = {
    intentId: null,
    depositId: null,
    liquidityDepositId: deposit.depositId,
    liquidityIntentId: deposit.liquidityIntentId,
    part: 'forward',
  };
  const action = { kind: 'accept', poolId: pool.poolId, offerId, actor: pool.swapParty } as const;
  await recordOfferAction(tx, subject, action, now, 'lp_accept');
}
