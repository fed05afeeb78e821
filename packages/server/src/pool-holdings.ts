/**
 * The worker's keeping of pool holdings (docs/operations.md#pool-holdings): every
 * `HOLDINGS_ROUND_INTERVAL_MS` a round looks at the next pools (settlement's `keepPoolHoldings`)
 * and splits each side that holds fewer than its target (`POOLPARTY_POOL_HOLDINGS_TARGET`) into
 * more, by self-transfers of its swap party. What it did shows on `/metrics` (the self-transfers
 * per pool and instrument, and each side's holdings and target as last seen) and in the log (a
 * line for each round that split or was refused).
 */
import type { HoldingTargets } from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import { type HoldingsRound, keepPoolHoldings, type SideKept } from '@poolparty/settlement';
import type { Database } from '@poolparty/store';
import { Counter, Gauge, type Registry } from 'prom-client';
import { PeriodicJob } from './periodic-job.js';

/**
 * How often a round runs: a pool opened with its reserves in one holding is split within about
 * this long, and a round that finds nothing to split costs a holdings read per pool.
 */
export const HOLDINGS_ROUND_INTERVAL_MS = 10_000;

export interface PoolHoldingsKeeperDeps {
  readonly db: Database;
  readonly ledger: LedgerPort;
  readonly targets: HoldingTargets;
  readonly registry: Registry;
  /** Told of a round that split something, or whose splits the ledger refused. */
  readonly onWork: (sides: readonly SideKept[]) => void;
  /** Told of a round that failed; the next round tries again. */
  readonly onError: (error: unknown) => void;
}

/** The figures on `/metrics`, moved by each round this process runs. */
function holdingsMetrics(registry: Registry) {
  const labelNames = ['pool', 'instrument'] as const;
  return {
    selfTransfers: new Counter({
      name: 'poolparty_pool_holding_splits_total',
      help: "Self-transfers that split a pool side's holdings, per pool and instrument",
      labelNames,
      registers: [registry],
    }),
    counted: new Gauge({
      name: 'poolparty_pool_holdings',
      help: 'Holdings of at least half a piece a pool side had when last looked at',
      labelNames,
      registers: [registry],
    }),
    target: new Gauge({
      name: 'poolparty_pool_holdings_target',
      help: 'Holdings a pool side is kept in',
      labelNames,
      registers: [registry],
    }),
  };
}

/** Runs a round now and then every interval, one at a time, each after the pools of the last. */
export class PoolHoldingsKeeper extends PeriodicJob<HoldingsRound> {
  constructor(deps: PoolHoldingsKeeperDeps) {
    const { db, ledger, targets } = deps;
    const metrics = holdingsMetrics(deps.registry);
    let after: string | null = null;
    super({
      run: () => keepPoolHoldings({ db, ledger }, { targets, after }),
      onDone: (round) => {
        after = round.last;
        for (const side of round.sides) {
          const labels = { pool: side.poolId, instrument: side.instrument.id };
          metrics.selfTransfers.inc(labels, side.selfTransfers);
          metrics.counted.set(labels, side.counted + side.selfTransfers);
          metrics.target.set(labels, side.target);
        }
        const worked = round.sides.filter((side) => side.selfTransfers > 0 || side.refused > 0);
        if (worked.length > 0) deps.onWork(worked);
      },
      onError: deps.onError,
    });
  }

  override start(intervalMs = HOLDINGS_ROUND_INTERVAL_MS): void {
    super.start(intervalMs);
  }
}
