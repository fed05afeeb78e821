/**
 * Liquidity units (docs/spec/liquidity.md): what a liquidity provider's deposit mints, what
 * burning units pays back, and what a position is worth. Pure, over exact amounts; every rounding
 * favours the pool, so no sequence of mints and burns can take out more than went in.
 *
 * - A pool's first deposit mints `floor(sqrt(a·b))` units (the supply does not depend on which
 *   side is called A), of which `MINIMUM_LOCKED_UNITS` are locked forever: the supply can never
 *   return to zero, so nobody can make one unit worth so much that later deposits round to
 *   nothing and their value accrues to the first provider.
 * - A later deposit mints `min(a·S/Ra, b·S/Rb)`, rounded down. The side that limits the mint joins
 *   the reserves whole (what rounding leaves over is less than one unit's worth and stays with the
 *   pool); the other side joins as much as the units are worth, rounded up, and its excess is
 *   returned.
 * - Burning `u` units pays `u·Ra/S` and `u·Rb/S`, each rounded down.
 *
 * Also the entry `@poolparty/core/liquidity`, from which the web pages preview the same figures:
 * it imports amounts and pricing arithmetic only, none of the wire schemas or anything of Node.
 */
import { Amount } from './amount.js';
import type { Side } from './pool-books.js';
import { integerSqrt } from './pricing.js';

/**
 * Units locked by a pool's first deposit, owned by no one (0.0000001 units, a thousand of the
 * smallest). Small enough to cost the first provider nothing they would notice at any real price,
 * large enough that the supply never returns to zero and a unit's value cannot be inflated.
 */
export const MINIMUM_LOCKED_UNITS = Amount.fromUnits(1_000n);

/** A pool's reserves (as its books hold them) and its liquidity-unit supply. */
export interface PoolLiquidity {
  readonly reserveA: Amount;
  readonly reserveB: Amount;
  readonly supply: Amount;
}

/** The pool's liquidity from its books' reserves and its supply. */
export function liquidityOf(
  books: { readonly reserveA: Amount; readonly reserveB: Amount },
  lpSupply: Amount,
): PoolLiquidity {
  return { reserveA: books.reserveA, reserveB: books.reserveB, supply: lpSupply };
}

export type MintRefusal =
  /** A deposit of one side only: units need both. */
  | 'one_side_missing'
  /** A first deposit whose units would not exceed the locked minimum. */
  | 'first_deposit_too_small'
  /** Reserves without units (funded outside liquidity provision): no price to mint at. */
  | 'reserves_without_units'
  /** Units without reserves on a side: the pool cannot price a deposit. */
  | 'pool_side_empty'
  /** The deposit is worth less than one unit's smallest fraction. */
  | 'nothing_minted'
  /** The units, or the pool's reserves or supply after the mint, would pass 28 integer digits. */
  | 'amount_out_of_range';

export type MintPlan =
  | {
      readonly kind: 'mint';
      /** Units credited to the provider. */
      readonly minted: Amount;
      /** Units locked forever (a first deposit only), part of the supply. */
      readonly locked: Amount;
      /** What joins the reserves, per side. */
      readonly joinA: Amount;
      readonly joinB: Amount;
      /** What is returned to the provider, per side. */
      readonly excessA: Amount;
      readonly excessB: Amount;
    }
  | { readonly kind: 'refused'; readonly reason: MintRefusal };

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/** What depositing `a` and `b` into the pool mints, and what joins and returns. */
export function planMint(pool: PoolLiquidity, a: Amount, b: Amount): MintPlan {
  if (!a.isPositive() || !b.isPositive()) return { kind: 'refused', reason: 'one_side_missing' };
  if (!pool.supply.isPositive()) return planFirstMint(pool, a, b);
  const [ra, rb, s] = [pool.reserveA.units, pool.reserveB.units, pool.supply.units];
  if (ra === 0n || rb === 0n) return { kind: 'refused', reason: 'pool_side_empty' };
  const byA = (a.units * s) / ra;
  const byB = (b.units * s) / rb;
  // The side that mints fewer units limits the mint and joins whole.
  const aLimits = byA <= byB;
  const minted = aLimits ? byA : byB;
  if (minted === 0n) return { kind: 'refused', reason: 'nothing_minted' };
  const joinA = aLimits ? a.units : ceilDiv(minted * ra, s);
  const joinB = aLimits ? ceilDiv(minted * rb, s) : b.units;
  // Each side joins at most what was deposited, so only the units and the pool's totals after
  // the mint can pass the range an amount holds; refused here, they never reach the books.
  if (!fitsInAmount(minted, s + minted, ra + joinA, rb + joinB)) {
    return { kind: 'refused', reason: 'amount_out_of_range' };
  }
  return {
    kind: 'mint',
    minted: Amount.fromUnits(minted),
    locked: Amount.ZERO,
    joinA: Amount.fromUnits(joinA),
    joinB: Amount.fromUnits(joinB),
    excessA: Amount.fromUnits(a.units - joinA),
    excessB: Amount.fromUnits(b.units - joinB),
  };
}

