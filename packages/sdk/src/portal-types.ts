/**
 * The wire types of the developer portal (`/api/sdk/…`): sessions, API keys, earnings,
 * usage and collections. Declared here for the same reason as types.ts; the type test proves
 * each equal to the service's schema type.
 */

/** A developer portal session: send `token` as a bearer token (browsers also get a cookie). */
export interface DeveloperSession {
  /** Also set as an HttpOnly cookie; send as a bearer token from scripts. */
  token: string;
  /** The session ends at this time. */
  expiresAt: string;
  /** The developer's party. */
  partyId: string;
}

/** An API key as listed; the key itself is never shown again. */
export interface ApiKeyListEntry {
  /** The id of an API key (not the key itself). */
  readonly keyId: string;
  /** The label; null when none. */
  readonly name: string | null;
  /** The first 12 characters of the key, for recognition. */
  readonly prefix: string;
  /** When the key was created. */
  readonly createdAt: string;
  /** Last authenticated request. */
  readonly lastUsedAt: string | null;
  /** When the key stops (or stopped) working; in the future during a rotation. */
  readonly revokedAt: string | null;
  /** Requests made with the key. */
  readonly requestCount: number;
  /**
   * Whether the key authenticates now, on the service's clock: active, or rotated and still in
   * its grace period. Read this rather than comparing `revokedAt` with the local clock.
   */
  readonly working: boolean;
}

/** A new API key, with its secret. */
export interface ApiKeyCreated {
  keyId: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  requestCount: number;
  working: boolean;
  /** The full key, shown this once: send as `X-API-Key`. */
  key: string;
}

/** The developer's API keys, revoked ones included. */
export interface ApiKeyList {
  keys: ApiKeyListEntry[];
}

/** A report's period: the last 24 hours, 7 days, 30 days, or all time. */
export type PortalPeriod = '24h' | '7d' | '30d' | 'all';
/** The length of one point of a report's series. */
export type PortalBucket = 'hour' | 'day' | 'month';

/** A developer's earnings in one pool and token. */
export interface EarningsLine {
  poolId: string;
  /** The fee's token: the swaps' input token. */
  token: string;
  /** The token's admin party. */
  tokenAdmin: string;
  /** Earnings of completed swaps in the period. */
  earned: string;
  /** Earnings of swaps in the period still sending their output. */
  unsettled: string;
  /** Swaps executed in the period. */
  swapCount: number;
  /** Collected in the period. */
  collected: string;
  /** Collections on their way now. */
  collecting: string;
  /** What a collection takes now. */
  collectable: string;
}

/** Earnings of one pool and token in one time bucket. */
export interface EarningsPoint {
  /** Start of the bucket. */
  start: string;
  poolId: string;
  token: string;
  tokenAdmin: string;
  earned: string;
}

/** Answer of `portal.earnings()`. */
export interface Earnings {
  period: PortalPeriod;
  bucket: PortalBucket;
  /** Start of the period; null for all time. */
  from: string | null;
  /** End of the period: now. */
  to: string;
  /** Where collections are paid: the developer's party. */
  receiverParty: string;
  lines: EarningsLine[];
  series: EarningsPoint[];
}

/** Usage in one time bucket. */
export interface UsagePoint {
  start: string;
  swaps: number;
  failures: number;
  volumeUsd: string;
}

/** Requests made with one of the developer's keys. */
export interface KeyUsage {
  keyId: string;
  name: string | null;
  prefix: string;
  requestCount: number;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Whether the key authenticates now, on the service's clock. */
  working: boolean;
}

/** Answer of `portal.usage()`. */
export interface Usage {
  period: PortalPeriod;
  bucket: PortalBucket;
  from: string;
  to: string;
  series: UsagePoint[];
  keys: KeyUsage[];
}

/** Where a collection is: `returned` ones are collectable again. */
export type CollectionStatus = 'pending' | 'offered' | 'collected' | 'returned';

/** A collection of earnings to the developer's party. */
export interface Collection {
  collectionId: string;
  poolId: string;
  token: string;
  tokenAdmin: string;
  /** Everything accrued when it was requested. */
  amount: string;
  status: CollectionStatus;
  /** The developer's party, which receives it. */
  receiverParty: string;
  /** The ledger update that paid it, once collected. */
  updateId: string | null;
  /** The transfer offer to accept in the wallet, while offered. */
  offerId: string | null;
  offerExpiresAt: string | null;
  createdAt: string;
  settledAt: string | null;
  /** Why it was returned. */
  error: string | null;
}

/** Answer of `portal.collections.list()`. */
export interface CollectionList {
  collections: Collection[];
}

/** Answer of `portal.signOut()`. */
export interface SignedOut {
  /** The developer whose session ended. */
  partyId: string;
  signedOut: true;
}
