/**
 * Exact arithmetic on the service's decimal strings (Numeric 10) where the page must compute a
 * figure itself: the least output a slippage setting allows, shown before the intent exists.
 */
const SCALE = 10;
const UNIT = 10n ** BigInt(SCALE);

/** A plain decimal string as an integer count of 10⁻¹⁰; null for anything else. */
export function toUnits(amount: string): bigint | null {
  const match = /^(\d+)(?:\.(\d{1,10}))?$/.exec(amount.trim());
  if (!match) return null;
  const [, whole = '0', fraction = ''] = match;
  return BigInt(whole) * UNIT + BigInt(fraction.padEnd(SCALE, '0'));
}

export function fromUnits(units: bigint): string {
  const whole = units / UNIT;
  const fraction = (units % UNIT).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/**
 * floor(output × (1 − slippage)), as the service computes `minOutput`
 * (docs/spec/lifecycle.md#intents): slippage is in basis points (0.1 % = 10), the page's setting
 * having one decimal of a percent at most.
 */
export function minOutputOf(output: string, slippageBps: number): string | null {
  const units = toUnits(output);
  if (units === null || !Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) {
    return null;
  }
  return fromUnits((units * BigInt(10_000 - slippageBps)) / 10_000n);
}

/** The slippage setting's bounds (SPEC: 0.001 to 0.05), in percent as the page shows them. */
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
