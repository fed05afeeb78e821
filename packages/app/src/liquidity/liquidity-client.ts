/**
 * The liquidity routes (`/v1/liquidity`, docs/spec/liquidity.md) for the pool pages: intents,
 * withdrawals and positions of the connected wallet's party. Plain `fetch` through
 * `callService`, with the pages' API key and the wallet token, as the swap calls send them: the
 * SDK is published within a size budget of its own, and only these pages need the routes.
 */
import type {
  CreateLiquidityIntentBody,
  CreateWithdrawalBody,
  LiquidityIntent,
  Position,
  Withdrawal,
} from '@poolparty/core';
import { useMemo } from 'preact/hooks';
import { callService } from '../service-reads.js';
import { useServices } from '../services.js';

export type { LiquidityIntent, Position, Withdrawal };

export class LiquidityClient {
  readonly #apiKey: string;
  readonly #walletToken: () => Promise<string>;

  constructor(apiKey: string, walletToken: () => Promise<string>) {
    this.#apiKey = apiKey;
    this.#walletToken = walletToken;
  }

  createIntent(body: CreateLiquidityIntentBody): Promise<LiquidityIntent> {
    return this.#call('POST', '/v1/liquidity/intents', body);
  }

  intent(id: string): Promise<LiquidityIntent> {
    return this.#call('GET', `/v1/liquidity/intents/${encodeURIComponent(id)}`);
  }

  cancelIntent(id: string): Promise<LiquidityIntent> {
    return this.#call('POST', `/v1/liquidity/intents/${encodeURIComponent(id)}/cancel`);
  }

  /** The party's intents, newest first. */
  async intents(limit = 20): Promise<LiquidityIntent[]> {
    const { items } = await this.#call<{ items: LiquidityIntent[] }>(
      'GET',
      `/v1/liquidity/intents?limit=${limit}`,
    );
    return items;
  }

  withdraw(body: CreateWithdrawalBody): Promise<Withdrawal> {
    return this.#call('POST', '/v1/liquidity/withdrawals', body);
  }

  withdrawal(id: string): Promise<Withdrawal> {
    return this.#call('GET', `/v1/liquidity/withdrawals/${encodeURIComponent(id)}`);
  }

  async positions(): Promise<Position[]> {
    const { items } = await this.#call<{ items: Position[] }>('GET', '/v1/liquidity/positions');
    return items;
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const token = await this.#walletToken();
    return callService<T>(path, {
      method,
      headers: { 'x-api-key': this.#apiKey, authorization: `Bearer ${token}` },
      body,
    });
  }
}

/** The client for the connected wallet; null without a wallet or without the pages' key. */
export function useLiquidityClient(): LiquidityClient | null {
  const { config, session, wallet } = useServices();
  const partyId = wallet?.partyId ?? null;
  return useMemo(
    () =>
      config.apiKey === null || partyId === null
        ? null
        : new LiquidityClient(config.apiKey, () => session.token()),
    [config.apiKey, session, partyId],
  );
}
