/**
 * How to reach a Canton participant, its token registries and its validator's scan proxy, and
 * as whom. These are the adapter's public options.
 */
import type { AllocationPort, AtomicSwapPort, LedgerPort } from '../port.js';

export type CantonAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'static'; readonly token: string }
  /** Self-signed user tokens (LocalNet style): `sub` = the user id, scope `daml_ledger_api`. */
  | { readonly kind: 'hs256'; readonly secret: string; readonly audience: string }
  /** OAuth2 client credentials: tokens from `tokenUrl`, cached and refreshed before expiry. */
  | {
      readonly kind: 'oauth2';
      readonly tokenUrl: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly audience?: string;
      readonly scope?: string;
    };

/** An Ed25519 key held for an external party. */
export interface ExternalSigner {
  /** The raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** The 64-byte Ed25519 signature of `message`. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export interface CantonLedgerOptions {
  /** JSON Ledger API base, e.g. http://localhost:2975 */
  readonly ledgerApiUrl: string;
  /** The ledger API user the service acts as. */
  readonly userId: string;
  readonly auth: CantonAuth;
  /** Token Standard registries: the one of an instrument's admin, else the default. */
  readonly registries: {
    readonly defaultUrl: string;
    readonly byAdmin?: Readonly<Record<string, string>>;
  };
  /** Validator API base, e.g. http://localhost:2000/api/validator */
  readonly scanProxyUrl: string;
  /** Time limit of one submission; default 30 000. */
  readonly submitTimeoutMs?: number;
  /** Update stream transport; default websocket (HTTP POST /v2/updates as fallback). */
  readonly transport?: 'websocket' | 'http';
  /**
   * Parties the service cannot act for through its user rights but whose key it holds: they
   * submit through /v2/interactive-submission/prepare + executeAndWaitForTransaction.
   */
  readonly externalSigners?: (partyId: string) => ExternalSigner | undefined;
}

export interface CantonLedger extends LedgerPort, AllocationPort, AtomicSwapPort {
  /** Ends every subscription and refuses later calls with `closed`. */
  close(): Promise<void>;
}
