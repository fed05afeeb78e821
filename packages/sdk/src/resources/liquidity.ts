/**
 * `pp.liquidity`: liquidity intents, withdrawals and positions of the wallet party — an extension
 * beside the swap interface (routes under `/v1/liquidity`). Every call needs the API key and a
 * wallet token: the client's, or `walletToken` in the call's options, which a returned object
 * keeps for its own later calls.
 */
import { ValidationError } from '../errors.js';
import type { CallOptions, RequestSender, WriteOptions } from '../http/request-sender.js';
import {
  createLiquidityIntentObject,
  type LiquidityIntentObject,
  type LiquidityServices,
} from '../liquidity/intent.js';
import {
  createWithdrawalObject,
  type WithdrawalObject,
  type WithdrawalServices,
} from '../liquidity/withdrawal.js';
import type { LiquidityIntent, Position, Withdrawal } from '../types.js';
import { checkAmount, checkText } from '../validation.js';
import type { SwapFollowSettings } from './swaps.js';

/** Parameters of `liquidity.create`: both amounts, or one and the other at the pool's ratio. */
export interface CreateLiquidityParams {
  readonly poolId: string;
  /** Token A to deposit, as a decimal string. */
  readonly amountA?: string;
  /** Token B to deposit; a pool with no liquidity yet needs both (they set its price). */
  readonly amountB?: string;
  /** How far below the expected units the mint may fall, in basis points; default 50. */
  readonly slippageBps?: number;
}

/** Parameters of `liquidity.withdraw`: exactly one of `units` and `shareBps`. */
export interface WithdrawParams {
  readonly poolId: string;
  /** Units to burn. */
  readonly units?: string;
  /** Or a share of the position to burn, in basis points (10 000 = all). */
  readonly shareBps?: number;
  /** The least token A accepted; less and nothing is burned. */
  readonly minimumA: string;
  /** The least token B accepted; less and nothing is burned. */
  readonly minimumB: string;
}

const BASE = '/v1/liquidity';

/** `client.liquidity`. */
export class Liquidity {
  readonly #sender: RequestSender;
  readonly #follow: SwapFollowSettings;

  constructor(sender: RequestSender, follow: SwapFollowSettings) {
    this.#sender = sender;
    this.#follow = follow;
  }

  /**
   * Creates a liquidity intent: send `expected.a` and `expected.b` from the wallet party to
   * `depositAddress` with `depositReference` as the reason, in either order; then `wait()`.
   * Throws `ValidationError` before any request for malformed parameters; from the service
   * `ValidationError` (`amount_out_of_range`, `first_deposit_too_small`), `ConflictError`
   * (`active_liquidity_intent_exists`, `pool_has_no_price`, `pool_paused`) or `NotFoundError`
   * (`pool_not_found`).
   */
  async create(
    params: CreateLiquidityParams,
    options?: WriteOptions,
  ): Promise<LiquidityIntentObject> {
    checkText('poolId', params.poolId);
    if (params.amountA === undefined && params.amountB === undefined) {
      throw new ValidationError('Invalid amounts: give amountA, amountB or both', {
        code: 'validation_error',
      });
    }
    for (const side of ['amountA', 'amountB'] as const) {
      if (params[side] !== undefined) checkAmount(side, params[side]);
    }
    checkWhole('slippageBps', params.slippageBps, 0, 5000);
    const intent = await this.#send<LiquidityIntent>('POST', '/intents', options, params);
    return this.#intent(intent, options);
  }

  /** A live object for an intent of the wallet party (another party's is `NotFoundError`). */
  async get(liquidityIntentId: string, options?: CallOptions): Promise<LiquidityIntentObject> {
    return this.#intent(await this.#read(liquidityIntentId, options), options);
  }

  /** The wallet party's liquidity intents, newest first (`limit` 1 to 100, default 20). */
  async list(params: { readonly limit?: number } = {}, options?: CallOptions) {
    checkWhole('limit', params.limit, 1, 100);
    const query = params.limit === undefined ? '' : `?limit=${params.limit}`;
    const list = await this.#send<{ items: LiquidityIntent[] }>('GET', `/intents${query}`, options);
    return list.items;
  }

