/**
 * The Canton adapter's option types (packages/ledger/src/canton), as the adapter defines them;
 * replaced by imports from `@poolparty/ledger` once the adapter is part of the ledger package.
 */
export type CantonAuth =
  | { readonly kind: 'none' }
  | { readonly kind: 'static'; readonly token: string }
  | { readonly kind: 'hs256'; readonly secret: string; readonly audience: string }
  | {
      readonly kind: 'oauth2';
      readonly tokenUrl: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly audience?: string;
      readonly scope?: string;
    };

export interface CantonLedgerOptions {
  readonly ledgerApiUrl: string;
  readonly userId: string;
  readonly auth: CantonAuth;
  readonly registries: {
    readonly defaultUrl: string;
    readonly byAdmin?: Readonly<Record<string, string>>;
  };
  readonly scanProxyUrl: string;
  readonly submitTimeoutMs?: number;
  readonly transport?: 'websocket' | 'http';
}
