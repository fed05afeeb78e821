/**
 * Writes src/catalogue.ts: the few tables the SDK shares with the service (error codes and their
 * classes, swap, liquidity and atomic swap states, leg states and events, outcome errors, amount and slippage limits), copied from
 * @poolparty/core. The SDK cannot import core at run time (core pulls TypeBox and @noble), so the
 * tables are copied here and `test/catalogue.test.ts` fails when the copy falls behind.
 *
 * The tables are the SDK's side of the promises in docs/spec/sdk.md#package; the comments written
 * into src/catalogue.ts reach integrators through the published declarations, so they state each
 * rule rather than point at a file of this repository.
 *
 * Run: `npm run generate -w @poolparty/sdk` (writes the file, then formats it with biome).
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const core = join(here, '../../core/src');

const errors = await import(join(core, 'errors.ts'));
const states = await import(join(core, 'swap-state.ts'));
const lifecycle = await import(join(core, 'lifecycle.ts'));
const safety = await import(join(core, 'settlement-safety.ts'));
const amount = await import(join(core, 'amount.ts'));
const discounts = await import(join(core, 'discounts.ts'));
const liquidity = await import(join(core, 'schemas/liquidity.ts'));
const atomic = await import(join(core, 'atomic-swap.ts'));

const json = (value) => JSON.stringify(value, null, 2);
const classByCode = Object.fromEntries(
  Object.entries(errors.ERROR_CATALOGUE).map(([code, entry]) => [code, entry.sdkClass]),
);

const source = `/**
 * Tables shared with the service, generated from @poolparty/core by
 * scripts/generate-catalogue.mjs. Do not edit by hand; test/catalogue.test.ts checks them.
 */

/** The states a swap passes through before it ends, in lifecycle order. */
export const IN_PROGRESS_STATES = ${json(states.IN_PROGRESS_STATES)} as const;

/** The states a swap ends in; \`completed\` is the only successful one. */
export const TERMINAL_STATES = ${json(states.TERMINAL_STATES)} as const;

/** Where a payout or refund is (\`Leg.state\`): \`offered\` waits for the user to accept it. */
export const LEG_STATES = ${json(lifecycle.LEG_STATES)} as const;

/**
 * The leg events: what happened to a payout or refund offer, \`<leg>_<outcome>\`, payout first,
 * each offer before its outcome. They fire only for a leg that became an offer.
 */
export const LEG_EVENT_NAMES = ${json(lifecycle.LEG_EVENT_NAMES)} as const;

/** The leg's state after each offer outcome (\`accepted\` leaves it \`committed\`). */
export const LEG_STATE_AFTER = ${json(lifecycle.LEG_STATE_AFTER)} as const;

/**
 * The states of a liquidity intent: \`pending\` → \`partial\` (one side arrived) → \`joining\` →
 * \`completed\`, or \`refunding\` → \`refunded\`; \`expired\`, \`cancelled\`, \`refund_failed\`.
 */
export const LIQUIDITY_STATES = ${json(liquidity.LIQUIDITY_STATES)} as const;

/** The states a liquidity intent ends in; \`completed\` is the only one with units. */
export const LIQUIDITY_TERMINAL_STATES = ${json(liquidity.LIQUIDITY_TERMINAL_STATES)} as const;

/**
 * The states of an atomic swap: \`prepared\` (waiting for the signature) → \`executing\` →
 * \`completed\`, or ended with nothing moved: \`price_moved\`, \`rejected\`, \`expired\`,
 * \`cancelled\`.
 */
export const ATOMIC_SWAP_STATES = ${json(atomic.ATOMIC_SWAP_STATES)} as const;

/** The states an atomic swap ends in; in every one but \`completed\` nothing moved. */
export const ATOMIC_SWAP_TERMINAL_STATES = ${json(atomic.ATOMIC_SWAP_TERMINAL_STATES)} as const;

/** The SDK's error classes, base first. */
export const SDK_ERROR_CLASSES = ${json(errors.SDK_ERROR_CLASSES)} as const;

/** The error class a client raises for each error code the service answers. */
export const ERROR_CLASS_BY_CODE = ${json(classByCode)} as const;

/** The error \`swap.wait()\` rejects with at each terminal state but \`completed\`. */
export const OUTCOME_ERROR_CLASS = ${json(errors.OUTCOME_ERROR_CLASS)} as const;

/** The settlement-safety guard's codes: the rules that can block a swap at settlement. */
export const SETTLEMENT_SAFETY_CODES = ${json(safety.SETTLEMENT_SAFETY_CODES)} as const;

/** What a fee discount policy targets. */
export const DISCOUNT_TARGET_TYPES = ${json(discounts.DISCOUNT_TARGET_TYPES)} as const;

/** Amounts are Daml Numeric 10: at most this many integer digits… */
export const AMOUNT_INTEGER_DIGITS_MAX = ${amount.AMOUNT_INTEGER_DIGITS_MAX};
/** …and this many fractional digits. */
export const AMOUNT_DECIMALS = ${amount.AMOUNT_DECIMALS};
`;

const target = join(here, '../src/catalogue.ts');
writeFileSync(target, source);
console.log(`wrote ${target}`);
