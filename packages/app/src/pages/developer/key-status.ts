/**
 * A key's status as the portal shows it, from what the service judged (`working`, on its clock).
 * The browser's clock is not compared with the key's end: it can be hours off the service's (a
 * devnet whose ledger clock was moved forward), which showed a key revoked a moment ago as
 * still working.
 */
import type { ApiKeyListEntry } from '@poolparty/sdk';
import { formatTime } from '../../format.js';

export function keyStatus(key: Pick<ApiKeyListEntry, 'revokedAt' | 'working'>): string {
  if (key.revokedAt === null) return 'Active';
  return key.working ? `Rotated: works until ${formatTime(key.revokedAt)}` : 'Revoked';
}
