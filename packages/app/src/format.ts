/**
 * How amounts, rates and times read on the pages. Amounts stay decimal strings end to end (the
 * service's Numeric 10): they are shortened for display only, never turned into floats for sums.
 */

/** Significant digits an amount keeps when shown, whatever its size. */
const SIGNIFICANT_DIGITS = 6;
/** The ledger's precision (Numeric 10): never more decimals than this. */
export const LEDGER_DECIMALS = 10;
const DECIMALS_MAX = LEDGER_DECIMALS;

/**
 * A decimal string with grouping, cut (not rounded) to `digits` fractional digits. Without
 * `digits` the amount keeps six significant digits (at least two decimals where it has them), so
 * a small amount such as 0.0001325888 CBTC is not shown as 0.0001.
 */
export function formatAmount(amount: string, digits?: number): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign = '', whole = '0', fraction = ''] = match;
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cut = fraction.slice(0, digits ?? digitsFor(whole, fraction)).replace(/0+$/, '');
  return `${sign}${grouped}${cut ? `.${cut}` : ''}`;
}

function digitsFor(whole: string, fraction: string): number {
  if (whole.replace(/^0+/, '') !== '') return Math.max(2, SIGNIFICANT_DIGITS - whole.length);
  const leadingZeros = fraction.length - fraction.replace(/^0+/, '').length;
  return Math.min(DECIMALS_MAX, leadingZeros + SIGNIFICANT_DIGITS);
}

/** A fraction (decimal string or number) as a percentage, e.g. `0.0123` → `1.23 %`. */
export function formatPercent(fraction: string | number, digits = 2): string {
  const value = typeof fraction === 'number' ? fraction : Number(fraction);
  if (!Number.isFinite(value)) return String(fraction);
  return `${(value * 100).toFixed(digits)} %`;
}

/**
 * A USD figure (decimal string) with exactly two decimals, cut not rounded like every amount:
 * `5.8` → `$5.80`, `1234.567` → `$1,234.56`, `-0.5` → `-$0.50`.
 */
export function formatUsd(amount: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign = '', whole = '0', fraction = ''] = match;
  const cents = fraction.padEnd(2, '0').slice(0, 2);
  const negative = sign === '-' && /[1-9]/.test(`${whole}${cents}`);
  return `${negative ? '-' : ''}$${formatAmount(whole)}.${cents}`;
}

/**
 * The USD shown beside an amount: `formatUsd`, except that a value above zero but under a cent
 * reads `< $0.01` rather than a `$0.00` that would say the amount is worth nothing.
 */
export function formatUsdBeside(usd: string): string {
  const shown = formatUsd(usd);
  return shown === '$0.00' && /[1-9]/.test(usd) && !usd.trim().startsWith('-') ? '< $0.01' : shown;
}

/** Basis points of a charge as the discount a user gets, e.g. 7000 → `30 % off`. */
export function discountOf(chargeBps: number): string {
  return `${((10_000 - chargeBps) / 100).toFixed(2).replace(/\.?0+$/, '')} % off`;
}

/** A short admin party for telling same-named tokens apart: `admin-hint::1220ab…`. */
export function shortParty(party: string): string {
  const [hint, fingerprint = ''] = party.split('::');
  return fingerprint.length > 10 ? `${hint}::${fingerprint.slice(0, 8)}…` : party;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** Significant digits a chart's tick keeps unless its neighbours need more to differ. */
const AXIS_DIGITS = 3;
const axisFormats = new Map<number, Intl.NumberFormat>();

/**
 * A chart axis' tick: short (1.2K, 0.000132), for reading the scale, not the exact figure;
 * `digits` significant digits (1 to 21, as Intl allows).
 */
export function formatAxisNumber(value: number, digits = AXIS_DIGITS): string {
  const kept = Math.min(21, Math.max(1, Math.round(digits)));
  let format = axisFormats.get(kept);
  if (format === undefined) {
    format = new Intl.NumberFormat(undefined, {
      notation: 'compact',
      maximumSignificantDigits: kept,
    });
    axisFormats.set(kept, format);
  }
  return format.format(value);
}
