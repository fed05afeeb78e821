/** Swap intents: create, status, cancel. */
import { ConflictError, ValidationError } from '../errors.js';
import type { Sleep } from '../http/abort.js';
import type { CallOptions, RequestSender, WriteOptions } from '../http/request-sender.js';
import { createSwapObject, type Swap, type SwapServices } from '../swap/swap.js';
import type { CancelResult, SwapIntent, SwapStatus, SwapTerms } from '../types.js';
import {
  checkAmount,
  checkOptionalText,
  checkSlippageTolerance,
  checkText,
} from '../validation.js';
import { segment } from './path.js';
import type { Quotes } from './quotes.js';

/** Parameters of `swaps.create`. */
export interface CreateSwapParams {
  /** Input token symbol. */
  readonly fromToken: string;
  /** Output token symbol. */
  readonly toToken: string;
  /** Exact deposit amount, as a decimal string; becomes the intent's `expectedAmount`. */
  readonly amount: string;
  /** Accepted output shortfall, 0.001 to 0.05 inclusive; default 0.05. Checked before sending. */
  readonly slippageTolerance?: number;
  /** The sender party; when given it must be the wallet token's party. */
  readonly walletAddress?: string;
  /** Picks the pool when a symbol exists under several admins. */
  readonly poolId?: string;
  /** Admin of the input token. */
  readonly fromAdmin?: string;
  /** Admin of the output token. */
  readonly toAdmin?: string;
  /**
   * Makes retries safe: the same key and body replay the first intent (24 h). One is generated
   * per call when absent; every retry of the call reuses it. The same as the `idempotencyKey`
   * option every write takes; given here, it wins over the option.
   */
  readonly idempotencyKey?: string;
  /** @deprecated Ignored: the output always goes to the depositor party. */
  readonly outputAddress?: string;
}

/** Options of `swaps.get`. */
export interface GetSwapOptions extends CallOptions {
  /**
   * The last event id the swap's previous object saw (`swap.lastEventId`): the new object resumes
   * the event stream after it and fires only what came later. Without it, everything the status
   * shows now counts as seen and only later changes fire.
   */
  readonly lastEventId?: string;
}

/** How a swap object follows its swap. */
export interface SwapFollowSettings {
  readonly pollIntervalMs: number;
  readonly sleep: Sleep;
  readonly now: () => number;
}

/** `client.swaps`. */
export class Swaps {
  readonly #sender: RequestSender;
  readonly #services: SwapServices;

