/** Pools: list, detail, statistics and ticker. */
import type { CallOptions, RequestSender } from '../http/request-sender.js';
import type { Pool, PoolList, PoolStats, Ticker } from '../types.js';
import { segment } from './path.js';

/** Options of `pools.getStats`. */
export interface PoolStatsParams {
  /** APR lookback in days, 1 to 365; the service's default is 7. */
  readonly days?: number;
}

/** `client.pools`. */
export class Pools {
  readonly #sender: RequestSender;

  /** @param sender - The client's request sender. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** All pools with effective reserves, fee and liquidity-provider supply. */
  async list(options?: CallOptions): Promise<PoolList> {
    return this.#sender.send({ method: 'GET', path: '/v1/pools', retrySafe: true, options });
  }

  /** One pool, including `swapAddress` and `lpAddress`. */
  async get(poolId: string, options?: CallOptions): Promise<Pool> {
    const path = `/v1/pools/${segment('poolId', poolId)}`;
    return this.#sender.send({ method: 'GET', path, retrySafe: true, options });
  }

  /** APR, APY, volume, fees, TVL and swap count of a pool; `days` sets the APR lookback. */
  async getStats(
    poolId: string,
    params: PoolStatsParams = {},
    options?: CallOptions,
  ): Promise<PoolStats> {
    const path = `/v1/pools/${segment('poolId', poolId)}/stats`;
    const query = { days: params.days };
    return this.#sender.send({ method: 'GET', path, query, retrySafe: true, options });
  }

  /** USD price, 24-hour change and volume of a pool's base token. */
  async getTicker(poolId: string, options?: CallOptions): Promise<Ticker> {
    const path = `/v1/pools/${segment('poolId', poolId)}/ticker`;
    return this.#sender.send({ method: 'GET', path, retrySafe: true, options });
  }
}
