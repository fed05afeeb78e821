/**
 * One pool's figures beside its charts: price, TVL, 24-hour volume and fees, APR (each with its
 * meaning), the reserves, and how the pool fee is split between liquidity providers and the
 * platform.
 */
import type { Pool, PoolStats, Ticker } from '@poolparty/sdk';
import { formatAmount, formatPercent, formatUsd } from '../format.js';
import {
  APR_MEANING,
  aprText,
  FEES_MEANING,
  Term,
  TVL_MEANING,
  VOLUME_MEANING,
} from './figure-terms.js';
import { poolPrice } from './pool-rows.js';

/**
 * The share of the pool fee that stays with liquidity providers: fixed by the service
 * (docs/spec/amounts-and-fees.md#where-fees-go), the platform keeps the rest.
 */
const LP_SHARE = 0.75;

export function PoolFigures(props: { pool: Pool; stats: PoolStats | null; ticker: Ticker | null }) {
  const { pool, stats, ticker } = props;
  return (
    <dl class="figures" data-testid="pool-figures">
      <div>
        <dt>Price</dt>
        <dd>
          1 {pool.tokenA.name} = {poolPrice(pool)} {pool.tokenB.name}
          {ticker && <span class="muted"> ({formatUsd(ticker.price)})</span>}
        </dd>
      </div>
      <div>
        <dt>
          <Term meaning={TVL_MEANING}>TVL</Term>
        </dt>
        <dd>{stats ? formatUsd(stats.tvl) : '—'}</dd>
      </div>
      <div>
        <dt>
          <Term meaning={VOLUME_MEANING}>24 h volume</Term>
        </dt>
        <dd>{stats ? `${formatUsd(stats.volume24h)} · ${stats.swapCount24h} swaps` : '—'}</dd>
      </div>
      <div>
        <dt>
          <Term meaning={FEES_MEANING}>24 h fees</Term>
        </dt>
        <dd>{stats ? formatUsd(stats.fees24h) : '—'}</dd>
      </div>
      <div>
        <dt>
          <Term meaning={APR_MEANING}>APR</Term>
        </dt>
        <dd>{aprText(stats)}</dd>
      </div>
    </dl>
  );
}

export function PoolReserves(props: { pool: Pool; stats: PoolStats | null }) {
  const { pool, stats } = props;
  const lpPart = pool.fee * LP_SHARE;
  return (
    <section class="card" aria-labelledby="reserves-heading">
      <h2 id="reserves-heading">Reserves and fees</h2>
      <dl class="breakdown" data-testid="reserves">
        <dt>{pool.tokenA.name}</dt>
        <dd>{formatAmount(pool.tokenA.reserve)}</dd>
        <dt>{pool.tokenB.name}</dt>
        <dd>{formatAmount(pool.tokenB.reserve)}</dd>
        <dt>Pool fee per swap</dt>
        <dd>{formatPercent(pool.fee)}</dd>
        <dt class="sub">to liquidity providers</dt>
        <dd data-testid="lp-fee-share">{formatPercent(lpPart, 3)}</dd>
        <dt class="sub">to the platform</dt>
        <dd>{formatPercent(pool.fee - lpPart, 3)}</dd>
        {stats && (
          <>
            <dt>Fees of the last 24 h</dt>
            <dd>
              {formatUsd(stats.fees24h)}, of which {formatUsd(stats.lpFees24h)} to liquidity
              providers
            </dd>
          </>
        )}
      </dl>
      <p class="hint">
        The network fee of each swap's transfers is charged on top, in the token sent.
      </p>
    </section>
  );
}
