/**
 * The fee breakdown of a deposit (docs/spec/amounts-and-fees.md#fee-calculation).
 *
 * The deposit pays, in order: the payout leg's network fee, then the pool fee on what is left;
 * the rest is priced into the pool. Every fee rounds up and the priced input takes the remainder,
 * so `amount = networkFeeAmount + poolFeeAmount + inputAmountAfterPoolFee` holds to the unit.
 *
 * Rates in `platformFeePolicy` are decimal strings (the nominal `fee` stays a number, 0.003):
 * fractions of `amount − networkFeeAmount`, the base the pool fee is taken from. With the defaults the full
 * platform rate is 0.003 × 25 % = 0.00075; a 30 % platform discount charges 0.000525.
 */
import { Amount, AmountRangeError } from './amount.js';
import {
  type AppliedDiscount,
  FULL_CHARGE_BPS,
  isValidChargeBps,
  NO_DISCOUNTS,
  type SelectedDiscounts,
} from './discounts.js';
import { formatRatio, ratio, ratioToNumber } from './ratio.js';
import type { NetworkFeePolicy, PlatformFeePolicy } from './schemas/quote.js';

/** The nominal pool fee, 0.3 %. */
const DEFAULT_POOL_FEE_BPS = 30;
/** Share of the pool fee that stays in the pool for liquidity providers; the rest is platform. */
const DEFAULT_LP_SHARE_BPS = 7_500;
const BPS = BigInt(FULL_CHARGE_BPS);
/** The smallest amount step, `0.0000000001`. */
const ONE_UNIT = Amount.fromUnits(1n);

export interface FeeInputs {
  /** The exact deposit. */
  readonly amount: Amount;
  /** The payout leg's network fee in the input token, before any discount. */
  readonly estimatedNetworkFee: Amount;
  readonly poolFeeBps?: number;
  readonly lpShareBps?: number;
  readonly discounts?: SelectedDiscounts;
}

export interface FeeBreakdown {
  readonly kind: 'priced';
  readonly amount: Amount;
  readonly estimatedNetworkFeeAmount: Amount;
  /** Charged network fee, after any network discount. */
  readonly networkFeeAmount: Amount;
  /** `lpFeeAmount + platformFeeAmount`. */
  readonly poolFeeAmount: Amount;
  readonly lpFeeAmount: Amount;
  /** Charged platform fee, after any platform discount. */
  readonly platformFeeAmount: Amount;
  readonly inputAmountAfterPoolFee: Amount;
  /** The nominal pool fee rate; a discount never changes it. */
  readonly fee: number;
  readonly networkFeePolicy: NetworkFeePolicy | null;
  readonly platformFeePolicy: PlatformFeePolicy | null;
}

/** The deposit does not cover the network fee: answer `amount_below_minimum`. */
export interface AmountBelowMinimum {
  readonly kind: 'amount_below_minimum';
  readonly amount: Amount;
  readonly networkFeeAmount: Amount;
  readonly minimumAmount: Amount;
  readonly networkFeePolicy: NetworkFeePolicy | null;
}

/** A deposit must be larger than the network fee; the smallest such deposit. */
export function minimumAmountFor(networkFeeAmount: Amount): Amount {
  return networkFeeAmount.add(ONE_UNIT);
}

/** Valid basis points are few (0 to 10 000), so each rate is worked out once. */
const nominalFeeRates = new Map<number, number>();

export function nominalFeeRate(poolFeeBps: number = DEFAULT_POOL_FEE_BPS): number {
  const known = nominalFeeRates.get(poolFeeBps);
  if (known !== undefined) return known;
  const rate = ratioToNumber(ratio(BigInt(checkedBps(poolFeeBps, 'pool fee')), BPS));
  nominalFeeRates.set(poolFeeBps, rate);
  return rate;
}

