/**
 * `/v1/atomic-swaps` (docs/spec/atomic-swaps.md): the request's own checks and what settlement is
 * asked. Prepare quotes as `POST /v1/swaps` does and hands the priced quote to settlement's
 * `prepareAtomicSwap` (which stores the swap, its reservations and the idempotent answer in one
 * transaction); execute decodes the signature and hands it to `executeAtomicSwap`. Where the
 * service's ledger prepares no transactions for a wallet to sign (one without interactive
 * submission: the canton adapter and the embedded ledger both have it), both answer
 * `atomic_swaps_unavailable`, and the deposit flow is the way.
 */
import {
  type AtomicSwap,
  type CreateAtomicSwapBody,
  DomainError,
  decodeBase64,
  type ExecuteAtomicSwapBody,
  inputHoldingsOf,
} from '@poolparty/core';
import {
  type AtomicExecutionDeps,
  atomicSwapPortOf,
  DEFAULT_ENGINE_SETTINGS,
  executeAtomicSwap,
  type OpeningAnswer,
  prepareAtomicSwap,
} from '@poolparty/settlement';
import { type ApiKeyRecord, type AtomicSwapRecord, getPool } from '@poolparty/store';
import type { ServiceContext } from '../context.js';
import { quoteRequestOf, resolveSlippage } from '../swaps/create-intent.js';
import { atomicSwapView } from '../views/atomic-swap.js';

export type AtomicSwapContext = Pick<
  ServiceContext,
  'db' | 'clock' | 'quoter' | 'ledger' | 'walletTokens'
>;

/** The body as prepare reads it: the default slippage tolerance filled in. */
export function understoodAtomicSwap(body: CreateAtomicSwapBody): CreateAtomicSwapBody {
  return { ...body, slippageTolerance: resolveSlippage(body.slippageTolerance) };
}

function unavailable(): DomainError {
  return new DomainError(
    'atomic_swaps_unavailable',
    'This service’s ledger prepares no transaction for a wallet to sign; use POST /v1/swaps (the deposit flow).',
  );
}

/**
 * What settlement's atomic swaps are given of the service: its store, ledger and clock, and the
 * engine's settings (the cap, the guard), as the deposit flow's executions use them.
 */
export function atomicSwapDeps(ctx: AtomicSwapContext): AtomicExecutionDeps {
  const atomicSwaps = atomicSwapPortOf(ctx.ledger);
  if (atomicSwaps === null) throw unavailable();
  const engine = DEFAULT_ENGINE_SETTINGS;
  return {
    db: ctx.db,
    ledger: ctx.ledger,
    atomicSwaps,
    clock: ctx.clock,
    quoter: ctx.quoter,
    log: { warn: () => {}, error: () => {} },
    settings: {
      maxPriceImpact: engine.maxPriceImpact,
      guardThresholds: engine.guardThresholds,
      velocityWindowMs: engine.velocityWindowMs,
      expiryBatchMax: engine.expiryBatchMax,
    },
  };
}

/** The swap as the routes answer it. */
export async function viewOfAtomicSwap(
  ctx: Pick<ServiceContext, 'db'>,
  swap: AtomicSwapRecord,
): Promise<AtomicSwap> {
  const pool = await getPool(ctx.db, swap.poolId);
  if (pool === null) throw new Error(`atomic swap ${swap.atomicSwapId} names no pool`);
  return atomicSwapView(swap, pool);
}

/**
 * The trader's input holdings as the request names them (core's `inputHoldingsOf`): refused
 * before anything is quoted when `inputHoldingIds` and `inputHoldings` disagree.
 */
function inputsOf(body: CreateAtomicSwapBody) {
  const inputs = inputHoldingsOf(body);
  if (inputs.kind === 'mismatch') {
    throw new DomainError('input_holdings_mismatch', inputs.message);
  }
  return {
    ...(inputs.holdingIds !== undefined && { inputHoldingIds: inputs.holdingIds }),
    ...(inputs.disclosed.length > 0 && { inputHoldings: inputs.disclosed }),
  };
}

export async function createAtomicSwap(
  ctx: AtomicSwapContext,
  request: {
    readonly body: CreateAtomicSwapBody;
    readonly walletParty: string;
    readonly apiKey: Pick<ApiKeyRecord, 'keyId' | 'developerParty'>;
  },
  answer: OpeningAnswer | null,
): Promise<AtomicSwap> {
  const deps = atomicSwapDeps(ctx);
  const { body, walletParty, apiKey } = request;
  const inputs = inputsOf(body);
  const slippageTolerance = resolveSlippage(body.slippageTolerance);
  const priced = await ctx.quoter.quote(quoteRequestOf(body), {
    apiKeyId: apiKey.keyId,
    walletParty,
  });
  const origin = {
    apiKeyId: apiKey.keyId,
    developerParty: apiKey.developerParty,
    walletParty,
    slippageTolerance,
    now: ctx.clock.now(),
    keyFingerprint: body.keyFingerprint,
    ...inputs,
  };
  return prepareAtomicSwap(
    deps,
    { priced, origin },
    // The view names the pool's swap party, which the quote's pool carries: no read of the pool.
    { view: (swap) => atomicSwapView(swap, priced.pool), answer },
  );
}

/** The signature as bytes; a body that is not base64 of the right lengths is a 400. */
function signatureOf(body: ExecuteAtomicSwapBody) {
  const signature = decodeBase64(body.signature);
  const publicKey = decodeBase64(body.publicKey);
  if (signature === null || publicKey === null) {
    throw new DomainError('validation_error', 'signature and publicKey must be base64.', {
      errors: [{ path: signature === null ? '/signature' : '/publicKey', message: 'not base64' }],
    });
  }
  return { signature, publicKey };
}

export async function signAtomicSwap(
  ctx: AtomicSwapContext,
  request: {
    readonly atomicSwapId: string;
    readonly walletParty: string;
    readonly body: ExecuteAtomicSwapBody;
  },
): Promise<AtomicSwap> {
  const deps = atomicSwapDeps(ctx);
  const swap = await executeAtomicSwap(deps, {
    atomicSwapId: request.atomicSwapId,
    trader: request.walletParty,
    signed: signatureOf(request.body),
  });
  return viewOfAtomicSwap(ctx, swap);
}
