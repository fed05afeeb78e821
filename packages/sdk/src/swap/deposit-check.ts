/**
 * Whether a deposit sent now could still make a swap complete (docs/spec/sdk.md#deposit-check).
 *
 * A deposit cannot be taken back: sent to an intent whose output would now fall under its
 * `minOutput`, it is refunded as `slippage_failed` less the network fee of the refund, a real loss
 * for a swap that never had a chance. So before a wallet sends it, the swap object re-reads the
 * intent and re-quotes its exact deposit, and this module judges the two, purely: a refusal says
 * why, with the figures the user needs (the fresh output against the minimum, the shortfall).
 *
 * The verdict is as of the quote: the price can still move between the check and the deposit's
 * arrival, which `minOutput` is for. It only keeps a deposit from being sent when the refund is
 * already certain.
 */
import { AMOUNT_DECIMALS } from '../catalogue.js';
import type { Quote, SettlementSafety, SwapState, SwapStatus, SwapTerms } from '../types.js';

/** What the check needs of the intent: its terms, as the swap object holds them. */
export type DepositCheckTerms = Pick<
  SwapTerms,
  | 'intentId'
  | 'poolId'
  | 'inputToken'
  | 'outputToken'
  | 'expectedAmount'
  | 'minOutput'
  | 'outputAddress'
>;

/** The figures of a check that got as far as a fresh quote. */
export interface DepositFigures {
  readonly intentId: string;
  /** What the intent's deposit (`expectedAmount`) would pay out now, by a fresh quote. */
  readonly freshOutput: string;
  /** The least output the intent accepts; below it the deposit is refunded. */
  readonly minOutput: string;
  /** The deposit the check was made for. */
  readonly expectedAmount: string;
}

/** A deposit sent now would be priced at or above the intent's minimum. */
export interface DepositAllowed extends DepositFigures {
  readonly ok: true;
  readonly reason: 'ok';
}

/** Why a deposit sent now could not complete the swap. */
export type DepositRefusalReason =
  | 'not_pending'
  | 'price_moved'
  | 'price_impact'
  | 'settlement_safety'
  | 'quote_refused';

/**
 * A deposit sent now would be refunded (less a network fee) or lost to an intent that no longer
 * takes one. `message` says so for people, with the figures.
 */
export type DepositRefusal =
  | {
      readonly ok: false;
      readonly reason: 'not_pending';
      readonly intentId: string;
      /** The intent's state: only `pending` takes a deposit. */
      readonly status: SwapState;
      readonly message: string;
    }
  | (DepositFigures & {
      readonly ok: false;
      /** The fresh output is under `minOutput` by `shortfall`. */
      readonly reason: 'price_moved';
      readonly shortfall: string;
      readonly message: string;
    })
  | (DepositFigures & {
      readonly ok: false;
      /** The fresh quote's price impact is above the service's cap. */
      readonly reason: 'price_impact';
      readonly priceImpact: string;
      readonly maxPriceImpact: number;
      readonly message: string;
    })
  | (DepositFigures & {
      readonly ok: false;
      /** The settlement safety guard would block the payout. */
      readonly reason: 'settlement_safety';
      readonly settlementSafety: SettlementSafety;
      readonly message: string;
    })
  | {
      readonly ok: false;
      /** The service refused to quote the deposit (`code`: `amount_below_minimum`, …). */
      readonly reason: 'quote_refused';
      readonly intentId: string;
      readonly code: string;
      readonly message: string;
    };

/** What `swap.canDeposit()` answers. */
export type DepositCheck = DepositAllowed | DepositRefusal;

/** The quote refusals that mean the deposit cannot be priced now, rather than a failed call. */
export const QUOTE_REFUSAL_CODES: readonly string[] = [
  'amount_below_minimum',
  'pool_paused',
  'pool_not_found',
];

/** The intent's state, before any quote: only a pending intent takes a deposit. */
export function refusalForStatus(
  status: Pick<SwapStatus, 'intentId' | 'status'>,
): DepositRefusal | null {
  const { intentId, status: state } = status;
  if (state === 'pending') return null;
  const message = `Intent ${intentId} is ${state}: it takes no deposit`;
  return { ok: false, reason: 'not_pending', intentId, status: state, message };
}

/** The refusal for a quote the service would not give. */
export function refusalForQuoteError(
  intentId: string,
  code: string,
  detail: string,
): DepositRefusal {
  const message = `The deposit cannot be priced now (${code}): ${detail}`;
  return { ok: false, reason: 'quote_refused', intentId, code, message };
}

/** Judges a fresh quote of the intent's exact deposit against the intent's terms. */
export function judgeDeposit(
  terms: DepositCheckTerms,
  quote: Pick<Quote, 'outputAmount' | 'priceImpact' | 'maxPriceImpact' | 'settlementSafety'>,
): DepositCheck {
  const { intentId, minOutput, expectedAmount } = terms;
  const { outputAmount: freshOutput, priceImpact, maxPriceImpact, settlementSafety } = quote;
  const figures = { ok: false, intentId, freshOutput, minOutput, expectedAmount } as const;
  const now = `now ${expectedAmount} ${terms.inputToken} would pay ${freshOutput} ${terms.outputToken}`;
  if (settlementSafety !== null) {
    const message = `The payout would be blocked (${now}): ${settlementSafety.message}`;
    return { ...figures, reason: 'settlement_safety', settlementSafety, message };
  }
  if (Number(priceImpact) > maxPriceImpact) {
    const message = `The price impact ${priceImpact} is above the cap ${maxPriceImpact} (${now})`;
    return { ...figures, reason: 'price_impact', priceImpact, maxPriceImpact, message };
  }
  const shortfall = subtractAmounts(minOutput, freshOutput);
  if (shortfall === null) return { ...figures, ok: true, reason: 'ok' };
  const message = `The price moved: ${now}, under the minimum of ${minOutput} by ${shortfall}; a deposit would be refunded less the network fee`;
  return { ...figures, reason: 'price_moved', shortfall, message };
}

const SCALE = 10n ** BigInt(AMOUNT_DECIMALS);

/** An amount (`"12.5"`) as a whole number of its smallest unit. */
export function amountUnits(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(AMOUNT_DECIMALS, '0'));
}

/** `a − b` as an amount when `a` is the larger, else null: exact, as amounts are. */
export function subtractAmounts(a: string, b: string): string | null {
  const difference = amountUnits(a) - amountUnits(b);
  if (difference <= 0n) return null;
  const text = difference.toString().padStart(AMOUNT_DECIMALS + 1, '0');
  const fraction = text.slice(-AMOUNT_DECIMALS).replace(/0+$/, '');
  const whole = text.slice(0, -AMOUNT_DECIMALS);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
