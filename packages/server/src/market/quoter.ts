/**
 * Quoting from live pool state (docs/spec/protocol.md#quotes): resolves the pool of a token pair,
 * prices the trade with fees and discounts, and runs the settlement-safety guard — without touching
 * the database on the hot path.
 */

import type { PricedTrade, SettlementSafety, WirePoolGuard, WireQuote } from '@poolparty/core';
import type { PoolChange } from '@poolparty/settlement';
import type { PoolRecord } from '@poolparty/store';

export interface QuoteRequest {
  readonly from: string;
  readonly to: string;
  /** The wire amount string, still unparsed. */
  readonly amount: string;
  readonly receiverParty?: string;
  readonly poolId?: string;
  readonly fromAdmin?: string;
  readonly toAdmin?: string;
}

/** Who asks: decides which discount policies apply. */
export interface QuoteAudience {
  readonly apiKeyId: string | null;
  /** The wallet party, when known (a swap) or given as `receiverParty` (a quote). */
  readonly walletParty: string | null;
}

export interface PricedQuote {
  readonly quote: WireQuote;
  readonly pool: PoolRecord;
  readonly inputSide: 'tokenA' | 'tokenB';
  readonly trade: PricedTrade;
  readonly settlementSafety: SettlementSafety | null;
}

export interface Quoter {
  /**
   * Throws `DomainError` for `validation_error`, `token_not_found`, `pool_not_found`,
   * `ambiguous_pool_pair` (with candidates), `pool_paused` (a paused pool neither quotes nor
   * takes swaps: a price it will not honour is no use to a caller) and `amount_below_minimum`, and
   * `ledger_unavailable` while the ledger's prices have never been read.
   */
  quote(request: QuoteRequest, audience: QuoteAudience): Promise<PricedQuote>;
  /**
   * The same quote without a promise when nothing has to be re-read first (the usual case), else
   * null: then `quote` waits for the re-read. Throws as `quote` does.
   */
  quoteSettled(request: QuoteRequest, audience: QuoteAudience): PricedQuote | null;
  /** The pool's price-deviation guard state now; null for a pool unknown or not yet priced. */
  poolGuard(poolId: string): WirePoolGuard | null;
  /** The pools as last read (at most a refresh period old), oldest first. */
  pools(): readonly PoolRecord[];
  /** Forgets cached state of a pool (or all pools) after it changed (`change`: of what). */
  invalidate(poolId?: string, change?: PoolChange): void;
  close(): Promise<void>;
}
