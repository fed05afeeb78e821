/**
 * Quotes (docs/spec/protocol.md#quotes).
 *
 * A quote is built in two steps so the settlement-safety guard can sit between them:
 * `priceTrade` prices the deposit (fees, output, rate, impact), the caller runs the guard on that
 * priced trade, and `assembleQuote` turns both into the wire object.
 */
import { type Amount, AmountRangeError } from './amount.js';
import type { SelectedDiscounts } from './discounts.js';
import {
  type AmountBelowMinimum,
  type FeeBreakdown,
  feeBreakdown,
  minimumAmountFor,
} from './fees.js';
import type { Instrument } from './instrument.js';
import {
  estimateTrafficCost,
  networkFeeInInput,
  type TrafficCost,
  type TrafficPricing,
  type UsdPrice,
  usdPriceRatio,
} from './network-fee.js';
import type { WirePoolGuard } from './price-reference.js';
import { constantProductOutput, executionRate, priceImpact, type Reserves } from './pricing.js';
import { compareRatio, formatRatio, type Ratio, ratio, ratioFromNumber } from './ratio.js';
import type { SettlementSafety } from './settlement-safety.js';

/** How long a client may treat a quote as current. */
const QUOTE_EXPIRES_IN_SECONDS = 30;
/**
 * Server price-impact cap (docs/spec/amounts-and-fees.md#price-impact-cap); swaps beyond it are
 * refused, quotes still answer.
 */
export const DEFAULT_MAX_PRICE_IMPACT = 0.15;
const SLIPPAGE_TOLERANCE_MIN = 0.001;
const SLIPPAGE_TOLERANCE_MAX = 0.05;
const DEFAULT_SLIPPAGE_TOLERANCE = 0.05;
/** Fractional digits of `rate`, `effectiveRate` and `priceImpact` on the wire. */
const RATE_DECIMALS = 10;

const ZERO_RATIO = ratio(0n, 1n);
const ONE_RATIO = ratio(1n, 1n);

export type PoolStatus = 'active' | 'paused';
export type PoolSideName = 'tokenA' | 'tokenB';

export interface PoolReserveSide {
  readonly instrument: Instrument;
  /** Effective reserve (docs/spec/amounts-and-fees.md#effective-reserves). */
  readonly reserve: Amount;
}

/** The pool as read for one quote or swap. Whether a paused pool may quote is the caller's call. */
export interface PoolSnapshot {
  readonly poolId: string;
  readonly tokenA: PoolReserveSide;
  readonly tokenB: PoolReserveSide;
  readonly feeBps: number;
  readonly status: PoolStatus;
}

export interface TradeRequest {
  readonly pool: PoolSnapshot;
  readonly inputSide: PoolSideName;
  /** The exact deposit. */
  readonly amount: Amount;
  readonly traffic: TrafficPricing;
  /** USD per input token (USDCx 1, Amulet the round price, others via their pool). */
  readonly inputPriceUsd: UsdPrice;
  readonly discounts?: SelectedDiscounts;
  /** Defaults to `DEFAULT_MAX_PRICE_IMPACT`. */
  readonly maxPriceImpact?: number;
  readonly lpShareBps?: number;
  /** USD per output token, when it has one: the quote's `usd.outputAmount`. */
  readonly outputPriceUsd?: Ratio | null;
}

/** What the settlement-safety guard and `swaps.create` look at. */
export interface PricedTrade {
  readonly kind: 'priced';
  readonly poolId: string;
  readonly input: Instrument;
  readonly output: Instrument;
  /** Reserves before the trade, input side first. */
  readonly reserves: Reserves;
  readonly fees: FeeBreakdown;
  readonly estimatedTrafficCost: TrafficCost;
  readonly outputAmount: Amount;
  /** `out / inputAmountAfterPoolFee`. */
  readonly rate: Ratio;
  /** `out / amount`, all fees included. */
  readonly effectiveRate: Ratio;
  readonly priceImpact: Ratio;
  readonly maxPriceImpact: number;
  /** `swaps.create` refuses such a trade with `price_impact_exceeded`. */
  readonly exceedsPriceImpactCap: boolean;
  readonly inputPriceUsd: Ratio;
  readonly outputPriceUsd: Ratio | null;
}

export interface TradeBelowMinimum extends AmountBelowMinimum {
  readonly estimatedTrafficCost: TrafficCost;
}

