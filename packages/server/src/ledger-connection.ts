/**
 * The ledger a process works against, as `LEDGER` says: the embedded devnet ledger in the data
 * folder (`local`), or a participant's JSON Ledger API with its registries and validator
 * (`canton`) — the same on a real Canton network and on `poolparty devnet-ledger`.
 */
import { join } from 'node:path';
import { type LedgerPort, type LocalLedger, openLocalLedger } from '@poolparty/ledger';
import { cantonLedgerOptionsOf } from './canton-options.js';
import type { Settings } from './config.js';

export interface LedgerConnection {
  readonly ledger: LedgerPort;
  /** The embedded ledger's controls (devnet seed, `/devnet` routes); null on a participant. */
  readonly local: LocalLedger | null;
  close(): Promise<void>;
}

export class LedgerUnavailable extends Error {
  override readonly name = 'LedgerUnavailable';
}

export type LedgerSettings = Pick<
  Settings,
  | 'dataDir'
  | 'ledger'
  | 'cantonLedgerApiUrl'
  | 'cantonRegistryUrl'
  | 'cantonRegistryUrls'
  | 'cantonScanProxyUrl'
  | 'cantonUserId'
  | 'cantonAccessToken'
  | 'cantonAuthSecret'
  | 'cantonAuthAudience'
  | 'cantonOauthTokenUrl'
  | 'cantonOauthClientId'
  | 'cantonOauthClientSecret'
  | 'cantonOauthScope'
  | 'cantonOauthAudience'
>;

export async function openLedgerConnection(settings: LedgerSettings): Promise<LedgerConnection> {
  if (settings.ledger === 'canton') {
    // Checked by readSettings already; computed here so a wrong setting cannot slip through.
    cantonLedgerOptionsOf(settings);
    throw new LedgerUnavailable(
      'LEDGER=canton: the Canton adapter is not part of this release; use LEDGER=local',
    );
  }
  const local = await openLocalLedger({ dataDir: join(settings.dataDir, 'ledger') });
  return { ledger: local, local, close: () => local.close() };
}