  /**
   * Burns units of the wallet party's position for both tokens at the reserves now. Refusals
   * burn nothing: `ValidationError` (`validation_error`: `units` of zero), `NotFoundError`
   * (`pool_not_found`, `position_not_found`), `ConflictError` (`insufficient_units`,
   * `withdrawal_minimum_not_met`, `nothing_to_withdraw`).
   */
  async withdraw(params: WithdrawParams, options?: WriteOptions): Promise<WithdrawalObject> {
    checkText('poolId', params.poolId);
    if ((params.units === undefined) === (params.shareBps === undefined)) {
      throw new ValidationError('Invalid withdrawal: give exactly one of units and shareBps', {
        code: 'validation_error',
      });
    }
    if (params.units !== undefined) checkAmount('units', params.units);
    checkWhole('shareBps', params.shareBps, 1, 10_000);
    checkAmount('minimumA', params.minimumA);
    checkAmount('minimumB', params.minimumB);
    const created = await this.#send<Withdrawal>('POST', '/withdrawals', options, params);
    return this.#withdrawal(created, options);
  }

  /** A withdrawal of the wallet party, to follow its payouts. */
  async withdrawal(withdrawalId: string, options?: CallOptions): Promise<WithdrawalObject> {
    const found = await this.#send<Withdrawal>('GET', path('/withdrawals/', withdrawalId), options);
    return this.#withdrawal(found, options);
  }

  /** The wallet party's withdrawals, newest first (`limit` 1–100, 20 by default). */
  async withdrawals(options?: CallOptions & { limit?: number }): Promise<WithdrawalObject[]> {
    if (options?.limit !== undefined) checkWhole('limit', options.limit, 1, 100);
    const query = options?.limit === undefined ? '' : `?limit=${options.limit}`;
    const found = await this.#send<{ items: Withdrawal[] }>('GET', `/withdrawals${query}`, options);
    return found.items.map((each) => this.#withdrawal(each, options));
  }

  /** The wallet party's positions, one per pool, valued at each pool's price now. */
  async positions(options?: CallOptions): Promise<Position[]> {
    return (await this.#send<{ items: Position[] }>('GET', '/positions', options)).items;
  }

  #read(id: string, options?: CallOptions): Promise<LiquidityIntent> {
    return this.#send('GET', path('/intents/', id), options);
  }

  #send<T>(method: 'GET' | 'POST', at: string, options?: WriteOptions, body?: object): Promise<T> {
    // Every POST here goes with an Idempotency-Key, which makes its retry replay the first answer.
    const request = { method, path: BASE + at, wallet: true, retrySafe: true, options, body };
    return this.#sender.send<T>(request);
  }

  #intent(intent: LiquidityIntent, options?: CallOptions): LiquidityIntentObject {
    const token = options?.walletToken;
    const keep = (call?: CallOptions) => ({ walletToken: token, ...call });
    const services: LiquidityServices = {
      ...this.#follow,
      isStatus: (value) => typeof value.liquidityIntentId === 'string',
      openStream: (id, headers, signal) =>
        this.#sender.openStream(`${BASE}${path('/intents/', id)}/events`, headers, signal, token),
      getStatus: (id, signal) => this.#read(id, keep({ signal })),
      read: (id, call) => this.#read(id, keep(call)),
      cancel: (id, call) => this.#send('POST', `${path('/intents/', id)}/cancel`, keep(call)),
    };
    return createLiquidityIntentObject(intent, services);
  }

  #withdrawal(withdrawal: Withdrawal, options?: CallOptions): WithdrawalObject {
    const token = options?.walletToken;
    const read = (id: string, call?: CallOptions) =>
      this.#send<Withdrawal>('GET', path('/withdrawals/', id), { walletToken: token, ...call });
    const services: WithdrawalServices = {
      ...this.#follow,
      isStatus: (value) => typeof value.withdrawalId === 'string',
      openStream: (id, headers, signal) =>
        this.#sender.openStream(
          `${BASE}${path('/withdrawals/', id)}/events`,
          headers,
          signal,
          token,
        ),
      getStatus: (id, signal) => read(id, { signal }),
      read,
    };
    return createWithdrawalObject(withdrawal, services);
  }
}

function path(prefix: string, id: string): string {
  checkText('id', id);
  return prefix + encodeURIComponent(id);
}

/** An optional whole number within [min, max]. */
function checkWhole(field: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined || (Number.isInteger(value) && value >= min && value <= max)) return;
  throw new ValidationError(`Invalid ${field}: expected a whole number from ${min} to ${max}`, {
    code: 'validation_error',
  });
}
