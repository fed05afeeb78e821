/**
 * Default API origins per environment. The service has no fixed hosted address (each operator
 * runs its own), so these are placeholders under the reserved `.example` domain: they never
 * resolve to someone else's server. An operator tells applications the real origin, which they
 * pass as `baseUrl` (a local devnet service listens on `http://127.0.0.1:8787`).
 */

/** The environments a client can target. */
export type Environment = 'mainnet' | 'devnet';

/** The default API origin of each environment. */
export const DEFAULT_BASE_URLS: Readonly<Record<Environment, string>> = Object.freeze({
  mainnet: 'https://api.poolparty.example',
  devnet: 'https://api.devnet.poolparty.example',
});

/** The origin to call: `baseUrl` when given (without a trailing slash), else the default. */
export function resolveBaseUrl(environment: Environment, baseUrl: string | undefined): string {
  if (baseUrl !== undefined) return baseUrl.replace(/\/+$/, '');
  return DEFAULT_BASE_URLS[environment];
}
