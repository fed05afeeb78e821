/**
 * What the liquidity forms show before anything is sent: the other side at the pool's ratio,
 * the units a deposit would mint and the share of the pool after, what burning units pays, and
 * the least accepted after slippage. The arithmetic of core's `liquidity.ts`
 * (docs/spec/liquidity.md#units), over the pool's reserves as `pools.list` gives them; it lives
 * here because the app imports only core's `amount` module, keeping the wire schemas out of the
 * bundle. The service's own answer (the intent's `expectedUnits`, a withdrawal's payouts) is what
 * counts; these are the figures the person decides with.
 */
import { Amount } from '@poolparty/core/amount';
import type { Pool } from '@poolparty/sdk';

/** Units locked by a pool's first deposit (core's `MINIMUM_LOCKED_UNITS`). */
const LOCKED_UNITS = 1_000n;

export type Side = 'a' | 'b';

export interface PoolLiquidity {
  readonly reserveA: Amount;
  readonly reserveB: Amount;
  readonly supply: Amount;
}

export function liquidityOf(pool: Pool): PoolLiquidity {
  return {
    reserveA: Amount.parse(pool.tokenA.reserve),
    reserveB: Amount.parse(pool.tokenB.reserve),
    supply: Amount.parse(pool.lpSupply),
  };
}

/** True while the pool has no units: its first deposit needs both sides and sets the price. */
export function isEmptyPool(pool: PoolLiquidity): boolean {
  return !pool.supply.isPositive() || !pool.reserveA.isPositive() || !pool.reserveB.isPositive();
}

/** The other side for `amount` on `side`, rounded up so the typed side limits the mint. */
export function pairedAmount(pool: PoolLiquidity, side: Side, amount: Amount): Amount | null {
  if (isEmptyPool(pool)) return null;
  const [own, other] =
    side === 'a' ? [pool.reserveA, pool.reserveB] : [pool.reserveB, pool.reserveA];
  return Amount.fromUnits(ceilDiv(amount.units * other.units, own.units));
}

export interface MintPreview {
  /** Units credited to the provider. */
  readonly units: Amount;
  /** The provider's units (those `held` already and the new) over the supply after, a fraction. */
  readonly shareAfter: number;
}

/**
 * What depositing `a` and `b` mints, or null when it would mint nothing or, as the service
 * refuses it, when the units or the pool after the deposit would pass what an amount holds.
 */
export function previewMint(
  pool: PoolLiquidity,
  a: Amount,
  b: Amount,
  held: Amount = Amount.ZERO,
): MintPreview | null {
  if (!a.isPositive() || !b.isPositive()) return null;
  let minted: bigint;
  let supplyAfter: bigint;
  if (isEmptyPool(pool)) {
    const root = integerSqrt(a.units * b.units);
    minted = root - LOCKED_UNITS;
    supplyAfter = root;
  } else {
    const s = pool.supply.units;
    const byA = (a.units * s) / pool.reserveA.units;
    const byB = (b.units * s) / pool.reserveB.units;
    // The side that mints fewer units limits the mint.
    const aLimits = byA <= byB;
    minted = aLimits ? byA : byB;
    supplyAfter = s + minted;
    const joinA = aLimits ? a.units : ceilDiv(minted * pool.reserveA.units, s);
    const joinB = aLimits ? ceilDiv(minted * pool.reserveB.units, s) : b.units;
    const after = [minted, supplyAfter, pool.reserveA.units + joinA, pool.reserveB.units + joinB];
    if (!after.every((units) => Amount.tryFromUnits(units) !== null)) return null;
  }
  if (minted <= 0n) return null;
  return {
    units: Amount.fromUnits(minted),
    shareAfter: Number(held.units + minted) / Number(supplyAfter),
  };
}

/** What burning `units` pays from each side, rounded down; null above the supply. */
export function previewBurn(pool: PoolLiquidity, units: Amount): { a: Amount; b: Amount } | null {
  const s = pool.supply.units;
  if (!units.isPositive() || units.units > s) return null;
  return {
    a: Amount.fromUnits((units.units * pool.reserveA.units) / s),
    b: Amount.fromUnits((units.units * pool.reserveB.units) / s),
  };
}

/** The units a share of a position burns, as the service computes them (rounded down). */
export function unitsOfShare(held: Amount, shareBps: number): Amount {
  return held.mulDiv(BigInt(shareBps), 10_000n, 'down');
}

/** `amount` less `slippageBps`, rounded down: the least accepted. */
export function lessSlippage(amount: Amount, slippageBps: number): Amount {
  return amount.mulDiv(BigInt(10_000 - slippageBps), 10_000n, 'down');
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

function integerSqrt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
}
