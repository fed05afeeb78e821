/**
 * Checks made before a request is sent (docs/spec/sdk.md#operations): a request that cannot
 * succeed fails here with a `ValidationError`, and nothing reaches the service.
 */
import { AMOUNT_DECIMALS, AMOUNT_INTEGER_DIGITS_MAX } from './catalogue.js';
import { ValidationError } from './errors.js';

/** Slippage tolerance bounds, inclusive (0.1 % to 5 %), and the default. */
export const SLIPPAGE_TOLERANCE_MIN = 0.001;
export const SLIPPAGE_TOLERANCE_MAX = 0.05;
export const SLIPPAGE_TOLERANCE_DEFAULT = 0.05;

/** The service's amount rule: digits, an optional fraction of at most 10 digits, no sign. */
export const AMOUNT_PATTERN = new RegExp(
  `^\\d{1,${AMOUNT_INTEGER_DIGITS_MAX}}(\\.\\d{1,${AMOUNT_DECIMALS}})?$`,
);

function invalid(field: string, message: string): ValidationError {
  return new ValidationError(`Invalid ${field}: ${message}`, {
    code: 'validation_error',
    body: { errors: [{ path: `/${field}`, message }] },
  });
}

/** A token amount as the service accepts it, e.g. `"100"` or `"0.0000000001"`. */
export function checkAmount(field: string, value: unknown): void {
  if (typeof value !== 'string' || !AMOUNT_PATTERN.test(value)) {
    throw invalid(
      field,
      `expected a decimal string with at most ${AMOUNT_INTEGER_DIGITS_MAX} integer and ` +
        `${AMOUNT_DECIMALS} fractional digits (no sign, exponent or spaces), got ${describe(value)}`,
    );
  }
}

/** A finite fraction within [0.001, 0.05]; absent means the default. */
export function checkSlippageTolerance(value: unknown): void {
  if (value === undefined) return;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < SLIPPAGE_TOLERANCE_MIN ||
    value > SLIPPAGE_TOLERANCE_MAX
  ) {
    throw invalid(
      'slippageTolerance',
      `expected a number from ${SLIPPAGE_TOLERANCE_MIN} to ${SLIPPAGE_TOLERANCE_MAX}, got ${describe(value)}`,
    );
  }
}

/** A required, non-empty string (token symbols, ids). */
export function checkText(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw invalid(field, `expected a non-empty string, got ${describe(value)}`);
  }
}

/** An optional string: absent, or non-empty. */
export function checkOptionalText(field: string, value: unknown): void {
  if (value !== undefined) checkText(field, value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return value === null ? 'null' : typeof value;
}
