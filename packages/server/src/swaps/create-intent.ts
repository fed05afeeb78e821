/**
 * The request's own checks of `POST /v1/swaps` (docs/spec/lifecycle.md#intents), as pure
 * functions: its slippage tolerance, its wallet, and what the quoter is asked. What a priced quote
 * becomes, and which trades are refused, is settlement's `openSwapIntent`.
 *
 * The deprecated `outputAddress` is accepted and ignored; the output always goes to the wallet
 * party.
 */
import {
  type CreateAtomicSwapBody,
  type CreateSwapBody,
  DomainError,
  validateSlippage,
} from '@poolparty/core';
import type { QuoteRequest } from '../market/quoter.js';

/** The slippage tolerance to use, or a 400: absent means the default (0.05). */
export function resolveSlippage(value: unknown): number {
  const check = validateSlippage(value);
  if (check.ok) return check.slippageTolerance;
  const { problem } = check;
  throw new DomainError(
    'validation_error',
    `slippageTolerance must be a finite number from ${problem.min} to ${problem.max}.`,
    { errors: [{ path: '/slippageTolerance', message: problem.reason.replaceAll('_', ' ') }] },
  );
}

/** `walletAddress` is optional, but when given it must be the wallet token's party. */
export function requireOwnWallet(walletAddress: string | undefined, walletParty: string): void {
  if (walletAddress === undefined || walletAddress === walletParty) return;
  throw new DomainError(
    'wallet_party_mismatch',
    "walletAddress must be the wallet token's party; deposits must come from that party.",
  );
}

/**
 * What the quoter is asked: the body's pair and amount, unparsed, and its disambiguators; the
 * bodies of a swap intent and of an atomic swap name them alike.
 */
export function quoteRequestOf(body: CreateSwapBody | CreateAtomicSwapBody): QuoteRequest {
  return {
    from: body.fromToken,
    to: body.toToken,
    amount: body.amount,
    ...(body.poolId !== undefined && { poolId: body.poolId }),
    ...(body.fromAdmin !== undefined && { fromAdmin: body.fromAdmin }),
    ...(body.toAdmin !== undefined && { toAdmin: body.toAdmin }),
  };
}
