/**
 * What the liquidity forms show before anything is sent, by core's own liquidity arithmetic (the
 * service's, docs/spec/liquidity.md#units) over the pool's reserves as `pools.list` gives them:
 * the units a deposit would mint and the share of the pool after. The service's own answer (the
 * intent's `expectedUnits`, a withdrawal's payouts) is what counts; these are the figures the
 * person decides with.
 */
import { Amount } from '@poolparty/core/amount';
import {
  afterMint,
  hasPrice,
  liquidityOf,
  openingLiquidity,
  type PoolLiquidity,
  planMint,
} from '@poolparty/core/liquidity';
import type { Pool } from '@poolparty/sdk';

/** The pool's reserves and units as core's arithmetic takes them. */
export function poolLiquidity(pool: Pool): PoolLiquidity {
  return liquidityOf(
    { reserveA: Amount.parse(pool.tokenA.reserve), reserveB: Amount.parse(pool.tokenB.reserve) },
    Amount.parse(pool.lpSupply),
  );
}

export interface MintPreview {
  /** Units credited to the provider. */
  readonly units: Amount;
  /** The provider's units (those `held` already and the new) over the supply after, a fraction. */
  readonly shareAfter: number;
}

/**
 * What depositing `a` and `b` mints, or null when it would mint nothing or, as the service
 * refuses it, when the units or the pool after the deposit would pass what an amount holds. On a
 * pool without a price, the form asks for both amounts, and they are shown as what opens it: the
 * first deposit's units, whatever its books hold.
 */
export function previewMint(
  pool: PoolLiquidity,
  a: Amount,
  b: Amount,
  held: Amount = Amount.ZERO,
): MintPreview | null {
  let minted: Amount;
  let supplyAfter: Amount;
  if (hasPrice(pool)) {
    const plan = planMint(pool, a, b);
    if (plan.kind === 'refused') return null;
    minted = plan.minted;
    supplyAfter = afterMint(pool, plan).supply;
  } else {
    const opened = openingLiquidity(a, b);
    minted = opened.ownerUnits;
    supplyAfter = opened.supply;
  }
  if (!minted.isPositive()) return null;
  return {
    units: minted,
    shareAfter: Number(held.units + minted.units) / Number(supplyAfter.units),
  };
}