  /**
   * @param sender - The client's request sender.
   * @param follow - Polling interval, sleep and clock for swap objects.
   * @param quotes - The client's quotes, which `swap.canDeposit()` re-quotes with.
   */
  constructor(sender: RequestSender, follow: SwapFollowSettings, quotes: Quotes) {
    this.#sender = sender;
    this.#services = {
      ...follow,
      quote: (params, options) => quotes.get(params, options),
      openStream: (intentId, headers, signal) =>
        sender.openStream(`/v1/swaps/${segment('intentId', intentId)}/events`, headers, signal),
      getStatus: (intentId, signal) => this.getStatus(intentId, { signal }),
      getStatusOnce: (intentId, options) => this.getStatus(intentId, options),
      cancel: (intentId, options) => this.cancel(intentId, options),
    };
  }

  /**
   * Creates a swap intent (API key and wallet token). Send exactly `expectedAmount` of the input
   * token from the wallet party to `depositAddress` before `expiresAt`, with `depositReference`
   * as the transfer reason where the wallet supports one; then `await swap.wait()`.
   *
   * Throws before any request: `ValidationError` (slippage, amount), `AuthenticationError` (no
   * wallet token). From the service: `SettlementSafetyError`, `AmbiguousPoolPairError`,
   * `ConflictError` (a pending intent exists), `AuthenticationError` (403 for a `walletAddress`
   * of another party), `ValidationError`.
   */
  async create(params: CreateSwapParams, options?: WriteOptions): Promise<Swap> {
    const intent = await this.#sender.send<SwapIntent>({
      method: 'POST',
      path: '/v1/swaps',
      body: createBody(params),
      wallet: true,
      // Safe to send twice only because the key makes the service replay the first answer.
      retrySafe: true,
      options: { ...options, idempotencyKey: params.idempotencyKey ?? options?.idempotencyKey },
    });
    return createSwapObject(intent, this.#services);
  }

  /**
   * A live swap object for an existing intent of the wallet party, e.g. after a page reload:
   * events, `wait()`, `cancel()` and `refresh()` as on the object `create` returned, with the
   * swap's terms as data. Pass the previous object's `lastEventId` so events it already fired
   * are not fired again (see `GetSwapOptions`). Another party's intent answers `NotFoundError`.
   */
  async get(intentId: string, options: GetSwapOptions = {}): Promise<Swap<SwapTerms>> {
    const { lastEventId, ...call } = options;
    if (lastEventId !== undefined && !/^\d{1,15}$/.test(lastEventId)) {
      throw new ValidationError("Invalid lastEventId: pass a swap object's lastEventId", {
        code: 'validation_error',
      });
    }
    const status = await this.getStatus(intentId, call);
    return createSwapObject(termsOf(status), this.#services, {
      status,
      lastEventId: lastEventId ?? null,
    });
  }

  /**
   * The status of a swap of the wallet party (another party's answers `NotFoundError`). An
   * atomic swap's (`atm_…`) is `atomicSwaps.getStatus`'s, typed as it: here its id throws
   * `ValidationError` before any request.
   */
  async getStatus(intentId: string, options?: CallOptions): Promise<SwapStatus> {
    if (intentId.startsWith('atm_')) {
      throw new ValidationError('An atomic swap: use atomicSwaps.getStatus', {
        code: 'validation_error',
      });
    }
    const path = `/v1/swaps/${segment('intentId', intentId)}`;
    return this.#sender.send({ method: 'GET', path, wallet: true, retrySafe: true, options });
  }

  /**
   * Cancels a pending intent of the wallet party. Cancelling one that is already cancelled
   * resolves as well; one past pending (a deposit arrived) throws `ConflictError`.
   */
  async cancel(intentId: string, options?: WriteOptions): Promise<CancelResult> {
    const path = `/v1/swaps/${segment('intentId', intentId)}/cancel`;
    try {
      return await this.#sender.send({
        method: 'POST',
        path,
        wallet: true,
        retrySafe: true,
        options,
      });
    } catch (error) {
      if (error instanceof ConflictError && isAlreadyCancelled(error.body)) {
        return { intentId, status: 'cancelled' };
      }
      throw error;
    }
  }
}

function createBody(params: CreateSwapParams): Record<string, unknown> {
  checkText('fromToken', params.fromToken);
  checkText('toToken', params.toToken);
  checkAmount('amount', params.amount);
  checkSlippageTolerance(params.slippageTolerance);
  const optional = ['walletAddress', 'poolId', 'fromAdmin', 'toAdmin'] as const;
  for (const field of optional) checkOptionalText(field, params[field]);
  const body: Record<string, unknown> = {
    fromToken: params.fromToken,
    toToken: params.toToken,
    amount: params.amount,
  };
  if (params.slippageTolerance !== undefined) body.slippageTolerance = params.slippageTolerance;
  for (const field of optional) if (params[field] !== undefined) body[field] = params[field];
  return body;
}

/** The terms of a swap, as the status shows them: the data of a rebuilt swap object. */
function termsOf(status: SwapStatus): SwapTerms {
  return {
    intentId: status.intentId,
    poolId: status.poolId,
    depositAddress: status.depositAddress,
    depositReference: status.depositReference,
    inputToken: status.inputToken,
    inputTokenAdmin: status.inputTokenAdmin,
    outputToken: status.outputToken,
    outputTokenAdmin: status.outputTokenAdmin,
    expectedAmount: status.expectedAmount,
    expectedOutput: status.expectedOutput,
    minOutput: status.minOutput,
    slippageTolerance: status.slippageTolerance,
    outputAddress: status.outputAddress,
    expiresAt: status.expiresAt,
    status: status.status,
    createdAt: status.createdAt,
  };
}

function isAlreadyCancelled(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { intentStatus?: unknown }).intentStatus === 'cancelled'
  );
}