/** Whether every one of `units` is an amount (Daml `Numeric 10`: 28 integer digits at most). */
function fitsInAmount(...units: readonly bigint[]): boolean {
  return units.every((each) => Amount.tryFromUnits(each) !== null);
}

function planFirstMint(pool: PoolLiquidity, a: Amount, b: Amount): MintPlan {
  if (pool.reserveA.isPositive() || pool.reserveB.isPositive()) {
    return { kind: 'refused', reason: 'reserves_without_units' };
  }
  const units = integerSqrt(a.units * b.units);
  if (units <= MINIMUM_LOCKED_UNITS.units) {
    return { kind: 'refused', reason: 'first_deposit_too_small' };
  }
  return {
    kind: 'mint',
    minted: Amount.fromUnits(units - MINIMUM_LOCKED_UNITS.units),
    locked: MINIMUM_LOCKED_UNITS,
    joinA: a,
    joinB: b,
    excessA: Amount.ZERO,
    excessB: Amount.ZERO,
  };
}

/** The units that burning `shareBps` basis points of `held` units burns, rounded down. */
export function unitsOfShare(held: Amount, shareBps: number): Amount {
  return held.mulDiv(BigInt(shareBps), 10_000n, 'down');
}

/** What burning `units` pays out of each side, rounded down; null when `units` exceed supply. */
export function planBurn(
  pool: PoolLiquidity,
  units: Amount,
): { readonly payA: Amount; readonly payB: Amount } | null {
  const s = pool.supply.units;
  if (!units.isPositive() || units.units > s) return null;
  return {
    payA: Amount.fromUnits((units.units * pool.reserveA.units) / s),
    payB: Amount.fromUnits((units.units * pool.reserveB.units) / s),
  };
}

/** The pool after a mint: reserves and supply grown by what joined and what was minted. */
export function afterMint(pool: PoolLiquidity, plan: Extract<MintPlan, { kind: 'mint' }>) {
  return {
    reserveA: pool.reserveA.add(plan.joinA),
    reserveB: pool.reserveB.add(plan.joinB),
    supply: pool.supply.add(plan.minted).add(plan.locked),
  };
}

/** The pool after a burn of `units` paid `pay`. */
export function afterBurn(
  pool: PoolLiquidity,
  units: Amount,
  pay: { readonly payA: Amount; readonly payB: Amount },
): PoolLiquidity {
  return {
    reserveA: pool.reserveA.sub(pay.payA),
    reserveB: pool.reserveB.sub(pay.payB),
    supply: pool.supply.sub(units),
  };
}

/**
 * The other side's amount for a deposit of `amount` on `side` at the pool's ratio, rounded up so
 * the given side limits the mint (the other's rounding excess is returned). Null for a pool with
 * no ratio yet (the first deposit sets it) or an empty side; throws `AmountRangeError` when the
 * ratio makes it more than an amount holds (`pairedUnits` answers that without throwing).
 */
export function pairedAmount(pool: PoolLiquidity, side: Side, amount: Amount): Amount | null {
  const units = pairedUnits(pool, side, amount);
  return units === null ? null : Amount.fromUnits(units);
}

/** `pairedAmount` in units, unbounded: it may pass the 28 integer digits an amount holds. */
export function pairedUnits(pool: PoolLiquidity, side: Side, amount: Amount): bigint | null {
  if (!hasPrice(pool)) return null;
  const [own, other] =
    side === 'a' ? [pool.reserveA, pool.reserveB] : [pool.reserveB, pool.reserveA];
  return ceilDiv(amount.units * other.units, own.units);
}

/**
 * Whether the pool has a ratio to pair a deposit's sides at: units and both reserves. Until it
 * does, a deposit gives both sides, and its first one sets the price.
 */
export function hasPrice(pool: PoolLiquidity): boolean {
  return pool.supply.isPositive() && pool.reserveA.isPositive() && pool.reserveB.isPositive();
}

/**
 * The least units a provider accepts for an expected mint, `slippageBps` basis points below it
 * (rounded down): fewer at completion and the deposit is refunded whole.
 */
export function minimumUnits(expected: Amount, slippageBps: number): Amount {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) {
    throw new RangeError(`slippage must be 0–10000 basis points, not ${slippageBps}`);
  }
  return expected.mulDiv(BigInt(10_000 - slippageBps), 10_000n, 'down');
}

const NO_LIQUIDITY: PoolLiquidity = {
  reserveA: Amount.ZERO,
  reserveB: Amount.ZERO,
  supply: Amount.ZERO,
};

/**
 * The units of a pool opened with reserves already held (an operator's `pools add`, the devnet
 * seed): as if its reserves were its first deposit — the supply, and the units of whoever funded
 * it, the locked minimum aside. Zero reserves open a pool with no units; its first intent sets
 * the price.
 */
export function openingLiquidity(
  reserveA: Amount,
  reserveB: Amount,
): { readonly supply: Amount; readonly ownerUnits: Amount } {
  const plan = planMint(NO_LIQUIDITY, reserveA, reserveB);
  if (plan.kind !== 'mint') return { supply: Amount.ZERO, ownerUnits: Amount.ZERO };
  return { supply: plan.minted.add(plan.locked), ownerUnits: plan.minted };
}
