/**
 * The SDK's copy of the service's tables (src/catalogue.ts, generated from @poolparty/core) and
 * everything derived from them must say what core says: a code, a state or a limit cannot mean
 * one thing on the server and another in the client.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import * as catalogue from '../src/catalogue.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../src/http/idempotency-key.js';
import * as sdk from '../src/index.js';
import * as webhooksEntry from '../src/webhooks/index.js';

describe('the SDK tables equal core', () => {
  it('has every error code with the class core assigns', () => {
    const fromCore = Object.fromEntries(
      Object.entries(core.ERROR_CATALOGUE).map(([code, entry]) => [code, entry.sdkClass]),
    );
    expect(catalogue.ERROR_CLASS_BY_CODE).toEqual(fromCore);
  });

  it('has the swap and liquidity states, outcome classes, guard codes, discount targets and amount limits', () => {
    expect(catalogue.IN_PROGRESS_STATES).toEqual(core.IN_PROGRESS_STATES);
    expect(catalogue.TERMINAL_STATES).toEqual(core.TERMINAL_STATES);
    expect(sdk.SWAP_STATES).toEqual(core.SWAP_STATES);
    expect(sdk.SWAP_EVENT_NAMES).toEqual(core.SWAP_EVENT_NAMES);
    expect(catalogue.OUTCOME_ERROR_CLASS).toEqual(core.OUTCOME_ERROR_CLASS);
    expect(catalogue.LIQUIDITY_STATES).toEqual(core.LIQUIDITY_STATES);
    expect(catalogue.LIQUIDITY_TERMINAL_STATES).toEqual(core.LIQUIDITY_TERMINAL_STATES);
    expect(catalogue.ATOMIC_SWAP_STATES).toEqual(core.ATOMIC_SWAP_STATES);
    expect(catalogue.ATOMIC_SWAP_TERMINAL_STATES).toEqual(core.ATOMIC_SWAP_TERMINAL_STATES);
    expect(catalogue.SDK_ERROR_CLASSES).toEqual(core.SDK_ERROR_CLASSES);
    expect(catalogue.SETTLEMENT_SAFETY_CODES).toEqual(core.SETTLEMENT_SAFETY_CODES);
    expect(catalogue.DISCOUNT_TARGET_TYPES).toEqual(core.DISCOUNT_TARGET_TYPES);
    expect(catalogue.AMOUNT_DECIMALS).toBe(core.AMOUNT_DECIMALS);
    expect(catalogue.AMOUNT_INTEGER_DIGITS_MAX).toBe(core.AMOUNT_INTEGER_DIGITS_MAX);
  });

  it('checks amounts and slippage with the wire schema rules', () => {
    expect(sdk.AMOUNT_PATTERN.source).toBe(core.AmountStringSchema.pattern);
    expect(sdk.SLIPPAGE_TOLERANCE_MIN).toBe(core.SlippageToleranceSchema.minimum);
    expect(sdk.SLIPPAGE_TOLERANCE_MAX).toBe(core.SlippageToleranceSchema.maximum);
    expect(sdk.SLIPPAGE_TOLERANCE_DEFAULT).toBe(core.SLIPPAGE_TOLERANCE_DEFAULT);
  });

  it('checks an idempotency key with the wire schema rule', () => {
    expect(IDEMPOTENCY_KEY_PATTERN.source).toBe(core.IdempotencyKeySchema.pattern);
  });

  it('agrees with core on the terminal test for every state and for strangers', () => {
    for (const state of [...core.SWAP_STATES, 'unknown', '']) {
      expect(sdk.isTerminal(state)).toBe(core.isTerminal(state));
    }
  });

  it('falls back by status exactly as core does, for every status', () => {
    for (let status = 100; status <= 599; status += 1) {
      expect(sdk.errorClassForStatus(status)).toBe(core.sdkClassForStatus(status));
      expect(sdk.errorClassFor('a_code_from_the_future', status)).toBe(
        core.sdkClassFor('a_code_from_the_future', status),
      );
    }
  });
});

describe('the error classes', () => {
  // The webhooks entry's error is exported there only: the main bundle never verifies a webhook.
  const classes = { ...sdk, ...webhooksEntry } as unknown as Record<string, { errorName?: string }>;

  it('exports one class per name in core (from the main entry or the webhooks entry), extending the parent core names', () => {
    for (const name of core.SDK_ERROR_CLASSES) {
      const ErrorClass = classes[name];
      expect(ErrorClass?.errorName, name).toBe(name);
      const parent = core.SDK_ERROR_PARENT[name];
      expect(Object.getPrototypeOf(ErrorClass), name).toBe(
        parent === null ? Error : classes[parent],
      );
    }
  });
});

describe('the README', () => {
  const readme = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');
  /** Table rows as trimmed cells. */
  const rows = readme
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  /** The row of a table with `width` columns whose first cell is `key`. */
  const row = (key: string, width: number) =>
    rows.find((cells) => cells.length === width && cells[0] === `\`${key}\``) ?? [];

  it('lists every error code with its status and class', () => {
    for (const [code, entry] of Object.entries(core.ERROR_CATALOGUE)) {
      const [, status, sdkClass] = row(code, 3);
      expect(status, code).toBe(String(entry.status));
      expect(sdkClass?.split(' ')[0], code).toBe(`\`${entry.sdkClass}\``);
    }
  });

  it('lists every outcome state with its class', () => {
    for (const [state, name] of Object.entries(core.OUTCOME_ERROR_CLASS)) {
      expect(row(state, 2)[1], state).toBe(`\`${name}\``);
    }
  });
});
