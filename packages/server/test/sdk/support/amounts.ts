/** Exact comparisons of decimal amount strings in tests, never through floating point. */

/** A decimal string as an integer count of 10^-10 units (Numeric 10). */
export function scaled(text: string): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(`${whole}${fraction.padEnd(10, '0')}`);
}
