/**
 * The verdict of a chaos run on its evidence (evidence.ts), and nothing else: pure, so that it is
 * tested on hand-made evidence. It holds when
 * - every deposit is in exactly one of: payout committed, refund committed, flagged for an
 *   operator;
 * - no intent was paid more than once, no deposit refunded more than once, no payout left without
 *   a deposit behind it;
 * - no deposit is lost: every deposit the ledger shows reaching a swap party is in the store with
 *   an outcome, and every deposit a trader made is on the ledger;
 * - every pool's books equal its swap party's holdings, to the last unit.
 */
import { Amount } from '@poolparty/core';
import type { Evidence } from './evidence.js';

export interface Violation {
  readonly kind:
    | 'double_payout'
    | 'double_refund'
    | 'payout_without_deposit'
    | 'several_outcomes'
    | 'lost_deposit'
    | 'books_differ';
  readonly detail: string;
}

export interface Verdict {
  readonly passed: boolean;
  /** Deposits by their one outcome; those with none or several are violations instead. */
  readonly outcomes: { readonly payout: number; readonly refund: number; readonly flagged: number };
  readonly deposits: number;
  readonly doublePayouts: number;
  readonly lostDeposits: number;
  readonly pools: number;
  readonly poolsBalanced: number;
  readonly violations: readonly Violation[];
}

export function judge(evidence: Evidence): Verdict {
  const violations: Violation[] = [];
  const outcomes = { payout: 0, refund: 0, flagged: 0 };
  let doublePayouts = 0;
  let lostDeposits = 0;
  for (const deposit of evidence.deposits) {
    const { depositId, intentId } = deposit;
    if (deposit.payouts > 1) {
      doublePayouts += 1;
      violations.push({
        kind: 'double_payout',
        detail: `intent ${intentId} of deposit ${depositId} paid ${deposit.payouts} times`,
      });
    }
    if (deposit.refunds > 1) {
      violations.push({
        kind: 'double_refund',
        detail: `deposit ${depositId} refunded ${deposit.refunds} times`,
      });
    }
    const found = [
      ...(deposit.payouts > 0 ? ['payout' as const] : []),
      ...(deposit.refunds > 0 ? ['refund' as const] : []),
      ...(deposit.flagged ? ['flagged' as const] : []),
    ];
    const [only] = found;
    if (found.length === 1 && only) {
      outcomes[only] += 1;
    } else if (found.length === 0) {
      lostDeposits += 1;
      violations.push({
        kind: 'lost_deposit',
        detail: `deposit ${depositId} (${deposit.storeStatus}) has no payout, refund or flag`,
      });
    } else {
      violations.push({
        kind: 'several_outcomes',
        detail: `deposit ${depositId} has ${found.join(' and ')}`,
      });
    }
  }
  for (const key of evidence.unrecorded) {
    lostDeposits += 1;
    violations.push({
      kind: 'lost_deposit',
      detail: `deposit ${key} on the ledger, not in the store`,
    });
  }
  for (const updateId of evidence.missingOnLedger) {
    lostDeposits += 1;
    violations.push({
      kind: 'lost_deposit',
      detail: `a trader's deposit ${updateId} did not reach a swap party on the ledger`,
    });
  }
  for (const intentId of evidence.payoutsWithoutDeposit) {
    doublePayouts += 1;
    violations.push({
      kind: 'payout_without_deposit',
      detail: `intent ${intentId} paid with no deposit in the store`,
    });
  }
  let poolsBalanced = 0;
  for (const pool of evidence.pools) {
    const sides = (['a', 'b'] as const).filter(
      (side) => !Amount.parse(pool.books[side]).eq(Amount.parse(pool.holdings[side])),
    );
    if (sides.length === 0) {
      poolsBalanced += 1;
      continue;
    }
    for (const side of sides) {
      violations.push({
        kind: 'books_differ',
        detail: `pool ${pool.poolId} side ${side}: books ${pool.books[side]}, holdings ${pool.holdings[side]}`,
      });
    }
  }
  return {
    passed: violations.length === 0,
    outcomes,
    deposits: evidence.deposits.length,
    doublePayouts,
    lostDeposits,
    pools: evidence.pools.length,
    poolsBalanced,
    violations,
  };
}
