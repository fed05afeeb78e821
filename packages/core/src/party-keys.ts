/**
 * The keys of external parties the service signs for on a participant, as an operator writes
 * them in its keys file: a JSON object from party id to the base64 of the party's raw 32-byte
 * Ed25519 secret key. Each key must be the party's own (its fingerprint is the party id's
 * namespace), so a key filed under the wrong party is refused at start rather than at the first
 * signature the participant turns down. Problems name the party, never a key.
 */
import { parsePartyId } from './party-id.js';
import { decodeBase64, type Ed25519KeyPair, keyControlsParty, keyPairOf } from './signing.js';

/** How many parties one keys file may hold: a venue signs for its own few parties. */
export const PARTY_KEYS_MAX = 1_000;
const SECRET_KEY_BYTES = 32;

export type PartyKeysReading =
  | { readonly ok: true; readonly keys: ReadonlyMap<string, Ed25519KeyPair> }
  | { readonly ok: false; readonly problems: readonly string[] };

function keyProblem(partyId: string, value: unknown): string | null {
  if (!parsePartyId(partyId).ok) return `${partyId} is not a party id`;
  const bytes = typeof value === 'string' ? decodeBase64(value) : null;
  if (bytes?.length !== SECRET_KEY_BYTES) {
    return `the key of ${partyId} is not the base64 of a 32-byte Ed25519 secret key`;
  }
  if (keyControlsParty(partyId, keyPairOf(bytes).publicKey) !== 'fingerprint_match') {
    return `the key of ${partyId} is not that party's: its fingerprint is not the party id's namespace`;
  }
  return null;
}

/** The keys of a keys file's parsed JSON, or every problem of it, one line each. */
export function readPartyKeys(json: unknown): PartyKeysReading {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, problems: ['it must be a JSON object from party id to base64 key'] };
  }
  const entries = Object.entries(json);
  if (entries.length > PARTY_KEYS_MAX) {
    return {
      ok: false,
      problems: [`it holds ${entries.length} parties, more than ${PARTY_KEYS_MAX}`],
    };
  }
  const problems = entries.flatMap(([party, value]) => keyProblem(party, value) ?? []);
  if (problems.length > 0) return { ok: false, problems };
  const keys = new Map(
    entries.map(([party, value]) => [
      party,
      keyPairOf(decodeBase64(value as string) as Uint8Array),
    ]),
  );
  return { ok: true, keys };
}
