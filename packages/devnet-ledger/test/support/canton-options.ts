/**
 * The canton adapter's options for a devnet ledger server served in the test's process: its
 * JSON Ledger API, scan proxy and registries (the default one, and each admin's own), with HS256
 * tokens of the server's secret, as the service is configured against `poolparty devnet-ledger`.
 */
import type { CantonLedgerOptions } from '@poolparty/ledger';
import type { DevnetLedgerServer } from '../../src/index.js';

export function cantonOptionsFor(
  server: DevnetLedgerServer,
  auth: { readonly secret: string; readonly audience: string },
  admins: readonly string[],
): CantonLedgerOptions {
  return {
    ledgerApiUrl: server.ledgerApiUrl,
    userId: 'poolparty',
    auth: { kind: 'hs256', secret: auth.secret, audience: auth.audience },
    registries: {
      defaultUrl: server.registryUrl,
      byAdmin: Object.fromEntries(admins.map((admin) => [admin, server.registryUrlOf(admin)])),
    },
    scanProxyUrl: server.scanProxyUrl,
  };
}
