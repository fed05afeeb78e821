/**
 * The identities of the devnet participant: its participant id, the one synchronizer it is
 * connected to, and the ledger API version it reports. Canton derives such ids from keys; here the
 * fixed ones are derived from fixed names, so they are the same on every start and for every
 * reader. The participant id is in the ledger's operator namespace, as a participant's is in the
 * namespace its local parties are allocated in (clients find a local party by that namespace).
 */
import { createHash } from 'node:crypto';

function namespaceOf(name: string): string {
  return `1220${createHash('sha256').update(`poolparty-devnet/${name}`).digest('hex')}`;
}

/** The JSON Ledger API version whose shapes the server answers in. */
export const LEDGER_API_VERSION = '3.4.12';
export const SYNCHRONIZER_ALIAS = 'global';
export const SYNCHRONIZER_ID = `global-domain::${namespaceOf('synchronizer')}`;
/** The participant id of a ledger whose internal parties are in `operatorNamespace`. */
export function participantIdOf(operatorNamespace: string): string {
  return `PAR::devnet::${operatorNamespace}`;
}
/** A fixed operator namespace, for ledgers opened to be served with a known participant id. */
export const DEVNET_OPERATOR_NAMESPACE = namespaceOf('participant');
/** The participant id of a ledger opened in `DEVNET_OPERATOR_NAMESPACE`. */
export const PARTICIPANT_ID = participantIdOf(DEVNET_OPERATOR_NAMESPACE);
/** The DSO party of the devnet's Amulet configuration (the scan proxy's contracts). */
export const DSO_PARTY = `DSO::${namespaceOf('dso')}`;
