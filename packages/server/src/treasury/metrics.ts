/**
 * The treasury's figures on `/metrics`, read from the store at each scrape: what was swept per
 * pool and side, sweeps by outcome, and what each side could sweep now. Read, not counted, so
 * every process of a deployment reports the same figures whichever recorded the sweeps.
 */
import type { AmountsByInstrument } from '@poolparty/core';
import { sweepableNow } from '@poolparty/settlement';
import { type Database, listPools, SWEEP_STATUSES, sweepTotals } from '@poolparty/store';
import { Gauge, type Registry } from 'prom-client';

/** Pools whose sweepable figure one scrape reads at most: a scrape stays a few statements. */
const SWEEPABLE_POOLS_MAX = 200;

export function registerTreasuryMetrics(
  registry: Registry,
  deps: { readonly db: Database; readonly networkReserve: AmountsByInstrument },
): void {
  const { db } = deps;
  new Gauge({
    name: 'poolparty_treasury_swept_amount',
    help: "Fees that arrived at the treasury, per pool and side, in the side's instrument",
    labelNames: ['pool', 'side'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const total of await sweepTotals(db)) {
        if (total.status !== 'swept') continue;
        this.set({ pool: total.poolId, side: total.side }, Number(total.amount));
      }
    },
  });
  new Gauge({
    name: 'poolparty_treasury_sweeps',
    help: 'Treasury sweeps by outcome: pending, offered, swept, returned',
    labelNames: ['outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const status of SWEEP_STATUSES) this.set({ outcome: status }, 0);
      for (const total of await sweepTotals(db)) this.inc({ outcome: total.status }, total.count);
    },
  });
  new Gauge({
    name: 'poolparty_treasury_sweepable_amount',
    help: "What each pool side could sweep now, in the side's instrument",
    labelNames: ['pool', 'side'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const pool of (await listPools(db)).slice(0, SWEEPABLE_POOLS_MAX)) {
        const now = await sweepableNow(db, pool, deps.networkReserve);
        this.set({ pool: pool.poolId, side: 'a' }, Number(now.a.toString()));
        this.set({ pool: pool.poolId, side: 'b' }, Number(now.b.toString()));
      }
    },
  });
}
