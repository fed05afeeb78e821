/**
 * How amounts, rates and times read on the pages. Amounts stay decimal strings end to end (the
 * service's Numeric 10): they are shortened for display only, never turned into floats for sums.
 */

/** A decimal string with at most `digits` fractional digits (cut, not rounded) and grouping. */
export function formatAmount(amount: string, digits = 4): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign = '', whole = '0', fraction = ''] = match;
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cut = fraction.slice(0, digits).replace(/0+$/, '');
  return `${sign}${grouped}${cut ? `.${cut}` : ''}`;
}

/** A fraction (decimal string or number) as a percentage, e.g. `0.0123` → `1.23 %`. */
export function formatPercent(fraction: string | number, digits = 2): string {
  const value = typeof fraction === 'number' ? fraction : Number(fraction);
  if (!Number.isFinite(value)) return String(fraction);
  return `${(value * 100).toFixed(digits)} %`;
}

/** A USD figure (decimal string), e.g. `$1,234.56`. */
export function formatUsd(amount: string): string {
  return `$${formatAmount(amount, 2)}`;
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
