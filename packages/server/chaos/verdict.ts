/**
 * The verdict of a chaos run on its evidence (evidence.ts), and nothing else: pure, so that it is
 * tested on hand-made evidence. It holds when
 * - every deposit is in exactly one of: payout committed, refund committed, flagged for an
 *   operator;
 * - no intent was paid more than once, no deposit refunded more than once, no payout left without
 *   a deposit behind it;
 * - no deposit is lost: every deposit the ledger shows reaching a swap party is in the store with
 *   an outcome, and every deposit a trader made is on the ledger;
 * - every pool's books equal its swap party's holdings, to the last unit, and the service's own
 *   reconciliation left no mismatch flag open (no pool blocked);
 * - every deposit to an LP party ended `returned` or `forwarded`, and no cancelled liquidity
 *   intent took one;
 * - every LP party holds nothing, and no update or swap was set aside for an operator;
 * - each provider's holdings are what was minted to it less what joined pools (and what its
 *   transfers burned): every deposit nobody took came back whole;
 * - per instrument, what the run's parties hold (with what transfers burned) is what was minted
 *   to them, and nothing went to a party outside the run;
 * - every atomic swap ended: `completed` in exactly one update under its command ids, the one it
 *   recorded, holding its two legs; or in another end with nothing under its command ids.
 */
import { Amount } from '@poolparty/core';
import type { AtomicEvidence, Evidence, LiquidityEvidence } from './evidence.js';

export interface Violation {
  readonly kind:
    | 'double_payout'
    | 'double_refund'
    | 'payout_without_deposit'
    | 'several_outcomes'
    | 'lost_deposit'
    | 'books_differ'
    | 'reconciliation_mismatch'
    | 'liquidity_deposit_open'
    | 'cancelled_intent_holds_deposit'
    | 'lp_party_holds'
    | 'set_aside'
    | 'provider_holdings_differ'
    | 'not_conserved'
    | 'left_the_run'
    | 'atomic_swap_open'
    | 'atomic_swap_doubled'
    | 'atomic_swap_lost';
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
  readonly liquidity: LiquidityVerdict;
  readonly atomic: AtomicVerdict;
  readonly violations: readonly Violation[];
}

export interface AtomicVerdict {
  readonly swaps: number;
  /** Completed, each in exactly one update holding its two legs. */
  readonly completed: number;
  /** Ended otherwise, with nothing under their command ids. */
  readonly nothingMoved: number;
  /** Executed more than once on the ledger. */
  readonly doubled: number;
  /** Whose books and ledger disagree: completed and not (so) on the ledger, or moved unrecorded. */
  readonly lost: number;
  /** Still `prepared` or `executing` once the run settled. */
  readonly open: number;
}

export interface LiquidityVerdict {
  /** Deposits to LP parties, and how many ended returned and forwarded. */
  readonly deposits: number;
  readonly returned: number;
  readonly forwarded: number;
  readonly lpParties: number;
  readonly lpPartiesEmpty: number;
  /** Providers' instruments, and those whose holdings are what they should be. */
  readonly providerBalances: number;
  readonly providersBalanced: number;
  readonly instruments: number;
  readonly instrumentsConserved: number;
}

export function judge(evidence: Evidence): Verdict {
  const violations: Violation[] = [];
  const swaps = judgeDeposits(evidence, violations);
  const poolsBalanced = judgePools(evidence, violations);
  const liquidity = judgeLiquidity(evidence.liquidity, violations);
  const atomic = judgeAtomicSwaps(evidence.atomic, violations);
  return {
    passed: violations.length === 0,
    ...swaps,
    deposits: evidence.deposits.length,
    pools: evidence.pools.length,
    poolsBalanced,
    liquidity,
    atomic,
    violations,
  };
}

const LIVE_ATOMIC = ['prepared', 'executing'];

/** What one atomic swap's evidence says of it: how it ended, or which violation it is. */
function atomicOutcome(swap: AtomicEvidence): keyof Omit<AtomicVerdict, 'swaps'> {
  if (LIVE_ATOMIC.includes(swap.status)) return 'open';
  if (swap.onLedger.length > 1) return 'doubled';
  const [only] = swap.onLedger;
  if (swap.status !== 'completed') return only === undefined ? 'nothingMoved' : 'lost';
  const recorded = only !== undefined && only.updateId === swap.updateId && only.transfers === 2;
  return recorded ? 'completed' : 'lost';
}

/** The violation each atomic outcome but an end is. */
const ATOMIC_VIOLATIONS = {
  open: 'atomic_swap_open',
  doubled: 'atomic_swap_doubled',
  lost: 'atomic_swap_lost',
} as const;

