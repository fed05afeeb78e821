/**
 * An error as one plain sentence for the person on the page: the service's stable codes and the
 * ledger's refusals become words, and no full party id (a long unbreakable string) is quoted.
 * The code stays available to the page through `errorCode` for choices such as offering Cancel.
 */
import { PoolPartyError } from '@poolparty/sdk';
import { shortParty } from './format.js';

const PLAIN: Readonly<Record<string, string>> = {
  active_intent_exists:
    'You already have a swap of this token in this pool waiting for its deposit. Cancel it or send its deposit, then swap again.',
  intent_not_cancellable:
    'This swap can no longer be cancelled: its deposit has arrived or it has ended.',
  network_error: 'The service could not be reached. Check your connection and try again.',
  timeout: 'The service took too long to answer. Try again.',
  rate_limited: 'Too many requests just now. Wait a few seconds and try again.',
  ledger_unavailable: 'The ledger cannot be read right now. Try again in a moment.',
  store_unavailable: 'The service is reconnecting to its store. Try again in a moment.',
  pool_paused: 'This pool is paused by its operator; swaps resume when it reopens.',
  missing_wallet_token: 'Your wallet needs to sign in again. Try once more.',
  invalid_wallet_token: 'Your wallet sign-in has expired. Try once more to sign in anew.',
  internal_error:
    'The service failed to handle this. Try again; if it persists, tell its operator.',
};

/** "<party> holds 0 unlocked Amulet, needs 100", as both ledgers word a short balance. */
const SHORT_BALANCE = /holds ([\d.]+) unlocked (\S+)(?: [^,]*)?, needs ([\d.]+)/;
/** A full party id: hint, `::`, and a long hexadecimal fingerprint. */
const PARTY_ID = /[A-Za-z0-9_-]+::[0-9a-f]{16,}/g;

export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const short = SHORT_BALANCE.exec(text);
  if (short) {
    const [, held, token, needed] = short;
    return `Your party holds ${held} unlocked ${token}, and this needs ${needed} ${token}. Get more ${token} first.`;
  }
  if (error instanceof PoolPartyError) {
    const plain = PLAIN[error.code];
    if (plain !== undefined) return plain;
    return withShortParties(error.shortMessage);
  }
  return withShortParties(text);
}

/** The service's code of an error, when it has one. */
export function errorCode(error: unknown): string | null {
  return error instanceof PoolPartyError ? error.code : null;
}

function withShortParties(text: string): string {
  return text.replace(PARTY_ID, (party) => shortParty(party));
}