export function priceTrade(request: TradeRequest): PricedTrade | TradeBelowMinimum {
  const { pool, amount } = request;
  const input = pool[request.inputSide];
  const output = pool[request.inputSide === 'tokenA' ? 'tokenB' : 'tokenA'];
  const estimatedTrafficCost = estimateTrafficCost(request.traffic);
  const fees = feeBreakdown({
    amount,
    estimatedNetworkFee: networkFeeInInput(request.traffic, request.inputPriceUsd),
    poolFeeBps: pool.feeBps,
    ...(request.lpShareBps !== undefined && { lpShareBps: request.lpShareBps }),
    ...(request.discounts !== undefined && { discounts: request.discounts }),
  });
  if (fees.kind === 'amount_below_minimum') return { ...fees, estimatedTrafficCost };

  const reserves = { input: input.reserve, output: output.reserve };
  const pricedInput = fees.inputAmountAfterPoolFee;
  const outputAmount = constantProductOutput(reserves, pricedInput);
  const impact = impactOf(reserves, pricedInput, outputAmount);
  const maxPriceImpact = request.maxPriceImpact ?? DEFAULT_MAX_PRICE_IMPACT;
  return {
    kind: 'priced',
    poolId: pool.poolId,
    input: input.instrument,
    output: output.instrument,
    reserves,
    fees,
    estimatedTrafficCost,
    outputAmount,
    rate: pricedInput.isPositive() ? executionRate(outputAmount, pricedInput) : ZERO_RATIO,
    effectiveRate: ratio(outputAmount.units, amount.units),
    priceImpact: impact,
    maxPriceImpact,
    exceedsPriceImpactCap: compareRatio(impact, priceImpactCap(maxPriceImpact)) > 0,
    inputPriceUsd: usdPriceRatio(request.inputPriceUsd),
    outputPriceUsd: request.outputPriceUsd ?? null,
  };
}

/**
 * Nothing priced in moves nothing; an empty output side can give nothing, which is the whole
 * price. Both cases are left for the guard to block (`invalid_execution_price`,
 * `invalid_output_reserve`).
 */
function impactOf(reserves: Reserves, pricedInput: Amount, output: Amount): Ratio {
  if (!pricedInput.isPositive()) return ZERO_RATIO;
  if (!reserves.output.isPositive()) return ONE_RATIO;
  return priceImpact(reserves, pricedInput, output);
}

function priceImpactCap(maxPriceImpact: number): Ratio {
  if (!(maxPriceImpact >= 0 && maxPriceImpact <= 1)) {
    throw new AmountRangeError(`price-impact cap must be within [0, 1]: ${maxPriceImpact}`);
  }
  return ratioFromNumber(maxPriceImpact);
}

/** The quote object on the wire (docs/spec/protocol.md#quotes). */
export interface WireQuote {
  readonly poolId: string;
  readonly inputToken: string;
  readonly outputToken: string;
  readonly inputTokenAdmin: string;
  readonly outputTokenAdmin: string;
  readonly outputAmount: string;
  readonly rate: string;
  readonly effectiveRate: string;
  readonly priceImpact: string;
  readonly maxPriceImpact: number;
  readonly fee: number;
  readonly totalInputAmount: string;
  readonly networkFeeAmount: string;
  readonly trafficFeeInInput: string;
  readonly poolFeeAmount: string;
  readonly lpFeeAmount: string;
  readonly platformFeeAmount: string;
  readonly inputAmountAfterPoolFee: string;
  readonly estimatedTrafficCost: {
    readonly bytes: number;
    readonly usd: string;
    readonly cc: string;
  };
  readonly networkFeePolicy: FeeBreakdown['networkFeePolicy'];
  readonly platformFeePolicy: FeeBreakdown['platformFeePolicy'];
  readonly settlementSafety: SettlementSafety | null;
  readonly expiresIn: number;
  /** `networkFeeAmount / totalInputAmount`, to 4 decimals rounded up. */
  readonly networkFeeShare: string;
  /** The least deposit accepted: the network fee plus 10^-10. */
  readonly minimumInputAmount: string;
  readonly usd: QuoteUsdValues;
  /** The pool's guard state at this moment; null when the pool has no reference price yet. */
  readonly poolGuard: WirePoolGuard | null;
}

/** The quote's amounts in USD, cut to 10 decimals; `outputAmount` null without a USD price. */
export interface QuoteUsdValues {
  readonly totalInputAmount: string;
  readonly outputAmount: string | null;
  readonly networkFeeAmount: string;
  readonly poolFeeAmount: string;
  /** `networkFeeAmount + poolFeeAmount`. */
  readonly totalFeeAmount: string;
}

/** Decimals of `networkFeeShare`. */
const SHARE_DECIMALS = 4;

function usdValueOf(amount: Amount, price: Ratio): string {
  return amount.mulDiv(price.numerator, price.denominator, 'down').toString();
}

