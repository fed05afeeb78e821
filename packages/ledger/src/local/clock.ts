/**
 * Ledger time of the local ledger: real time shifted by a skew. The skew is fixed when the ledger
 * is created (`startTime − real time`) and grows with every `advanceClock`, so the clock keeps
 * running in real time, also while the ledger is closed, and advances are never lost.
 *
 * Mining rounds are aligned to the ledger's genesis: round `n` opens at `genesis + n × 10 min`.
 */

/**
 * Open mining rounds advance every 10 minutes of ledger time
 * (docs/spec/ledger.md#local-devnet-ledger).
 */
export const MINING_ROUND_MS = 10 * 60_000;

/**
 * The ledger time for a real time. Never earlier than `floorMs` (the last record time), so record
 * times stay monotonic even when the host clock steps back.
 */
export function ledgerTimeMs(realNowMs: number, skewMs: number, floorMs: number): number {
  return Math.max(realNowMs + skewMs, floorMs);
}

/** The number of the mining round open at `atMs`. */
export function miningRoundAt(genesisMs: number, atMs: number): number {
  return Math.max(0, Math.floor((atMs - genesisMs) / MINING_ROUND_MS));
}

export function miningRoundOpensAtMs(genesisMs: number, round: number): number {
  return genesisMs + round * MINING_ROUND_MS;
}
