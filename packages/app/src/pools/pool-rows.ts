/**
 * Every pool with its stats and ticker, read again every `REFRESH_MS` while a page shows them:
 * the landing page's live pools and `/pools`. A pool whose figures cannot be priced still shows
 * its reserves.
 */
import type { Pool, PoolStats, Ticker } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../describe-error.js';
import { useServices } from '../services.js';

export interface PoolRow {
  readonly pool: Pool;
  readonly stats: PoolStats | null;
  readonly ticker: Ticker | null;
}

/** How often the pool figures are read again while the page is open. */
const REFRESH_MS = 15_000;

export function usePoolRows() {
  const { pp } = useServices();
  const [rows, setRows] = useState<PoolRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (pp === null) return;
    let live = true;
    const load = async () => {
      try {
        const { pools } = await pp.pools.list();
        const next = await Promise.all(
          pools.map(async (pool) => {
            const [stats, ticker] = await Promise.all([
              pp.pools.getStats(pool.poolId).catch(() => null),
              pp.pools.getTicker(pool.poolId).catch(() => null),
            ]);
            return { pool, stats, ticker };
          }),
        );
        if (live) {
          setRows(next);
          setError(null);
        }
      } catch (caught) {
        if (live) setError(describeError(caught));
      }
    };
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [pp]);

  return { pp, rows, error };
}

/** The pool's spot price, tokenB per tokenA, from its reserves: for reading, not for sums. */
export function poolPrice(pool: Pool): string {
  const price = Number(pool.tokenB.reserve) / Number(pool.tokenA.reserve);
  if (!Number.isFinite(price) || price === 0) return '—';
  return price.toPrecision(4).replace(/\.?0+$/, '');
}
