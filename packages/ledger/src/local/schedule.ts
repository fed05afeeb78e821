/**
 * What happens by the passing of ledger time: a new mining round opens at every 10-minute
 * boundary. Nothing else does: an offer past its `executeBefore` stays pending (Canton does not
 * archive an expired transfer instruction; accepting it fails, and its sender or receiver ends it).
 *
 * A round opening is no update: on Canton the round is a contract of the DSO party, which no
 * party's update stream shows, and readers see it through `openMiningRound()`. So it takes no
 * offset and leaves ledger time alone. When the clock jumps over several round boundaries at once
 * (an advance, or a ledger that was closed for a while), only the newest round opens: the rounds
 * in between were never observable.
 */
import { miningRoundAt, miningRoundOpensAtMs } from './clock.js';
import type { AdvanceClockEntry, SetAmuletPriceEntry, SettleEntry } from './entries.js';
import type { LedgerState } from './state.js';
import { positiveAmount } from './transfers.js';

/** The round that should be open at `atMs`, when it is newer than the open one. */
function dueRound(state: LedgerState, atMs: number): number | null {
  const round = miningRoundAt(state.genesisMs, atMs);
  return round > state.miningRound.round ? round : null;
}

export function isDue(state: LedgerState, atMs: number): boolean {
  return dueRound(state, atMs) !== null;
}

/** The ledger time at which the next round opens. */
export function nextDueMs(state: LedgerState): number {
  return miningRoundOpensAtMs(state.genesisMs, state.miningRound.round + 1);
}

export function applySettle(state: LedgerState, entry: SettleEntry): void {
  const round = dueRound(state, entry.at);
  if (round === null) return;
  state.miningRound = Object.freeze({
    round,
    amuletPriceUsd: state.nextAmuletPriceUsd,
    opensAt: new Date(miningRoundOpensAtMs(state.genesisMs, round)),
  });
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
