/**
 * What a running service is made of: the settings and the ports. The HTTP app and the settlement
 * engine are built from it, and each route group is given only the members it uses (`narrowed`).
 * Nothing reaches past these (no driver, no global), so a test can build a service around any
 * store and ledger.
 */
import type { LedgerPort, LocalLedger } from '@poolparty/ledger';
import type { ServiceClock } from '@poolparty/settlement';
import type { Database } from '@poolparty/store';
import type { AdminChangeFeed } from './admin/change-feed.js';
import type { WalletTokenSigner } from './auth/wallet-token.js';
import type { Settings } from './config.js';
import type { EventHub } from './events/event-hub.js';
import type { Quoter } from './market/quoter.js';
import type { ServiceMetrics } from './metrics.js';

export interface ServiceContext {
  readonly settings: Settings;
  readonly db: Database;
  readonly ledger: LedgerPort;
  /** The embedded devnet ledger's controls; null unless the devnet endpoints are enabled. */
  readonly devnetLedger: LocalLedger | null;
  readonly clock: ServiceClock;
  readonly walletTokens: WalletTokenSigner;
  readonly metrics: ServiceMetrics;
  /** Quotes from in-memory pool state; shared by `/v1/quotes` and swap creation. */
  readonly quoter: Quoter;
  /** "Intent X has new events", from any process on the same store (SSE streams). */
  readonly intentEvents: EventHub;
  /**
   * "Liquidity intent X has new events", likewise; it shares the intent hub's subscriber budget,
   * so the process's bound on open streams covers both.
   */
  readonly liquidityEvents: EventHub;
  /** "Withdrawal X has new events", likewise, on the same subscriber budget. */
  readonly withdrawalEvents: EventHub;
  /** "Atomic swap X has new events", likewise, on the same subscriber budget. */
  readonly atomicSwapEvents: EventHub;
  /** "An operator changed discounts, key limits or a pool", from `poolparty admin` anywhere. */
  readonly adminChanges: AdminChangeFeed;
}

/**
 * The members `keys` of `ctx` alone: what a part that uses only those is given, so it cannot
 * come to depend on the rest unseen.
 */
export function narrowed<K extends keyof ServiceContext>(
  ctx: ServiceContext,
  ...keys: K[]
): Pick<ServiceContext, K> {
  return Object.fromEntries(keys.map((key) => [key, ctx[key]])) as Pick<ServiceContext, K>;
}
