/**
 * `/pools`: every pool, with its pair (each side's issuer named where two pools trade the same
 * symbols), TVL, 24-hour volume and fees, and APR; what each figure means is on its heading, on
 * hover and on keyboard focus. Each pool links to its own page. With a wallet connected, the
 * party's liquidity positions follow.
 */
import { formatUsd } from '../format.js';
import { YourPositions } from '../liquidity/your-positions.js';
import { usePageTitle } from '../page-title.js';
import {
  APR_MEANING,
  aprText,
  FEES_MEANING,
  Term,
  TVL_MEANING,
  VOLUME_MEANING,
} from '../pools/figure-terms.js';
import { type PoolRow, usePoolRows } from '../pools/pool-rows.js';
import { PoolRowsState } from '../pools/pool-rows-state.js';
import { pairLabel } from '../token-choice.js';

export function PoolsPage() {
  usePageTitle('Pools');
  const { pp, rows, error } = usePoolRows();
  return (
    <>
      <h1 id="pools-heading">Pools</h1>
      <p>
        Each pool holds two tokens and prices swaps from its reserves. Figures are in USD and read
        again every 15 seconds.
      </p>
      <PoolRowsState hasClient={pp !== null} rows={rows} error={error}>
        {rows !== null && <PoolsList rows={rows} />}
      </PoolRowsState>
      {rows !== null && <YourPositions pools={rows.map((row) => row.pool)} />}
    </>
  );
}

function PoolsList(props: { rows: readonly PoolRow[] }) {
  const pools = props.rows.map((row) => row.pool);
  return (
    <>
      <table class="pools with-terms" data-testid="pools-list">
        <caption class="visually-hidden">Every pool with its figures</caption>
        <thead>
          <tr>
            <th scope="col">Pool</th>
            <th scope="col">
              <Term meaning={TVL_MEANING}>TVL</Term>
            </th>
            <th scope="col">
              <Term meaning={VOLUME_MEANING}>24 h volume</Term>
            </th>
            <th scope="col">
              <Term meaning={FEES_MEANING}>24 h fees</Term>
            </th>
            <th scope="col">
              <Term meaning={APR_MEANING}>APR</Term>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map(({ pool, stats }) => (
            <tr key={pool.poolId} data-pool={pool.poolId}>
              <th scope="row">
                <a href={`/pools/${encodeURIComponent(pool.poolId)}`}>{pairLabel(pool, pools)}</a>
                <span class="muted"> {pool.poolId}</span>
                {pool.status === 'paused' && <span class="badge">paused</span>}
              </th>
              <td data-label="TVL">{stats ? formatUsd(stats.tvl) : '—'}</td>
              <td data-label="24 h volume">{stats ? formatUsd(stats.volume24h) : '—'}</td>
              <td data-label="24 h fees">{stats ? formatUsd(stats.fees24h) : '—'}</td>
              <td data-label="APR">{aprText(stats)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Glossary />
    </>
  );
}

/** The figures' meanings as text too: on a phone the table's headings give way to cards. */
function Glossary() {
  return (
    <details class="glossary">
      <summary>What the figures mean</summary>
      <dl>
        <dt>TVL</dt>
        <dd>{TVL_MEANING}</dd>
        <dt>24 h volume</dt>
        <dd>{VOLUME_MEANING}</dd>
        <dt>24 h fees</dt>
        <dd>{FEES_MEANING}</dd>
        <dt>APR</dt>
        <dd>{APR_MEANING}</dd>
      </dl>
    </details>
  );
}
