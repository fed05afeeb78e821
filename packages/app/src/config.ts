/**
 * What the service tells its own pages at `/app-config.json`: which environment it is and the API
 * key the pages call `/v1` with. The key is the operator's key for these pages, public by nature:
 * every visitor's browser sends it, so it identifies the app for rate limits and usage, not a user.
 */
export interface AppConfig {
  readonly environment: 'devnet' | 'mainnet';
  /** Null when the operator configured no key for the pages: the swap app cannot call `/v1`. */
  readonly apiKey: string | null;
  /** True when the service answers `/devnet/*`: the built-in devnet wallet works. */
  readonly devnet: boolean;
  /**
   * The Token Standard registry a Canton wallet's transfers are built with (the transfer factory
   * and offer contexts); null when the service names none.
   */
  readonly cantonRegistryUrl: string | null;
}

export async function loadAppConfig(): Promise<AppConfig> {
  const response = await fetch('/app-config.json', { headers: { accept: 'application/json' } });
  if (!response.ok)
    throw new Error(`The service did not give its configuration (${response.status}).`);
  return (await response.json()) as AppConfig;
}
