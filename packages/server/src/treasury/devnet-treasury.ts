/**
 * The treasury party the devnet seed allocated, as its `devnet.json` in the data folder names it:
 * where `admin treasury sweep` sends fees on devnet when `POOLPARTY_TREASURY_PARTY` is not set.
 * Read as a plain file, so an admin command does not load the devnet ledger to find it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The seed file's name (devnet-ledger's `DEVNET_FILE`). */
const DEVNET_FILE = 'devnet.json';

export function devnetTreasuryParty(dataDir: string): string | null {
  const file = join(dataDir, DEVNET_FILE);
  if (!existsSync(file)) return null;
  const seed = JSON.parse(readFileSync(file, 'utf8')) as { treasury?: { partyId?: unknown } };
  const partyId = seed.treasury?.partyId;
  return typeof partyId === 'string' ? partyId : null;
}
