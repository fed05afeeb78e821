/**
 * Moving amounts between the buckets of a pool's books
 * (docs/spec/amounts-and-fees.md#effective-reserves). Per side, the swap party's holdings are
 * expected to equal reserve + inflight + outgoing + fees, so every ledger movement has a matching
 * bucket movement, and a movement between buckets changes no holding:
 *
 * - a deposit enters custody:          inflight += deposit
 * - a swap executes:                   inflight −= deposit; reserve += priced input + LP fee;
 *                                      fees += platform + network fee; on the output side
 *                                      reserve −= output, outgoing += output
 * - a refund is decided:               inflight −= deposit; outgoing += refund; fees += the rest
 * - a payout or refund commits:        outgoing −= amount (the holdings left with it); fees −= what
 *                                      the transfer burned beyond the amount (Amulet's fees),
 *                                      any shortfall taken from reserve
 * - an unmatched transfer arrives:     outgoing += refund; fees += the fee it pays
 *
 * A movement that would make a bucket negative throws: the books are wrong, and nothing is
 * written on top of them. Pure: the settlement engine plans movements with these and the store
 * applies them.
 */
import { Amount } from './amount.js';
import { BaseError } from './base-error.js';

/** A pool's books: per side, the four buckets, each an amount of that side's instrument. */
export interface PoolBooks {
  readonly reserveA: Amount;
  readonly reserveB: Amount;
  readonly inflightA: Amount;
  readonly inflightB: Amount;
  readonly outgoingA: Amount;
  readonly outgoingB: Amount;
  readonly feesA: Amount;
  readonly feesB: Amount;
}

export type Side = 'a' | 'b';
export type Bucket = 'reserve' | 'inflight' | 'outgoing' | 'fees';

export interface Movement {
  readonly side: Side;
  readonly bucket: Bucket;
  /** Positive adds, negative removes; in units of 10^-10. */
  readonly units: bigint;
}

/** Signed changes per bucket, in units of 10^-10: what one write adds to the books. */
export type BookDeltas = Partial<Record<keyof PoolBooks, bigint>>;

export function credit(side: Side, bucket: Bucket, amount: Amount): Movement {
  return { side, bucket, units: amount.units };
}

export function debit(side: Side, bucket: Bucket, amount: Amount): Movement {
  return { side, bucket, units: -amount.units };
}

const FIELD: Record<Bucket, Record<Side, keyof PoolBooks>> = {
  reserve: { a: 'reserveA', b: 'reserveB' },
  inflight: { a: 'inflightA', b: 'inflightB' },
  outgoing: { a: 'outgoingA', b: 'outgoingB' },
  fees: { a: 'feesA', b: 'feesB' },
};

/**
 * A network cost the swap party paid out of its holdings (fees an Amulet transfer burned): it is
 * paid from the network fees the side collected, and what they cannot cover from its reserve,
 * so the books keep equalling the holdings whatever the cost.
 */
export function networkCost(books: PoolBooks, side: Side, cost: Amount): Movement[] {
  if (!cost.isPositive()) return [];
  const collected = books[FIELD.fees[side]];
  const fromFees = cost.lte(collected) ? cost : collected;
  const shortfall = cost.sub(fromFees);
  const movements = fromFees.isPositive() ? [debit(side, 'fees', fromFees)] : [];
  return shortfall.isPositive() ? [...movements, debit(side, 'reserve', shortfall)] : movements;
}

/** The books refused a movement, or are not there to take one. */
export class AccountingError extends BaseError<'accounting_refused'> {
  override readonly name = 'AccountingError';
  constructor(message: string) {
    super('accounting_refused', message);
  }
}

/** The books after the movements; throws `AccountingError` where a bucket would go negative. */
export function applyMovements<B extends PoolBooks>(
  books: B,
  movements: readonly Movement[],
): PoolBooks {
  const next: Record<keyof PoolBooks, Amount> = { ...books };
  for (const { side, bucket, units } of movements) {
    const field = FIELD[bucket][side];
    const value = next[field].units + units;
    if (value < 0n) {
      throw new AccountingError(`${field} would become negative (${next[field]} ${units} units)`);
    }
    next[field] = Amount.fromUnits(value);
  }
  return next;
}

/** The movements summed per bucket, as one write applies them. */
export function deltasOf(movements: readonly Movement[]): BookDeltas {
  const deltas: BookDeltas = {};
  for (const { side, bucket, units } of movements) {
    const field = FIELD[bucket][side];
    deltas[field] = (deltas[field] ?? 0n) + units;
  }
  return deltas;
}
