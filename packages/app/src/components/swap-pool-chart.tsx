/**
 * The chosen pool's price beside the swap card (under it on a phone): the pool page's price chart
 * from the same hourly history (`GET /v1/pools/{poolId}/history`), over 24 hours, 7 or 30 days,
 * with a link to the pool's page. A young pool with fewer than two hourly figures says "not
 * enough history yet" rather than drawing a lone dot (charts/time-chart.tsx). The swap page loads
 * this on demand, with the charts, so the first load does not carry it.
 */
import type { PoolHistoryPeriod } from '@poolparty/core';
import type { Pool } from '@poolparty/sdk';
import { useId, useState } from 'preact/hooks';
import { HistoryPeriodPicker, PoolPriceChart, usePoolHistory } from '../pools/pool-charts.js';
import { pairLabel } from '../token-choice.js';

export function SwapPoolChart(props: { pool: Pool; pools: readonly Pool[] }) {
  const { pool } = props;
  const headingId = useId();
  const [period, setPeriod] = useState<PoolHistoryPeriod>('7d');
  const { history, error } = usePoolHistory(pool.poolId, period);
  return (
    <section class="card swap-chart" aria-labelledby={headingId} data-testid="swap-pool-chart">
      <h2 id={headingId}>Pool {pairLabel(pool, props.pools)}</h2>
      <HistoryPeriodPicker value={period} onChange={setPeriod} />
      {error && (
        <p role="alert" class="error">
          Could not load the pool's history: {error}
        </p>
      )}
      {!history && !error && <p role="status">Loading the pool's history…</p>}
      {history && <PoolPriceChart pool={pool} history={history} />}
      <p class="hint">
        <a href={`/pools/${encodeURIComponent(pool.poolId)}`}>The pool's page</a>: its volume,
        liquidity and latest swaps.
      </p>
    </section>
  );
}
