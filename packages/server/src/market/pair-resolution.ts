/**
 * Which pool a quote or swap request means (docs/spec/protocol.md#pair-resolution): a pure decision
 * over the known pools.
 *
 * Order of the rules:
 * 1. Each symbol must be traded by some pool (under `fromAdmin`/`toAdmin` when given), else
 *    `token_not_found`: a token no pool trades cannot be swapped, so it is not "found".
 * 2. `poolId` wins: that pool must exist (else `pool_not_found`) and trade exactly the requested
 *    pair, admins included when given (else `pool_mismatch`, a 400: the request contradicts itself).
 * 3. Otherwise the candidates are the pools trading `from` for `to`, narrowed by whichever admins
 *    are given. None: `pool_not_found`. One: that pool. Several: `ambiguous`, listing each
 *    candidate with the admins that pick it; this also covers two pools of the very same
 *    instruments, which only `poolId` can tell apart.
 * Paused pools take part: they quote, and swap creation refuses them.
 */
import type { Instrument, PoolCandidate } from '@poolparty/core';

export type PoolSideName = 'tokenA' | 'tokenB';

/** What resolution needs to know of a pool. */
export interface TradedPair {
  readonly poolId: string;
  readonly tokenA: Instrument;
  readonly tokenB: Instrument;
}

export interface PairRequest {
  readonly from: string;
  readonly to: string;
  readonly poolId?: string;
  readonly fromAdmin?: string;
  readonly toAdmin?: string;
}

export type PairResolution<P extends TradedPair> =
  | { readonly kind: 'resolved'; readonly pool: P; readonly inputSide: PoolSideName }
  | {
      readonly kind: 'token_not_found';
      readonly role: 'from' | 'to';
      readonly token: string;
      readonly admin: string | null;
    }
  | { readonly kind: 'pool_not_found'; readonly poolId: string | null }
  | { readonly kind: 'pool_mismatch'; readonly pool: P }
  | { readonly kind: 'ambiguous'; readonly candidates: readonly PoolCandidate[] };

const SIDES: readonly PoolSideName[] = ['tokenA', 'tokenB'];

export function resolvePair<P extends TradedPair>(
  pools: readonly P[],
  request: PairRequest,
): PairResolution<P> {
  const unknown =
    unknownToken(pools, 'from', request.from, request.fromAdmin) ??
    unknownToken(pools, 'to', request.to, request.toAdmin);
  if (unknown) return unknown;
  if (request.poolId !== undefined) return resolveNamedPool(pools, request.poolId, request);
  const candidates = pools.flatMap((pool) => tradesOf(pool, request));
  return candidates.length === 0 ? { kind: 'pool_not_found', poolId: null } : pick(candidates);
}

export function otherSide(side: PoolSideName): PoolSideName {
  return side === 'tokenA' ? 'tokenB' : 'tokenA';
}

function unknownToken<P extends TradedPair>(
  pools: readonly P[],
  role: 'from' | 'to',
  token: string,
  admin: string | undefined,
): PairResolution<P> | null {
  const traded = pools.some((pool) => SIDES.some((side) => matches(pool[side], token, admin)));
  return traded ? null : { kind: 'token_not_found', role, token, admin: admin ?? null };
}

function resolveNamedPool<P extends TradedPair>(
  pools: readonly P[],
  poolId: string,
  request: PairRequest,
): PairResolution<P> {
  const pool = pools.find((p) => p.poolId === poolId);
  if (pool === undefined) return { kind: 'pool_not_found', poolId };
  const trades = tradesOf(pool, request);
  return trades.length === 0 ? { kind: 'pool_mismatch', pool } : pick(trades);
}

interface Trade<P> {
  readonly pool: P;
  readonly inputSide: PoolSideName;
}

/**
 * The ways the pool trades `from` for `to`: none, one, or both directions when both sides carry
 * the same symbol (say USDCx of two admins) and no admin tells them apart.
 */
function tradesOf<P extends TradedPair>(pool: P, request: PairRequest): Trade<P>[] {
  return SIDES.filter(
    (side) =>
      matches(pool[side], request.from, request.fromAdmin) &&
      matches(pool[otherSide(side)], request.to, request.toAdmin),
  ).map((inputSide) => ({ pool, inputSide }));
}

function pick<P extends TradedPair>(trades: readonly Trade<P>[]): PairResolution<P> {
  const [only] = trades;
  if (only !== undefined && trades.length === 1) return { kind: 'resolved', ...only };
  return {
    kind: 'ambiguous',
    candidates: trades.map(({ pool, inputSide }) => ({
      poolId: pool.poolId,
      fromAdmin: pool[inputSide].admin,
      toAdmin: pool[otherSide(inputSide)].admin,
    })),
  };
}

function matches(instrument: Instrument, token: string, admin: string | undefined): boolean {
  return instrument.id === token && (admin === undefined || instrument.admin === admin);
}
