/**
 * `/`: what PoolParty is, the live pools (reserves, price, 24 h figures from the market calls)
 * and where to go next.
 */
import type { Pool, PoolStats, Ticker } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { formatAmount, formatPercent, formatUsd } from '../format.js';
import { useServices } from '../services.js';

interface PoolRow {
  readonly pool: Pool;
  readonly stats: PoolStats | null;
  readonly ticker: Ticker | null;
}

/** How often the pool figures are read again while the page is open. */
const REFRESH_MS = 15_000;

export function LandingPage() {
  return (
    <>
      <Hero />
      <LivePools />
      <NextSteps />
    </>
  );
}

/** Every pool with its stats and ticker, read again every `REFRESH_MS` while the page is open. */
function usePoolRows() {
  const { pp } = useServices();
  const [rows, setRows] = useState<PoolRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (pp === null) return;
    let live = true;
    const load = async () => {
      try {
        const { pools } = await pp.pools.list();
        // A pool whose stats cannot be priced still shows its reserves.
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
        if (live) setError((caught as Error).message);
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

function Hero() {
  return (
    <section class="hero">
      <h1>Swap tokens on Canton Network, from your own party</h1>
      <p>
        PoolParty prices swaps against constant-product liquidity pools. You send your tokens from
        your wallet's party to a pool, and the output comes straight back to the same party —
        PoolParty never holds an account for you. If the price moves beyond your slippage limit,
        your deposit is refunded.
      </p>
      <p class="actions">
        <a class="button primary" href="/swap">
          Start a swap
        </a>
        <a class="button" href="/developer">
          Build with the SDK
        </a>
      </p>
    </section>
  );
}

function LivePools() {
  const { pp, rows, error } = usePoolRows();
  return (
    <section aria-labelledby="pools-heading">
      <h2 id="pools-heading">Live pools</h2>
      {pp === null && <p role="status">This service has no API key configured for its pages.</p>}
      {error && (
        <p role="alert" class="error">
          Could not load the pools: {error}
        </p>
      )}
      {rows === null && pp !== null && !error && <p role="status">Loading pools…</p>}
      {rows !== null && rows.length === 0 && <p>No pools yet.</p>}
      {rows !== null && rows.length > 0 && <PoolsTable rows={rows} />}
    </section>
  );
}

function PoolsTable(props: { rows: readonly PoolRow[] }) {
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take keyboard focus to be scrolled without a mouse (WCAG 2.1.1) */}
      <section class="table-scroll" aria-labelledby="pools-heading" tabIndex={0}>
        <table class="pools">
          <thead>
            <tr>
              <th scope="col">Pool</th>
              <th scope="col">Reserves</th>
              <th scope="col">Price</th>
              <th scope="col">24 h change</th>
              <th scope="col">24 h volume</th>
              <th scope="col">24 h swaps</th>
              <th scope="col">TVL</th>
              <th scope="col">APR</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <PoolLine key={row.pool.poolId} row={row} />
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

function PoolLine(props: { row: PoolRow }) {
  const { pool, stats, ticker } = props.row;
  return (
    <tr data-pool={pool.poolId}>
      <th scope="row">
        {pool.tokenA.name}/{pool.tokenB.name}
        <span class="muted"> {pool.poolId}</span>
        {pool.status === 'paused' && <span class="badge">paused</span>}
      </th>
      <td data-label="Reserves">
        {formatAmount(pool.tokenA.reserve, 2)} {pool.tokenA.name}
        <br />
        {formatAmount(pool.tokenB.reserve, 2)} {pool.tokenB.name}
      </td>
      <td data-label="Price">
        1 {pool.tokenA.name} = {poolPrice(pool)} {pool.tokenB.name}
        {ticker && <span class="muted"> ({formatUsd(ticker.price)})</span>}
      </td>
      <td data-label="24 h change">
        {ticker?.priceChange24h == null ? '—' : formatPercent(ticker.priceChange24h)}
      </td>
      <td data-label="24 h volume">{stats ? formatUsd(stats.volume24h) : '—'}</td>
      <td data-label="24 h swaps">{stats ? stats.swapCount24h : '—'}</td>
      <td data-label="TVL">{stats ? formatUsd(stats.tvl) : '—'}</td>
      <td data-label="APR">{stats?.apr == null ? '—' : formatPercent(stats.apr)}</td>
    </tr>
  );
}

function NextSteps() {
  return (
    <section aria-labelledby="next-heading">
      <h2 id="next-heading">Next</h2>
      <ul class="links">
        <li>
          <a href="/swap">Swap</a>: connect a wallet, get a live quote with every fee, and follow
          your swap to the end.
        </li>
        <li>
          <a href="/developer">Developer portal</a>: API keys, usage and earnings.
        </li>
        <li>
          <a href="/docs" target="_self">
            API reference
          </a>
          : every endpoint of <code>/v1</code>.
        </li>
        <li>
          <a href="/developer/sdk">SDK guide</a>: a complete swap in a few lines.
        </li>
      </ul>
    </section>
  );
}

/** The pool's spot price, tokenB per tokenA, from its reserves: for reading, not for sums. */
function poolPrice(pool: Pool): string {
  const price = Number(pool.tokenB.reserve) / Number(pool.tokenA.reserve);
  if (!Number.isFinite(price) || price === 0) return '—';
  return price.toPrecision(4).replace(/\.?0+$/, '');
}
