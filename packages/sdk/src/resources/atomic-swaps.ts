/** Atomic swaps: prepare, get, execute (sign), cancel, and the status beside the deposit flow's. */
import { AtomicSwapObject, type AtomicSwapServices } from '../atomic/atomic-swap.js';
import type { CallOptions, RequestSender, WriteOptions } from '../http/request-sender.js';
import type { AtomicSwap, AtomicSwapStatus } from '../types.js';
import {
  checkAmount,
  checkOptionalText,
  checkSlippageTolerance,
  checkText,
} from '../validation.js';
import { segment } from './path.js';
import type { SwapFollowSettings } from './swaps.js';

/**
 * One of the trader's holdings as its own participant discloses it: read from that participant's
 * active contracts with `includeCreatedEventBlob`, passed on unchanged.
 */
export interface DisclosedHolding {
  readonly contractId: string;
  readonly templateId: string;
  readonly createdEventBlob: string;
  readonly synchronizerId?: string;
}

/** Parameters of `atomicSwaps.create`. */
export interface CreateAtomicSwapParams {
  readonly fromToken: string;
  readonly toToken: string;
  /** Exact input, fees included, as a decimal string: what the input leg moves. */
  readonly amount: string;
  /** How far the signed output may fall below the quote's; 0.001 to 0.05, default 0.05. */
  readonly slippageTolerance?: number;
  /** The fingerprint of the key that will sign (a `WalletSigner`'s `fingerprint`). */
  readonly keyFingerprint: string;
  readonly poolId?: string;
  readonly fromAdmin?: string;
  readonly toAdmin?: string;
  /** The trader's holdings the input leg spends, by id; the ledger picks when absent. */
  readonly inputHoldingIds?: readonly string[];
  /**
   * The trader's holdings the input leg spends as disclosed contracts: for a party hosted on
   * another participant than the pool's, which cannot read them. Implies `inputHoldingIds`
   * (given too, it must name the same holdings).
   */
  readonly inputHoldings?: readonly DisclosedHolding[];
  /** Makes retries safe, as on `swaps.create`. */
  readonly idempotencyKey?: string;
}

/** `client.atomicSwaps`. */
export class AtomicSwaps {
  readonly #sender: RequestSender;
  readonly #services: AtomicSwapServices;

  constructor(sender: RequestSender, follow: SwapFollowSettings) {
    this.#sender = sender;
    this.#services = {
      pollIntervalMs: follow.pollIntervalMs,
      sleep: follow.sleep,
      get: (id) => this.getData(id),
      openStream: (id, headers, signal) =>
        sender.openStream(
          `/v1/atomic-swaps/${segment('atomicSwapId', id)}/events`,
          headers,
          signal,
        ),
      getStatus: (id, signal) => this.getData(id, { signal }),
      isStatus: (value) => typeof value.atomicSwapId === 'string',
      execute: (id, body) => this.executeData(id, body),
      cancel: (id) => this.cancelData(id),
    };
  }

  /**
   * Prepares an atomic swap (API key and wallet token): both legs in one transaction for the
   * wallet to check (`swap.verify()`) and sign (`swap.execute(signer)`) before `expiresAt`.
   */
  async create(params: CreateAtomicSwapParams, options?: WriteOptions): Promise<AtomicSwapObject> {
    const data = await this.#sender.send<AtomicSwap>({
      method: 'POST',
      path: '/v1/atomic-swaps',
      body: createBody(params),
      wallet: true,
      retrySafe: true,
      options: { ...options, idempotencyKey: params.idempotencyKey ?? options?.idempotencyKey },
    });
    return new AtomicSwapObject(data, this.#services);
  }

  /** A live object for an atomic swap of the wallet party (another party's: `NotFoundError`). */
  async get(atomicSwapId: string, options?: CallOptions): Promise<AtomicSwapObject> {
    return new AtomicSwapObject(await this.getData(atomicSwapId, options), this.#services);
  }

  /**
   * The swap as the status routes and `track` answer it (`GET /v1/swaps/{id}`): its
   * `AtomicSwapStatus`, in the deposit flow's words (`expectedAmount`, `minOutput`, `history`).
   */
  getStatus(atomicSwapId: string, options?: CallOptions): Promise<AtomicSwapStatus> {
    const path = `/v1/swaps/${segment('intentId', atomicSwapId)}`;
    return this.#sender.send({ method: 'GET', path, wallet: true, retrySafe: true, options });
  }

  /** Cancels a prepared swap; a signed or ended one throws `ConflictError`. */
  async cancel(atomicSwapId: string, options?: WriteOptions): Promise<AtomicSwap> {
    return this.cancelData(atomicSwapId, options);
  }

  private getData(atomicSwapId: string, options?: CallOptions): Promise<AtomicSwap> {
    const path = `/v1/atomic-swaps/${segment('atomicSwapId', atomicSwapId)}`;
    return this.#sender.send({ method: 'GET', path, wallet: true, retrySafe: true, options });
  }

  private executeData(
    atomicSwapId: string,
    body: { readonly signature: string; readonly publicKey: string },
  ): Promise<AtomicSwap> {
    const path = `/v1/atomic-swaps/${segment('atomicSwapId', atomicSwapId)}/execute`;
    // Safe to send again: the service executes a swap once, and answers it as it is after.
    return this.#sender.send({ method: 'POST', path, body, wallet: true, retrySafe: true });
  }

  private cancelData(atomicSwapId: string, options?: WriteOptions): Promise<AtomicSwap> {
    const path = `/v1/atomic-swaps/${segment('atomicSwapId', atomicSwapId)}/cancel`;
    return this.#sender.send({ method: 'POST', path, wallet: true, retrySafe: true, options });
  }
}

/** A disclosed holding as the body carries it: its four fields only, each checked as text. */
function disclosed(holding: DisclosedHolding): DisclosedHolding {
  checkText('inputHoldings[].contractId', holding?.contractId);
  checkText('inputHoldings[].templateId', holding?.templateId);
  checkText('inputHoldings[].createdEventBlob', holding?.createdEventBlob);
  checkOptionalText('inputHoldings[].synchronizerId', holding.synchronizerId);
  const { contractId, templateId, createdEventBlob, synchronizerId } = holding;
  return {
    contractId,
    templateId,
    createdEventBlob,
    ...(synchronizerId !== undefined && { synchronizerId }),
  };
}

function createBody(params: CreateAtomicSwapParams): Record<string, unknown> {
  checkText('fromToken', params.fromToken);
  checkText('toToken', params.toToken);
  checkAmount('amount', params.amount);
  checkSlippageTolerance(params.slippageTolerance);
  checkText('keyFingerprint', params.keyFingerprint);
  const optional = ['poolId', 'fromAdmin', 'toAdmin'] as const;
  for (const field of optional) checkOptionalText(field, params[field]);
  const body: Record<string, unknown> = {
    fromToken: params.fromToken,
    toToken: params.toToken,
    amount: params.amount,
    keyFingerprint: params.keyFingerprint,
  };
  if (params.slippageTolerance !== undefined) body.slippageTolerance = params.slippageTolerance;
  if (params.inputHoldingIds !== undefined) body.inputHoldingIds = [...params.inputHoldingIds];
  if (params.inputHoldings !== undefined) body.inputHoldings = params.inputHoldings.map(disclosed);
  for (const field of optional) if (params[field] !== undefined) body[field] = params[field];
  return body;
}
