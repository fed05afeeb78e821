/**
 * `/pools/{poolId}`: one pool. Its figures (price, TVL, 24 h volume and fees, APR), charts of its
 * price, volume and TVL over 24 hours, 7 or 30 days, its reserves and fee split, its latest
 * swaps, a link to swap in it, and its liquidity: the connected party's position with Remove,
 * and adding liquidity (liquidity/pool-liquidity.tsx).
 */
import type { PoolHistoryPeriod, PoolTrade } from '@poolparty/core';
import type { Pool, PoolGuard, PoolStats, Ticker } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../describe-error.js';
import { PoolLiquidity } from '../liquidity/pool-liquidity.js';
import { usePageTitle } from '../page-title.js';
import { HistoryPeriodPicker, PoolCharts, usePoolHistory } from '../pools/pool-charts.js';
import { PoolFigures, PoolReserves } from '../pools/pool-facts.js';
import { PoolTrades } from '../pools/pool-trades.js';
import { useServices } from '../services.js';
import { pairLabel } from '../token-choice.js';

export function PoolPage(props: { params?: { poolId?: string } }) {
  const poolId = props.params?.poolId ?? '';
  // Bumped when liquidity moves: the reserves, supply and figures are read again.
  const [version, setVersion] = useState(0);
  const { pool, pools, stats, ticker, error } = usePool(poolId, version);
  const title = pool ? pairLabel(pool, pools) : poolId;
  usePageTitle(`Pool ${title}`);
  if (error) {
    return (
      <>
        <h1>Pool {poolId}</h1>
        <p role="alert" class="error">
          {error}
        </p>
        <p>
          See <a href="/pools">every pool</a>.
        </p>
      </>
    );
  }
  if (pool === null) return <p role="status">Loading the pool…</p>;
  return (
    <>
      <h1>{title}</h1>
      <p class="hint">
        Pool <span class="party">{pool.poolId}</span>
        {pool.status === 'paused' && <span class="badge">paused</span>} ·{' '}
        <a href="/pools">every pool</a>
      </p>
      <GuardStatus poolId={pool.poolId} version={version} />
      <p class="actions">
        <a class="button primary" href={swapLink(pool)}>
          Swap in this pool
        </a>
        <a class="button" href="#liquidity">
          Add liquidity
        </a>
      </p>
      <PoolFigures pool={pool} stats={stats} ticker={ticker} />
      <PoolHistorySection pool={pool} />
      <div class="grid">
        <PoolTradesSection poolId={pool.poolId} version={version} />
        <PoolReserves pool={pool} stats={stats} />
      </div>
      <PoolLiquidity pool={pool} version={version} onChanged={() => setVersion((v) => v + 1)} />
    </>
  );
}

/**
 * The price guard's state in one line: clear, or limited with the direction that passes, the
 * price band and when it clears if nothing trades. Read from the pool's own route, which alone
 * carries it; nothing shows until it is read, or when it cannot be.
 */
function GuardStatus(props: { poolId: string; version: number }) {
  const { pp } = useServices();
  const [guard, setGuard] = useState<PoolGuard | null>(null);
  useEffect(() => {
    pp?.pools.get(props.poolId).then(
      (pool) => setGuard(pool.guard ?? null),
      () => setGuard(null),
    );
  }, [pp, props.poolId, props.version]);
  if (guard === null) return null;
  const band = `${guard.priceBand.low} to ${guard.priceBand.high} ${guard.quoteToken} per ${guard.baseToken}`;
  if (guard.state === 'clear') {
    return (
      <p class="hint" role="status" data-testid="pool-guard">
        Price guard: clear — swaps may move the price within {band}.
      </p>
    );
  }
  const clears =
    guard.clearsAt === null
      ? ''
      : `, about ${new Date(guard.clearsAt).toLocaleTimeString()} if nothing trades`;
  return (
    <p class="hint" role="status" data-testid="pool-guard">
      Price guard: limited since {guard.since ? new Date(guard.since).toLocaleTimeString() : 'now'}{' '}
      — the price is {(Number(guard.deviation) * 100).toFixed(2)}% from its reference. Swaps from{' '}
      {guard.allowedInputToken} pass; the other way only within {band}. Clears{clears}.
    </p>
  );
}

function swapLink(pool: Pool): string {
  const query = new URLSearchParams({
    from: `${pool.tokenA.name}|${pool.tokenA.admin}`,
    to: `${pool.tokenB.name}|${pool.tokenB.admin}`,
  });
  return `/swap?${query.toString()}`;
}

/** The pool (among every pool, for its label), its stats and ticker. */
function usePool(poolId: string, version: number) {
  const { pp } = useServices();
  const [pools, setPools] = useState<Pool[]>([]);
  const [stats, setStats] = useState<PoolStats | null>(null);
  const [ticker, setTicker] = useState<Ticker | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (pp === null) {
      setError('This service has no API key configured for its pages.');
      return;
    }
    pp.pools.list().then(
      ({ pools: listed }) => {
        setPools(listed);
        if (!listed.some((p) => p.poolId === poolId)) setError(`There is no pool ${poolId}.`);
      },
      (caught: unknown) => setError(describeError(caught)),
    );
    pp.pools.getStats(poolId).then(setStats, () => setStats(null));
    pp.pools.getTicker(poolId).then(setTicker, () => setTicker(null));
  }, [pp, poolId, version]);
  const pool = pools.find((p) => p.poolId === poolId) ?? null;
  return { pool, pools, stats, ticker, error };
}

function PoolHistorySection(props: { pool: Pool }) {
  const [period, setPeriod] = useState<PoolHistoryPeriod>('7d');
  const { history, error } = usePoolHistory(props.pool.poolId, period);
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <HistoryPeriodPicker value={period} onChange={setPeriod} />
      {error && (
        <p role="alert" class="error">
          Could not load the history: {error}
        </p>
      )}
      {!history && !error && <p role="status">Loading the history…</p>}
      {history && <PoolCharts pool={props.pool} history={history} />}
    </section>
  );
}

function PoolTradesSection(props: { poolId: string; version: number }) {
  const { reads } = useServices();
  const [trades, setTrades] = useState<readonly PoolTrade[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    reads?.poolTrades(props.poolId).then(
      (answer) => setTrades(answer.trades),
      (caught: unknown) => setError(describeError(caught)),
    );
  }, [reads, props.poolId, props.version]);
  return <PoolTrades trades={trades} error={error} />;
}
