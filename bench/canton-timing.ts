/**
 * The arithmetic of the canton-path benchmark, apart from its processes: what one swap's
 * timestamps say about the ledger's time and PoolParty's, and the figures of a run.
 *
 * A one-step swap crosses the ledger twice: the wallet's deposit and the service's payout. The
 * bench times the deposit itself (the wallet's submission through the JSON Ledger API until the
 * transaction is on the update stream) and takes that as the ledger's latency for each of the two
 * transactions of that swap. PoolParty's time on top is then everything else: noticing the
 * deposit, recording and pricing it, preparing the payout, and recording the payout's commit.
 */
import { percentile } from './report.js';

/** One swap's moments, in milliseconds of the bench's own clock (Date.now()). */
export interface SwapMoments {
  /** The wallet started submitting its deposit. */
  readonly depositSubmitted: number;
  /** The deposit's transaction arrived on the bench's own update stream. */
  readonly depositSeen: number | null;
  /** The payout's transaction arrived on the bench's own update stream. */
  readonly payoutSeen: number | null;
  /** The store announced the intent `completed` (its NOTIFY reached the bench). */
  readonly completed: number | null;
  /** The state the intent ended in, as announced ("running" when none was by the wait's end). */
  readonly ending?: string;
}

export interface SwapTiming {
  /** Deposit submitted → on the stream: one ledger transaction, as a wallet sees it. */
  readonly ledgerMs: number;
  /** Deposit submitted → completed. */
  readonly totalMs: number;
  /** Total less two ledger transactions' worth: the time that is PoolParty's. */
  readonly onTopMs: number;
  /** Deposit on the stream → payout on the stream (the payout's own commit included). */
  readonly reactMs: number;
  /** Payout on the stream → completed. */
  readonly finishMs: number;
}

/** A completed swap's timing; null when a moment is missing (it did not complete). */
export function timingOf(moments: SwapMoments): SwapTiming | null {
  const { depositSubmitted, depositSeen, payoutSeen, completed } = moments;
  if (depositSeen === null || payoutSeen === null || completed === null) return null;
  const ledgerMs = depositSeen - depositSubmitted;
  const totalMs = completed - depositSubmitted;
  return {
    ledgerMs,
    totalMs,
    onTopMs: totalMs - 2 * ledgerMs,
    reactMs: payoutSeen - depositSeen,
    finishMs: completed - payoutSeen,
  };
}

export interface Spread {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  return {
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length === 0 ? Number.NaN : Math.max(...values),
  };
}

export interface PhaseFigures {
  readonly swaps: number;
  readonly completed: number;
  /** The swaps without every moment, by the state they ended in. */
  readonly incomplete: Readonly<Record<string, number>>;
  readonly ledger: Spread;
  readonly total: Spread;
  readonly onTop: Spread;
  readonly react: Spread;
  readonly finish: Spread;
}

/** The spreads of a phase's completed swaps; `swaps` counts the ones that did not complete too. */
export function phaseFigures(moments: readonly SwapMoments[]): PhaseFigures {
  const timings = moments.map(timingOf).filter((t): t is SwapTiming => t !== null);
  const of = (pick: (t: SwapTiming) => number) => spreadOf(timings.map(pick));
  const incomplete: Record<string, number> = {};
  for (const m of moments) {
    if (timingOf(m) !== null) continue;
    const state = m.completed === null ? (m.ending ?? 'running') : 'a moment unseen';
    incomplete[state] = (incomplete[state] ?? 0) + 1;
  }
  return {
    swaps: moments.length,
    completed: timings.length,
    incomplete,
    ledger: of((t) => t.ledgerMs),
    total: of((t) => t.totalMs),
    onTop: of((t) => t.onTopMs),
    react: of((t) => t.reactMs),
    finish: of((t) => t.finishMs),
  };
}

/**
 * A drain's rate: the swaps settled over the time from the moment the workers were started to
 * the last completion. The rate between the first and the last completion, without the
 * processes' start, is given beside it.
 */
export function drainRate(
  startedMs: number,
  completions: readonly number[],
): { readonly swapsPerS: number; readonly settlingSwapsPerS: number; readonly elapsedMs: number } {
  if (completions.length === 0)
    return { swapsPerS: 0, settlingSwapsPerS: 0, elapsedMs: Number.NaN };
  const first = Math.min(...completions);
  const last = Math.max(...completions);
  const elapsedMs = last - startedMs;
  const settlingMs = last - first;
  return {
    swapsPerS: (1000 * completions.length) / elapsedMs,
    settlingSwapsPerS: settlingMs > 0 ? (1000 * (completions.length - 1)) / settlingMs : Number.NaN,
    elapsedMs,
  };
}

