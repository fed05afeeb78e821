/**
 * The payout leg's network fee (docs/spec/amounts-and-fees.md#network-fee).
 *
 * The payout is one token-standard transfer from the swap party; its traffic is bought at the
 * extra-traffic price in USD per MB and paid in Amulet (CC). The deposit's input token pays for
 * it, converted at USD prices. Every price is a parameter: reading the open mining round or a
 * pool is the caller's job, so this stays exact and free of I/O.
 */
import { AMOUNT_SCALE, Amount, AmountRangeError, divide } from './amount.js';
import { type Ratio, ratio } from './ratio.js';

/** Traffic of one token-standard transfer, the payout leg. */
export const DEFAULT_PAYOUT_TRAFFIC_BYTES = 20_000;
/** Extra-traffic price of the synchronizer, in USD per MB (10^6 bytes). */
export const DEFAULT_EXTRA_TRAFFIC_PRICE_USD_PER_MB = Amount.of(60);
const BYTES_PER_MB = 1_000_000n;

/** A USD price per whole token: an exact ratio, or an amount of USD. */
export type UsdPrice = Ratio | Amount;

/** USDCx is priced at one USD. */
export const USDCX_PRICE_USD: Ratio = ratio(1n, 1n);

export interface TrafficPricing {
  /** Defaults to `DEFAULT_PAYOUT_TRAFFIC_BYTES`. */
  readonly bytes?: number;
  /** Defaults to `DEFAULT_EXTRA_TRAFFIC_PRICE_USD_PER_MB`. */
  readonly extraTrafficPriceUsdPerMb?: Amount;
  /** USD per Amulet, from the ledger's open mining round. */
  readonly amuletPriceUsd: UsdPrice;
}

/** `estimatedTrafficCost` of a quote; `usd` and `cc` are rounded up to 10 decimals. */
export interface TrafficCost {
  readonly bytes: number;
  readonly usd: Amount;
  readonly cc: Amount;
}

/** The traffic cost in USD, exact (not rounded). */
function trafficCostUsd(pricing: TrafficPricing): Ratio {
  const bytes = pricing.bytes ?? DEFAULT_PAYOUT_TRAFFIC_BYTES;
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new AmountRangeError(`traffic bytes must be a non-negative integer: ${bytes}`);
  }
  const pricePerMb = pricing.extraTrafficPriceUsdPerMb ?? DEFAULT_EXTRA_TRAFFIC_PRICE_USD_PER_MB;
  return ratio(BigInt(bytes) * pricePerMb.units, BYTES_PER_MB * AMOUNT_SCALE);
}

export function estimateTrafficCost(pricing: TrafficPricing): TrafficCost {
  const usd = trafficCostUsd(pricing);
  return {
    bytes: pricing.bytes ?? DEFAULT_PAYOUT_TRAFFIC_BYTES,
    usd: toAmountUp(usd),
    cc: toAmountUp(dividePrices(usd, usdPriceRatio(pricing.amuletPriceUsd))),
  };
}

/**
 * The network fee in the input token: the exact USD cost divided by the input token's USD price,
 * rounded up. Converting from the exact cost (not the rounded `usd`/`cc`) keeps an Amulet
 * deposit's fee equal to `cc`.
 */
export function networkFeeInInput(pricing: TrafficPricing, inputPriceUsd: UsdPrice): Amount {
  return toAmountUp(dividePrices(trafficCostUsd(pricing), usdPriceRatio(inputPriceUsd)));
}

/** Reserves of a pool that pairs a token with Amulet. */
export interface AmuletPoolReserves {
  readonly amulet: Amount;
  readonly token: Amount;
}

/** A token's USD price through its Amulet pool: `amuletPriceUsd × amulet / token` (spot). */
export function usdPriceThroughAmuletPool(
  amuletPriceUsd: UsdPrice,
  reserves: AmuletPoolReserves,
): Ratio {
  if (!reserves.amulet.isPositive() || !reserves.token.isPositive()) {
    throw new AmountRangeError('an Amulet pool needs positive reserves to price a token');
  }
  const amulet = usdPriceRatio(amuletPriceUsd);
  return ratio(amulet.numerator * reserves.amulet.units, amulet.denominator * reserves.token.units);
}

/** Where the input token's USD price comes from (docs/spec/amounts-and-fees.md#usd-prices). */
export type InputPriceSource =
  | { readonly kind: 'usdcx' }
  | { readonly kind: 'amulet' }
  | { readonly kind: 'amulet_pool'; readonly reserves: AmuletPoolReserves };

export function inputPriceUsd(source: InputPriceSource, amuletPriceUsd: UsdPrice): Ratio {
  switch (source.kind) {
    case 'usdcx':
      return USDCX_PRICE_USD;
    case 'amulet':
      return usdPriceRatio(amuletPriceUsd);
    case 'amulet_pool':
      return usdPriceThroughAmuletPool(amuletPriceUsd, source.reserves);
  }
}

export function usdPriceRatio(price: UsdPrice): Ratio {
  return price instanceof Amount ? ratio(price.units, AMOUNT_SCALE) : price;
}

/** `cost / price` in tokens; a token without a positive price cannot pay a fee. */
function dividePrices(costUsd: Ratio, priceUsd: Ratio): Ratio {
  if (priceUsd.numerator <= 0n) throw new AmountRangeError('a USD price must be positive');
  return ratio(costUsd.numerator * priceUsd.denominator, costUsd.denominator * priceUsd.numerator);
}

function toAmountUp(tokens: Ratio): Amount {
  return Amount.fromUnits(divide(tokens.numerator * AMOUNT_SCALE, tokens.denominator, 'up'));
}
