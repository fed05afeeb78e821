/**
 * The ledger an operator command reads (`admin pools add`): a participant, as `LEDGER=canton`
 * and the `CANTON_*` settings say. The embedded devnet ledger is refused: it belongs to the one
 * `serve` process that opened it, and its pools are seeded at its first start.
 */
import type { LedgerPort } from '@poolparty/ledger';
import type { LedgerLocation } from '../config.js';
import { LedgerUnavailable, openLedgerConnection } from '../ledger-connection.js';
import { AdminError } from './admin-error.js';

export async function openAdminLedger(
  location: LedgerLocation,
  dataDir: string,
): Promise<{ ledger: LedgerPort; close(): Promise<void> }> {
  if (location.ledger !== 'canton') {
    throw new AdminError(
      'validation_error',
      'admin pools add reads the swap party on a participant: set LEDGER=canton and the CANTON_* settings (the embedded devnet ledger seeds its own pools)',
    );
  }
  try {
    return await openLedgerConnection({ ...location, dataDir });
  } catch (error) {
    if (error instanceof LedgerUnavailable)
      throw new AdminError('ledger_unavailable', error.message);
    throw error;
  }
}
