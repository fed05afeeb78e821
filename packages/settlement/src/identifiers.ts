/**
 * Identifiers an intent is given when it opens: its id and its deposit reference
 * (docs/spec/lifecycle.md#intents, docs/spec/liquidity.md#intents).
 *
 * Both are drawn from crypto randomness in Crockford's base-32 alphabet (no I, L, O, U), so a
 * reference read aloud or retyped from a wallet screen survives. The deposit reference is short
 * (it travels in a transfer's reason metadata) yet unguessable: 13 symbols carry 65 bits, so
 * guessing a live reference is hopeless even across millions of pending intents.
 */
import { randomBytes } from 'node:crypto';

export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const SYMBOL_BITS_MASK = 0x1f;

export const DEPOSIT_REFERENCE_PREFIX = 'pp-';
/** 13 symbols × 5 bits = 65 bits of randomness. */
export const DEPOSIT_REFERENCE_SYMBOLS = 13;
export const INTENT_ID_PREFIX = 'swp_';
export const LIQUIDITY_INTENT_ID_PREFIX = 'liq_';
/** 26 symbols × 5 bits = 130 bits: ids are never guessed, so another party's intent is not probed. */
export const INTENT_ID_SYMBOLS = 26;

/** Bytes of randomness; injectable so a test can force a collision. */
export type RandomSource = (bytes: number) => Uint8Array;

const cryptoRandom: RandomSource = (bytes) => randomBytes(bytes);

/**
 * `length` Crockford symbols. Each symbol takes the low 5 bits of one random byte: 256 is a
 * multiple of 32, so every symbol is uniformly distributed.
 */
export function randomCrockford(length: number, random: RandomSource = cryptoRandom): string {
  const bytes = random(length);
  if (bytes.length < length) throw new RangeError(`random source gave ${bytes.length} bytes`);
  let text = '';
  for (let i = 0; i < length; i++) {
    text += CROCKFORD_ALPHABET[(bytes[i] ?? 0) & SYMBOL_BITS_MASK];
  }
  return text;
}

/** e.g. `pp-7KQ2M9XC4RT0W`: 16 characters, within the 32 a reference may have. */
export function newDepositReference(random: RandomSource = cryptoRandom): string {
  return DEPOSIT_REFERENCE_PREFIX + randomCrockford(DEPOSIT_REFERENCE_SYMBOLS, random);
}

export function newIntentId(random: RandomSource = cryptoRandom): string {
  return INTENT_ID_PREFIX + randomCrockford(INTENT_ID_SYMBOLS, random);
}

export function newLiquidityIntentId(random: RandomSource = cryptoRandom): string {
  return LIQUIDITY_INTENT_ID_PREFIX + randomCrockford(INTENT_ID_SYMBOLS, random);
}