/**
 * One atomic swap's moments, in milliseconds of the bench's own clock. An atomic swap crosses the
 * ledger once: the execution of the transaction the wallet signed, which the service submits and
 * waits for. The ledger's own time for it is measured beside it (`ledgerMs`): the round trip of
 * executing a transaction of the same shape — two transfers, pre-approved, between two wallets —
 * that the bench prepared and signed itself through the same JSON Ledger API, PoolParty not
 * involved.
 */
export interface AtomicMoments {
  /** The ledger alone, executing a like transaction just before; null where not measured. */
  readonly ledgerMs: number | null;
  /** The wallet sent its signature (the execute request). */
  readonly signed: number;
  /** The swap's transaction arrived on the bench's own update stream. */
  readonly executionSeen: number | null;
  /** The store announced the swap `completed` (its NOTIFY reached the bench). */
  readonly completed: number | null;
  /** The state the swap ended in, as announced ("running" when none was by the wait's end). */
  readonly ending?: string;
}

export interface AtomicTiming {
  /** Signature sent → completed. */
  readonly totalMs: number;
  /** Signature sent → the swap's transaction on the stream. */
  readonly seenMs: number;
  /** On the stream → completed. */
  readonly finishMs: number;
  /** Total less the ledger's own execution; null where that was not measured. */
  readonly onTopMs: number | null;
}

/** A completed atomic swap's timing; null when a moment is missing (it did not complete). */
export function atomicTimingOf(moments: AtomicMoments): AtomicTiming | null {
  const { signed, executionSeen, completed, ledgerMs } = moments;
  if (executionSeen === null || completed === null) return null;
  const totalMs = completed - signed;
  return {
    totalMs,
    seenMs: executionSeen - signed,
    finishMs: completed - executionSeen,
    onTopMs: ledgerMs === null ? null : totalMs - ledgerMs,
  };
}

export interface AtomicPhaseFigures {
  /** Swaps asked for, prepared or not. */
  readonly swaps: number;
  readonly completed: number;
  /** Prepares the service refused (`pool_holdings_busy`, …), by code: nothing was signed. */
  readonly refused: Readonly<Record<string, number>>;
  /** Signed swaps without every moment, by the state they ended in. */
  readonly incomplete: Readonly<Record<string, number>>;
  readonly ledger: Spread;
  readonly total: Spread;
  readonly seen: Spread;
  readonly finish: Spread;
  readonly onTop: Spread;
}

/** An atomic swap of a phase: signed, with its moments, or refused at prepare with a code. */
export type AtomicOutcome =
  | { readonly kind: 'signed'; readonly moments: AtomicMoments }
  | { readonly kind: 'refused'; readonly code: string };

const tallyInto = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** The spreads of a phase's completed atomic swaps, and what was refused or did not complete. */
export function atomicPhaseFigures(outcomes: readonly AtomicOutcome[]): AtomicPhaseFigures {
  const refused: Record<string, number> = {};
  const incomplete: Record<string, number> = {};
  const timings: AtomicTiming[] = [];
  const ledger: number[] = [];
  for (const outcome of outcomes) {
    if (outcome.kind === 'refused') {
      tallyInto(refused, outcome.code);
      continue;
    }
    const { moments } = outcome;
    if (moments.ledgerMs !== null) ledger.push(moments.ledgerMs);
    const timing = atomicTimingOf(moments);
    if (timing === null) {
      tallyInto(incomplete, moments.completed === null ? (moments.ending ?? 'running') : 'unseen');
    } else {
      timings.push(timing);
    }
  }
  const of = (pick: (t: AtomicTiming) => number | null) =>
    spreadOf(timings.flatMap((t) => pick(t) ?? []));
  return {
    swaps: outcomes.length,
    completed: timings.length,
    refused,
    incomplete,
    ledger: spreadOf(ledger),
    total: of((t) => t.totalMs),
    seen: of((t) => t.seenMs),
    finish: of((t) => t.finishMs),
    onTop: of((t) => t.onTopMs),
  };
}