/** The trade's amounts at the USD prices it was priced with. */
export function quoteUsdValues(trade: PricedTrade): QuoteUsdValues {
  const { fees, inputPriceUsd: input, outputPriceUsd: output } = trade;
  return {
    totalInputAmount: usdValueOf(fees.amount, input),
    outputAmount: output === null ? null : usdValueOf(trade.outputAmount, output),
    networkFeeAmount: usdValueOf(fees.networkFeeAmount, input),
    poolFeeAmount: usdValueOf(fees.poolFeeAmount, input),
    totalFeeAmount: usdValueOf(fees.networkFeeAmount.add(fees.poolFeeAmount), input),
  };
}

export function assembleQuote(
  trade: PricedTrade,
  settlementSafety: SettlementSafety | null,
  poolGuard: WirePoolGuard | null = null,
): WireQuote {
  const { fees, estimatedTrafficCost: traffic } = trade;
  return {
    poolId: trade.poolId,
    inputToken: trade.input.id,
    outputToken: trade.output.id,
    inputTokenAdmin: trade.input.admin,
    outputTokenAdmin: trade.output.admin,
    outputAmount: trade.outputAmount.toString(),
    rate: formatRatio(trade.rate, 'down', RATE_DECIMALS),
    effectiveRate: formatRatio(trade.effectiveRate, 'down', RATE_DECIMALS),
    priceImpact: formatRatio(trade.priceImpact, 'up', RATE_DECIMALS),
    maxPriceImpact: trade.maxPriceImpact,
    fee: fees.fee,
    totalInputAmount: fees.amount.toString(),
    networkFeeAmount: fees.networkFeeAmount.toString(),
    trafficFeeInInput: fees.networkFeeAmount.toString(),
    poolFeeAmount: fees.poolFeeAmount.toString(),
    lpFeeAmount: fees.lpFeeAmount.toString(),
    platformFeeAmount: fees.platformFeeAmount.toString(),
    inputAmountAfterPoolFee: fees.inputAmountAfterPoolFee.toString(),
    estimatedTrafficCost: {
      bytes: traffic.bytes,
      usd: traffic.usd.toString(),
      cc: traffic.cc.toString(),
    },
    networkFeePolicy: fees.networkFeePolicy,
    platformFeePolicy: fees.platformFeePolicy,
    settlementSafety,
    expiresIn: QUOTE_EXPIRES_IN_SECONDS,
    networkFeeShare: formatRatio(
      ratio(fees.networkFeeAmount.units, fees.amount.units),
      'up',
      SHARE_DECIMALS,
    ),
    minimumInputAmount: minimumAmountFor(fees.networkFeeAmount).toString(),
    usd: quoteUsdValues(trade),
    poolGuard,
  };
}

/** `floor(expectedOutput × (1 − slippageTolerance))`, the tolerance read exactly. */
export function minOutput(expectedOutput: Amount, slippageTolerance: number): Amount {
  const tolerance = ratioFromNumber(slippageTolerance);
  if (tolerance.numerator > tolerance.denominator) {
    throw new AmountRangeError(`slippage tolerance above 1: ${slippageTolerance}`);
  }
  const kept = tolerance.denominator - tolerance.numerator;
  return expectedOutput.mulDiv(kept, tolerance.denominator, 'down');
}

export interface SlippageProblem {
  readonly field: 'slippageTolerance';
  readonly reason: 'not_a_number' | 'not_finite' | 'out_of_range';
  readonly value: unknown;
  readonly min: number;
  readonly max: number;
}

export type SlippageCheck =
  | { readonly ok: true; readonly slippageTolerance: number }
  | { readonly ok: false; readonly problem: SlippageProblem };

/** Absent means the default; anything else must be a finite number in range. */
export function validateSlippage(value: unknown): SlippageCheck {
  if (value === undefined) return { ok: true, slippageTolerance: DEFAULT_SLIPPAGE_TOLERANCE };
  const reason =
    typeof value !== 'number'
      ? 'not_a_number'
      : !Number.isFinite(value)
        ? 'not_finite'
        : value < SLIPPAGE_TOLERANCE_MIN || value > SLIPPAGE_TOLERANCE_MAX
          ? 'out_of_range'
          : null;
  if (reason === null) return { ok: true, slippageTolerance: value as number };
  const problem = { field: 'slippageTolerance', reason, value } as const;
  return {
    ok: false,
    problem: { ...problem, min: SLIPPAGE_TOLERANCE_MIN, max: SLIPPAGE_TOLERANCE_MAX },
  };
}
