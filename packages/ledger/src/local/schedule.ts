/**
 * What happens by the passing of ledger time: offers expire once the clock reaches their
 * `executeBefore`, and a new mining round opens at every 10-minute boundary.
 *
 * A round opening is no update: on Canton the round is a contract of the DSO party, which no
 * party's update stream shows, and readers see it through `openMiningRound()`. So it takes no
 * offset and leaves ledger time alone. When the clock jumps over several round boundaries at once
 * (an advance, or a ledger that was closed for a while), only the newest round opens: the rounds
 * in between were never observable. Each expiry is its own update. Due items apply in time order,
 * each recorded at the time it fell due (never before the previous update), with
 * `commandId: null`.
 */
import { miningRoundAt, miningRoundOpensAtMs } from './clock.js';
import type { AdvanceClockEntry, SetAmuletPriceEntry, SettleEntry } from './entries.js';
import { type LedgerState, lastRecordTimeMs, recordUpdate } from './state.js';
import { endOffer, positiveAmount } from './transfers.js';

interface DueItem {
  readonly dueMs: number;
  /** Orders items due at the same time: expiries first, then the round. */
  readonly rank: number;
  readonly apply: (recordTimeMs: number) => void;
}

function dueExpiries(state: LedgerState, atMs: number): DueItem[] {
  return [...state.pendingOffers.values()]
    .filter(({ offer }) => offer.executeBefore.getTime() <= atMs)
    .map((pending) => ({
      dueMs: pending.offer.executeBefore.getTime(),
      rank: 0,
      apply: (recordTimeMs: number) => {
        endOffer(state, pending, 'expired', recordTimeMs, null);
      },
    }));
}

function dueMiningRound(state: LedgerState, atMs: number): DueItem[] {
  const round = miningRoundAt(state.genesisMs, atMs);
  if (round <= state.miningRound.round) return [];
  const opensAtMs = miningRoundOpensAtMs(state.genesisMs, round);
  return [
    {
      dueMs: opensAtMs,
      rank: 1,
      apply: () => {
        const amuletPriceUsd = state.nextAmuletPriceUsd;
        state.miningRound = Object.freeze({ round, amuletPriceUsd, opensAt: new Date(opensAtMs) });
      },
    },
  ];
}

function dueItems(state: LedgerState, atMs: number): DueItem[] {
  return [...dueExpiries(state, atMs), ...dueMiningRound(state, atMs)].sort(
    (a, b) => a.dueMs - b.dueMs || a.rank - b.rank,
  );
}

export function isDue(state: LedgerState, atMs: number): boolean {
  return dueItems(state, atMs).length > 0;
}

/** The ledger time at which something next falls due (the next round at the latest). */
export function nextDueMs(state: LedgerState): number {
  const nextRoundMs = miningRoundOpensAtMs(state.genesisMs, state.miningRound.round + 1);
  let next = nextRoundMs;
  for (const { offer } of state.pendingOffers.values()) {
    next = Math.min(next, offer.executeBefore.getTime());
  }
  return next;
}

export function applySettle(state: LedgerState, entry: SettleEntry): void {
  for (const item of dueItems(state, entry.at)) {
    item.apply(Math.max(item.dueMs, lastRecordTimeMs(state)));
  }
}

export function applyAdvanceClock(state: LedgerState, entry: AdvanceClockEntry): void {
  if (!(Number.isSafeInteger(entry.ms) && entry.ms >= 0)) {
    throw new RangeError(
      `the clock advances by a whole, non-negative number of ms, not ${entry.ms}`,
    );
  }
  state.clockSkewMs += entry.ms;
}

export function applySetAmuletPrice(state: LedgerState, entry: SetAmuletPriceEntry): void {
  state.nextAmuletPriceUsd = positiveAmount(entry.priceUsd);
}
