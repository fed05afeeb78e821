/**
 * Treasury sweeps (docs/spec/treasury.md): the platform's share of a pool's fees, and the network
 * fees it recovered, leave the pool's swap party for the operator's treasury party. These are the
 * decisions a sweep takes between reading the store and writing to it, as pure functions: how
 * much of a side's `fees` bucket may leave, and when a side is due. What a sweep moves in the
 * books is what any fees set aside and sent move (fee-transfers.ts).
 */
import { Amount } from './amount.js';
import type { Instrument } from './instrument.js';

/** What a side's `fees` bucket holds that is not the platform's to take. */
export interface FeesHeldBack {
  /**
   * Developers' earnings of completed swaps not yet collected (collections on their way have
   * left `fees` already): a developer can collect them at any moment.
   */
  readonly owedToDevelopers: Amount;
  /**
   * Platform fees of swaps executed but not completed: a payout that cannot arrive reverses its
   * trade and takes its platform fee back out of `fees`.
   */
  readonly releasable: Amount;
  /**
   * Kept for network costs: what Amulet transfers burn (payouts, refunds, collections and the
   * sweep itself) is paid from `fees`, and from the pool's reserve when `fees` cannot cover it.
   */
  readonly networkReserve: Amount;
}

/** What a sweep may take from a side's `fees` now: all that is not held back, never negative. */
export function sweepableFees(fees: Amount, held: FeesHeldBack): Amount {
  const kept = held.owedToDevelopers.add(held.releasable).add(held.networkReserve);
  return kept.gte(fees) ? Amount.ZERO : fees.sub(kept);
}

/**
 * An amount per instrument id, with `*` for every instrument not named: how sweep thresholds and
 * network reserves are configured (`Amulet=100,USDCx=10,*=0`).
 */
export type AmountsByInstrument = Readonly<Record<string, Amount>>;

/** The amount the table gives `instrument`: its id's entry, else `*`, else zero. */
export function amountFor(table: AmountsByInstrument, instrument: Instrument): Amount {
  return table[instrument.id] ?? table['*'] ?? Amount.ZERO;
}

/** Why a side is or is not swept by this round of the automatic schedule. */
export type SweepDecision =
  | { readonly kind: 'sweep'; readonly amount: Amount }
  | { readonly kind: 'below_threshold' }
  | { readonly kind: 'not_yet_due'; readonly dueAt: Date };

/**
 * The automatic schedule: a side is swept when its sweepable amount is above its threshold and
 * its last sweep (of any trigger) is at least `intervalMs` old, so a side is swept at most once
 * per interval however many workers or restarts come between.
 */
export function sweepDue(input: {
  readonly sweepable: Amount;
  readonly threshold: Amount;
  readonly lastSweptAt: Date | null;
  readonly intervalMs: number;
  readonly now: Date;
}): SweepDecision {
  const { sweepable, threshold, lastSweptAt, intervalMs, now } = input;
  if (lastSweptAt !== null) {
    const dueAt = new Date(lastSweptAt.getTime() + intervalMs);
    if (dueAt.getTime() > now.getTime()) return { kind: 'not_yet_due', dueAt };
  }
  if (!sweepable.isPositive() || !sweepable.gt(threshold)) return { kind: 'below_threshold' };
  return { kind: 'sweep', amount: sweepable };
}
