/**
 * The amounts the page reads and the figures it computes itself, with core's `Amount` (Daml
 * `Numeric 10`, docs/spec/amounts-and-fees.md#amounts): the amount field, a wallet's holdings, and
 * the least output a slippage setting allows, shown before the intent exists. Imported from
 * `@poolparty/core/amount` alone, so the rest of core (its wire schemas) stays out of the bundle.
 */
import { Amount } from '@poolparty/core/amount';

/**
 * A decimal string as an amount, or null when it is not one. Spaces around it are ignored, as a
 * user types them; inside, only the wire form: digits, at most 10 decimals, no sign or exponent.
 */
export function parseAmount(text: string): Amount | null {
  const parsed = Amount.tryParse(text.trim());
  return parsed instanceof Amount ? parsed : null;
}

/**
 * floor(output × (1 − slippage)), as the service computes `minOutput`
 * (docs/spec/lifecycle.md#intents): slippage is in basis points (0.1 % = 10), the page's setting
 * having one decimal of a percent at most.
 */
export function minOutputOf(output: string, slippageBps: number): string | null {
  const amount = parseAmount(output);
  if (
    amount === null ||
    !Number.isInteger(slippageBps) ||
    slippageBps < 0 ||
    slippageBps > 10_000
  ) {
    return null;
  }
  return amount.mulDiv(BigInt(10_000 - slippageBps), 10_000n, 'down').toString();
}

/**
 * The slippage setting's bounds (0.001 to 0.05, docs/spec/lifecycle.md#intents), in percent as the
 * page shows them.
 */
export const SLIPPAGE_PERCENT_MIN = 0.1;
export const SLIPPAGE_PERCENT_MAX = 5;

/** The user's slippage text (percent) as basis points, or why it cannot be used. */
export function parseSlippagePercent(
  text: string,
): { ok: true; bps: number } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed))
    return { ok: false, message: 'Enter a percentage, e.g. 0.5.' };
  const bps = Math.round(Number(trimmed) * 100);
  if (Math.abs(Number(trimmed) * 100 - bps) > 1e-9) {
    return { ok: false, message: 'Use at most two decimals, e.g. 0.25.' };
  }
  if (bps < SLIPPAGE_PERCENT_MIN * 100 || bps > SLIPPAGE_PERCENT_MAX * 100) {
    return {
      ok: false,
      message: `Slippage must be between ${SLIPPAGE_PERCENT_MIN} % and ${SLIPPAGE_PERCENT_MAX} %.`,
    };
  }
  return { ok: true, bps };
}