export function feeBreakdown(inputs: FeeInputs): FeeBreakdown | AmountBelowMinimum {
  const poolFeeBps = checkedBps(inputs.poolFeeBps ?? DEFAULT_POOL_FEE_BPS, 'pool fee');
  const lpShareBps = checkedBps(inputs.lpShareBps ?? DEFAULT_LP_SHARE_BPS, 'LP share');
  const { network, platform } = inputs.discounts ?? NO_DISCOUNTS;
  const { amount, estimatedNetworkFee } = inputs;

  const networkFeeAmount = charged(estimatedNetworkFee, network);
  const networkFeePolicy = network && describeNetworkDiscount(network, inputs, networkFeeAmount);
  if (amount.lte(networkFeeAmount)) {
    const minimumAmount = minimumAmountFor(networkFeeAmount);
    return {
      kind: 'amount_below_minimum',
      amount,
      networkFeeAmount,
      minimumAmount,
      networkFeePolicy,
    };
  }

  const feeBase = amount.sub(networkFeeAmount);
  const fullPoolFee = feeBase.mulDiv(BigInt(poolFeeBps), BPS, 'up');
  const lpFeeAmount = fullPoolFee.mulDiv(BigInt(lpShareBps), BPS, 'up');
  const platformFeeAmount = charged(fullPoolFee.sub(lpFeeAmount), platform);
  const poolFeeAmount = lpFeeAmount.add(platformFeeAmount);
  const inputAmountAfterPoolFee = feeBase.sub(poolFeeAmount);
  assertConserved(amount, [networkFeeAmount, poolFeeAmount, inputAmountAfterPoolFee]);

  return {
    kind: 'priced',
    amount,
    estimatedNetworkFeeAmount: estimatedNetworkFee,
    networkFeeAmount,
    poolFeeAmount,
    lpFeeAmount,
    platformFeeAmount,
    inputAmountAfterPoolFee,
    fee: nominalFeeRate(poolFeeBps),
    networkFeePolicy,
    platformFeePolicy: platform && describePlatformDiscount(platform, poolFeeBps, lpShareBps),
  };
}

/** The charged part of a fee under a discount, rounded up. */
function charged(fee: Amount, discount: AppliedDiscount | null): Amount {
  if (discount === null) return fee;
  return fee.mulDiv(BigInt(checkedBps(discount.chargeBps, 'charge')), BPS, 'up');
}

function describeNetworkDiscount(
  discount: AppliedDiscount,
  inputs: FeeInputs,
  chargedFee: Amount,
): NetworkFeePolicy {
  return {
    targetType: discount.targetType,
    chargeBps: discount.chargeBps,
    estimatedNetworkFeeAmount: inputs.estimatedNetworkFee.toString(),
    chargedNetworkFeeAmount: chargedFee.toString(),
  };
}

function describePlatformDiscount(
  discount: AppliedDiscount,
  poolFeeBps: number,
  lpShareBps: number,
): PlatformFeePolicy {
  const fullRate = ratio(BigInt(poolFeeBps) * (BPS - BigInt(lpShareBps)), BPS * BPS);
  const chargedRate = ratio(
    fullRate.numerator * BigInt(discount.chargeBps),
    fullRate.denominator * BPS,
  );
  return {
    targetType: discount.targetType,
    chargeBps: discount.chargeBps,
    fullPlatformFeeRate: formatRatio(fullRate, 'up'),
    chargedPlatformFeeRate: formatRatio(chargedRate, 'up'),
    discountBps: FULL_CHARGE_BPS - discount.chargeBps,
  };
}

function checkedBps(value: number, what: string): number {
  if (!isValidChargeBps(value))
    throw new AmountRangeError(`invalid ${what} basis points: ${value}`);
  return value;
}

function assertConserved(amount: Amount, parts: readonly Amount[]): void {
  if (!Amount.sum(parts).eq(amount)) {
    throw new Error(`fee breakdown does not add up to the deposit ${amount.toString()}`);
  }
}
