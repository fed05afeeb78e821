/**
 * What the liquidity routes answer, built from the store's records: a liquidity intent with its
 * deposits, a withdrawal with its two payouts, and a position valued at the pool's price now.
 */
import {
  AMOUNT_SCALE,
  Amount,
  feesEarned,
  formatRatio,
  type LiquidityIntent,
  liquidityOf,
  type Position,
  positionValue,
  type Ratio,
  ratio,
  type Withdrawal,
} from '@poolparty/core';
import type {
  LiquidityDepositRecord,
  LiquidityIntentRecord,
  PoolRecord,
  PositionRecord,
  WithdrawalRecord,
} from '@poolparty/store';

/** Decimal places of a share of supply: enough to tell a thousandth of a basis point. */
const SHARE_DIGITS = 8;

function instructionsOf(intent: LiquidityIntentRecord): string {
  const send = `send ${intent.expectedA} of token A and ${intent.expectedB} of token B from ${intent.providerParty} to ${intent.depositAddress} with the reason ${intent.depositReference}, in either order, before ${intent.expiresAt.toISOString()}`;
  switch (intent.status) {
    case 'pending':
      return `To add liquidity, ${send}.`;
    case 'partial':
      return `One side arrived; to complete, ${send.replace('send', 'send the other side:')}.`;
    case 'joining':
      return 'Both sides arrived; the liquidity is joining the pool.';
    case 'completed':
      return 'Units credited; see your positions.';
    case 'refunding':
      return 'What arrived is being returned.';
    default:
      return 'Nothing more to do.';
  }
}

export function liquidityIntentView(
  intent: LiquidityIntentRecord,
  pool: PoolRecord,
  deposits: readonly LiquidityDepositRecord[],
): LiquidityIntent {
  const c = intent.completion;
  return {
    liquidityIntentId: intent.liquidityIntentId,
    poolId: intent.poolId,
    status: intent.status,
    providerParty: intent.providerParty,
    depositAddress: intent.depositAddress,
    depositReference: intent.depositReference,
    tokenA: pool.tokenA.id,
    tokenAAdmin: pool.tokenA.admin,
    tokenB: pool.tokenB.id,
    tokenBAdmin: pool.tokenB.admin,
    expected: { a: intent.expectedA.toString(), b: intent.expectedB.toString() },
    expectedUnits: intent.expectedUnits.toString(),
    minimumUnits: intent.minimumUnits.toString(),
    slippageBps: intent.slippageBps,
    deposits: deposits.flatMap((d) =>
      d.side === null
        ? []
        : [
            {
              side: d.side,
              amount: d.amount.toString(),
              status: d.status,
              updateId: d.updateId,
              receivedAt: d.receivedAt.toISOString(),
            },
          ],
    ),
    minted: c && {
      units: c.mintedUnits.toString(),
      joined: { a: c.joinedA.toString(), b: c.joinedB.toString() },
      returned: { a: c.returnedA.toString(), b: c.returnedB.toString() },
    },
    failure:
      intent.failureCode === null
        ? null
        : { code: intent.failureCode, message: intent.failureMessage ?? '' },
    instructions: instructionsOf(intent),
    createdAt: intent.createdAt.toISOString(),
    expiresAt: intent.expiresAt.toISOString(),
    completedAt: intent.completedAt?.toISOString() ?? null,
  };
}

export function withdrawalView(
  w: WithdrawalRecord,
  offers: Partial<Record<'a' | 'b', string>> = {},
): Withdrawal {
  const flagged = w.payoutA === 'flagged' || w.payoutB === 'flagged';
  return {
    withdrawalId: w.withdrawalId,
    poolId: w.poolId,
    providerParty: w.providerParty,
    units: w.units.toString(),
    status: flagged ? 'flagged' : w.completedAt === null ? 'paying' : 'completed',
    payoutA: {
      amount: w.amountA.toString(),
      state: w.payoutA,
      updateId: w.updateA,
      offerId: offers.a ?? null,
    },
    payoutB: {
      amount: w.amountB.toString(),
      state: w.payoutB,
      updateId: w.updateB,
      offerId: offers.b ?? null,
    },
    createdAt: w.createdAt.toISOString(),
    completedAt: w.completedAt?.toISOString() ?? null,
  };
}

/** USD per whole token of each side of a pool, as its stats value them; null without a price. */
export interface SidePricesUsd {
  readonly priceA: Ratio | null;
  readonly priceB: Ratio | null;
}

export const NO_USD_PRICES: SidePricesUsd = { priceA: null, priceB: null };

/** `amount × price`, cut to 10 decimals so a figure never overstates; null without a price. */
function usdOf(amount: Amount, price: Ratio | null): string | null {
  if (price === null) return null;
  return formatRatio(
    ratio(amount.units * price.numerator, AMOUNT_SCALE * price.denominator),
    'down',
  );
}

export function positionView(
  position: PositionRecord,
  pool: PoolRecord,
  prices: SidePricesUsd = NO_USD_PRICES,
): Position {
  const liquidity = liquidityOf(pool.accounting, pool.lpSupply);
  const held = {
    units: position.units,
    basisA: position.basisA,
    basisB: position.basisB,
  };
  const worth = positionValue(liquidity, held);
  const earned = worth.valueInB.units - worth.heldInB.units;
  const share = liquidity.supply.isPositive()
    ? (Number(held.units.units) / Number(liquidity.supply.units)).toFixed(SHARE_DIGITS)
    : '0';
  return {
    poolId: pool.poolId,
    tokenA: pool.tokenA.id,
    tokenAAdmin: pool.tokenA.admin,
    tokenB: pool.tokenB.id,
    tokenBAdmin: pool.tokenB.admin,
    units: position.units.toString(),
    shareOfSupply: share,
    redeemable: { a: worth.redeemable.a.toString(), b: worth.redeemable.b.toString() },
    deposited: { a: position.basisA.toString(), b: position.basisB.toString() },
    valueInB: worth.valueInB.toString(),
    depositedInB: worth.heldInB.toString(),
    earnedInB: `${earned < 0n ? '-' : ''}${Amount.fromUnits(earned < 0n ? -earned : earned)}`,
    feesEarned: feesEarnedView(position, pool, prices),
  };
}

function feesEarnedView(
  position: PositionRecord,
  pool: PoolRecord,
  prices: SidePricesUsd,
): Position['feesEarned'] {
  const fees = feesEarned(position.fees, position.units, pool.lpFeeGrowth);
  return {
    a: fees.a.toString(),
    b: fees.b.toString(),
    aUsd: usdOf(fees.a, prices.priceA),
    bUsd: usdOf(fees.b, prices.priceB),
  };
}
