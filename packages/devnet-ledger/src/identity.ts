/**
 * The fixed identities of the devnet participant: its participant id, the one synchronizer it is
 * connected to, and the ledger API version it reports. Canton derives such ids from keys; here they
 * are derived from fixed names, so they are the same on every start and for every reader.
 */
import { createHash } from 'node:crypto';

function namespaceOf(name: string): string {
  return `1220${createHash('sha256').update(`poolparty-devnet/${name}`).digest('hex')}`;
}

/** The JSON Ledger API version whose shapes the server answers in. */
export const LEDGER_API_VERSION = '3.4.12';
export const SYNCHRONIZER_ALIAS = 'global';
export const SYNCHRONIZER_ID = `global-domain::${namespaceOf('synchronizer')}`;
export const PARTICIPANT_ID = `PAR::devnet::${namespaceOf('participant')}`;
/** The DSO party of the devnet's Amulet configuration (the scan proxy's contracts). */
export const DSO_PARTY = `DSO::${namespaceOf('dso')}`;
