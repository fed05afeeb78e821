/**
 * The ledger's prices in memory (docs/spec/amounts-and-fees.md#network-fee): the open mining round
 * (Amulet USD price) and the traffic parameters, re-read every `LEDGER_PRICES_REFRESH_MS` so a
 * quote does not wait on the ledger.
 *
 * One exception: a cached round older than a round's lifetime means a newer one should exist
 * (the devnet clock was advanced, say), so the quote re-reads it first, at most once per
 * `ROUND_RECHECK_MIN_MS`, rather than judge the reference price stale from an old copy. Prices
 * never read yet (the ledger was down) are read on the request path too.
 */
import type { LedgerPort, MiningRound, TrafficParameters } from '@poolparty/ledger';
import { type Loaded, Refreshed } from './refreshed.js';

const LEDGER_PRICES_REFRESH_MS = 5_000;
/** Open mining rounds advance every 10 minutes of ledger time. */
const MINING_ROUND_PERIOD_MS = 10 * 60 * 1000;
const ROUND_RECHECK_MIN_MS = 1_000;

export interface LedgerPrices {
  readonly round: MiningRound;
  readonly traffic: TrafficParameters;
}

export class LedgerPriceCache {
  private readonly round: Refreshed<MiningRound>;
  private readonly traffic: Refreshed<TrafficParameters>;

  constructor(
    ledger: Pick<LedgerPort, 'openMiningRound' | 'trafficParameters'>,
    onError?: (error: unknown) => void,
  ) {
    const options = { intervalMs: LEDGER_PRICES_REFRESH_MS, ...(onError && { onError }) };
    this.round = new Refreshed(() => ledger.openMiningRound(), options);
    this.traffic = new Refreshed(() => ledger.trafficParameters(), options);
  }

  /** Reads both once; a ledger that cannot answer yet leaves them unknown, not the service down. */
  async start(): Promise<void> {
    await Promise.all([this.round.start(), this.traffic.start()]);
  }

  /**
   * Both prices when neither needs a re-read (the usual case), else null: then `current` waits
   * for the re-read. Lets a quote answer without waiting on a promise.
   */
  settled(ledgerNow: Date): LedgerPrices | null {
    const round = this.round.current();
    const traffic = this.traffic.current();
    if (round === null || traffic === null || this.outlived(round, ledgerNow)) return null;
    return { round: round.value, traffic: traffic.value };
  }

  /** Both prices, re-reading a round that looks outlived; null while either is unknown. */
  async current(ledgerNow: Date): Promise<LedgerPrices | null> {
    const cached = this.round.current();
    if (cached === null || this.traffic.current() === null) {
      await this.refresh();
    } else if (this.outlived(cached, ledgerNow)) {
      await this.round.refresh();
    }
    const round = this.round.current()?.value;
    const traffic = this.traffic.current()?.value;
    return round && traffic ? { round, traffic } : null;
  }

  refresh(): Promise<void> {
    return Promise.all([this.round.refresh(), this.traffic.refresh()]).then(() => {});
  }

  /** A round past its period is re-read, but at most once per `ROUND_RECHECK_MIN_MS`. */
  private outlived(round: Loaded<MiningRound>, ledgerNow: Date): boolean {
    return (
      ledgerNow.getTime() - round.value.opensAt.getTime() > MINING_ROUND_PERIOD_MS &&
      Date.now() - round.loadedAtMs > ROUND_RECHECK_MIN_MS
    );
  }

  close(): void {
    this.round.close();
    this.traffic.close();
  }
}
