/**
 * What the service tells its own web pages at `/app-config.json`: which environment it is, the
 * API key the pages call `/v1` with, and what its ledger lets the pages do. The key is the operator's key for these pages, public by
 * nature: every visitor's browser sends it, so it identifies the app for rate limits and usage,
 * not a user. Declared here, between the server that writes it and the pages that read it.
 */
import type { Environment } from './environment.js';

export interface AppConfig {
  readonly environment: Environment;
  /** Null when the operator configured no key for the pages: the swap app cannot call `/v1`. */
  readonly apiKey: string | null;
  /** True when the service answers `/devnet/*`: the built-in devnet wallet works. */
  readonly devnet: boolean;
  /**
   * True when the service's ledger prepares atomic swaps (docs/spec/atomic-swaps.md): the swap
   * card swaps atomically with a wallet that signs hashes, and by deposit otherwise.
   */
  readonly atomicSwaps: boolean;
  /**
   * The Token Standard registries a Canton wallet's transfers are built with (the transfer
   * factory and offer contexts): an instrument admin's own, else the default; none when null.
   */
  readonly cantonRegistries: {
    readonly defaultUrl: string | null;
    readonly byAdmin: Readonly<Record<string, string>>;
  };
}
