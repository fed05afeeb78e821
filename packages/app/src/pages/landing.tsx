/**
 * `/`: what PoolParty is, the live pools (reserves, price, 24 h figures from the market calls)
 * and where to go next.
 */

import { ColumnHeads } from '../components/column-heads.js';
import { formatAmount, formatPercent, formatUsd } from '../format.js';
import { usePageTitle } from '../page-title.js';
import { aprText } from '../pools/figure-terms.js';
import { type PoolRow, poolPrice, usePoolRows } from '../pools/pool-rows.js';
import { PoolRowsState } from '../pools/pool-rows-state.js';
import { pairLabel } from '../token-choice.js';

export function LandingPage() {
  usePageTitle('Swap tokens on Canton Network');
  return (
    <>
      <Hero />
      <LivePools />
      <NextSteps />
    </>
  );
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
        <a class="button" href="/developer/sdk">
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
      <p>
        <a href="/pools">Every pool</a> with its charts, reserves and latest swaps.
      </p>
      <PoolRowsState hasClient={pp !== null} rows={rows} error={error}>
        {rows !== null && <PoolsTable rows={rows} />}
      </PoolRowsState>
    </section>
  );
}

function PoolsTable(props: { rows: readonly PoolRow[] }) {
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take keyboard focus to be scrolled without a mouse (WCAG 2.1.1) */}
      <section class="table-scroll" aria-labelledby="pools-heading" tabIndex={0}>
        <table class="pools">
          <ColumnHeads
            names={[
              'Pool',
              'Reserves',
              'Price',
              '24 h change',
              '24 h volume',
              '24 h swaps',
              'TVL',
              'APR',
            ]}
          />
          <tbody>
            {props.rows.map((row) => (
              <PoolLine key={row.pool.poolId} row={row} rows={props.rows} />
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

function PoolLine(props: { row: PoolRow; rows: readonly PoolRow[] }) {
  const { pool, stats, ticker } = props.row;
  return (
    <tr data-pool={pool.poolId}>
      <th scope="row">
        <a href={`/pools/${encodeURIComponent(pool.poolId)}`}>
          {pairLabel(
            pool,
            props.rows.map((row) => row.pool),
          )}
        </a>
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
        {ticker?.priceChange24h == null
          ? 'not yet (needs 23 h of prices)'
          : formatPercent(ticker.priceChange24h)}
      </td>
      <td data-label="24 h volume">{stats ? formatUsd(stats.volume24h) : '—'}</td>
      <td data-label="24 h swaps">{stats ? stats.swapCount24h : '—'}</td>
      <td data-label="TVL">{stats ? formatUsd(stats.tvl) : '—'}</td>
      <td data-label="APR">{aprText(stats)}</td>
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