/** Each atomic swap against the ledger; answers the counts by outcome. */
function judgeAtomicSwaps(swaps: readonly AtomicEvidence[], violations: Violation[]) {
  const counts = {
    swaps: swaps.length,
    completed: 0,
    nothingMoved: 0,
    doubled: 0,
    lost: 0,
    open: 0,
  };
  for (const swap of swaps) {
    const outcome = atomicOutcome(swap);
    counts[outcome] += 1;
    if (outcome === 'completed' || outcome === 'nothingMoved') continue;
    const updates = swap.onLedger.map((u) => `${u.updateId} of ${u.transfers} transfers`);
    violations.push({
      kind: ATOMIC_VIOLATIONS[outcome],
      detail: `atomic swap ${swap.atomicSwapId} is ${swap.status} with recorded update ${swap.updateId ?? 'none'}; on the ledger: ${updates.join(', ') || 'nothing'}`,
    });
  }
  return counts;
}

/** Swap deposits: one outcome each, none paid twice, none lost. */
function judgeDeposits(evidence: Evidence, violations: Violation[]) {
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
  const lost = (detail: string) => {
    lostDeposits += 1;
    violations.push({ kind: 'lost_deposit', detail });
  };
  for (const key of evidence.unrecorded) lost(`deposit ${key} on the ledger, not in the store`);
  for (const updateId of evidence.missingOnLedger) {
    lost(`a trader's deposit ${updateId} did not reach a swap party on the ledger`);
  }
  for (const intentId of evidence.payoutsWithoutDeposit) {
    doublePayouts += 1;
    violations.push({
      kind: 'payout_without_deposit',
      detail: `intent ${intentId} paid with no deposit in the store`,
    });
  }
  return { outcomes, doublePayouts, lostDeposits };
}

/** Each pool's books against its swap party's holdings; answers how many are equal. */
function judgePools(evidence: Evidence, violations: Violation[]): number {
  for (const flag of evidence.mismatches) {
    violations.push({
      kind: 'reconciliation_mismatch',
      detail: `open ${flag.kind} flag ${flag.id}: the service's reconciliation blocked a pool`,
    });
  }
  let poolsBalanced = 0;
  for (const pool of evidence.pools) {
    const sides = (['a', 'b'] as const).filter(
      (side) => !Amount.parse(pool.books[side]).eq(Amount.parse(pool.holdings[side])),
    );
    if (sides.length === 0) poolsBalanced += 1;
    for (const side of sides) {
      violations.push({
        kind: 'books_differ',
        detail: `pool ${pool.poolId} side ${side}: books ${pool.books[side]}, holdings ${pool.holdings[side]}`,
      });
    }
  }
  return poolsBalanced;
}

/** Where a liquidity deposit may end: back with its sender, or in its pool. */
const ENDED = ['returned', 'forwarded'];

function judgeLiquidity(liquidity: LiquidityEvidence, violations: Violation[]): LiquidityVerdict {
  const add = (kind: Violation['kind'], detail: string) => violations.push({ kind, detail });
  for (const d of liquidity.deposits) {
    const of = `liquidity deposit ${d.depositId} from ${d.sender} to pool ${d.poolId}`;
    if (!ENDED.includes(d.status)) add('liquidity_deposit_open', `${of} is ${d.status}`);
    // Only a pending intent is cancelled, and an intent that took a deposit is pending no more:
    // a deposit of a cancelled intent, even one returned since, means the two interleaved.
    if (d.intentStatus === 'cancelled') {
      add(
        'cancelled_intent_holds_deposit',
        `${of} (${d.status}) is held by cancelled intent ${d.intentId}`,
      );
    }
  }
  for (const a of liquidity.lpHoldings) {
    add('lp_party_holds', `LP party ${a.party} holds ${a.holdings} ${a.instrument}`);
  }
  for (const flag of liquidity.setAside) add('set_aside', `open ${flag.kind} flag ${flag.id}`);
  const providersBalanced = liquidity.providers.filter((p) => {
    const equal = Amount.parse(p.minted).eq(Amount.parse(p.accounted));
    if (!equal) {
      add(
        'provider_holdings_differ',
        `provider ${p.party} ${p.instrument}: minted ${p.minted}, held + joined + burned ${p.accounted}`,
      );
    }
    return equal;
  }).length;
  const instrumentsConserved = liquidity.totals.filter((t) => {
    const equal = Amount.parse(t.minted).eq(Amount.parse(t.accounted));
    if (!equal) {
      add('not_conserved', `${t.instrument}: minted ${t.minted}, held + burned ${t.accounted}`);
    }
    return equal;
  }).length;
  for (const c of liquidity.crossings) {
    add(
      'left_the_run',
      `${c.amount} ${c.instrument} from ${c.sender} to ${c.receiver} (${c.reason ?? 'no reason'}, update ${c.updateId})`,
    );
  }
  const lpHolding = new Set(liquidity.lpHoldings.map((a) => a.party));
  return {
    deposits: liquidity.deposits.length,
    returned: liquidity.deposits.filter((d) => d.status === 'returned').length,
    forwarded: liquidity.deposits.filter((d) => d.status === 'forwarded').length,
    lpParties: liquidity.lpParties.length,
    lpPartiesEmpty: liquidity.lpParties.filter((p) => !lpHolding.has(p)).length,
    providerBalances: liquidity.providers.length,
    providersBalanced,
    instruments: liquidity.totals.length,
    instrumentsConserved,
  };
}
