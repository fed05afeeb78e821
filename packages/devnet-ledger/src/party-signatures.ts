/**
 * The signatures of an interactive submission's execution, and the decision they lead to.
 *
 * Which signatures are required: one per external acting party (a party with signing keys of
 * its own); a local party is authorized by the user's rights, as on a participant. Which are
 * valid: an Ed25519 signature of the hash the devnet recomputed, by a key the party holds, named
 * by its fingerprint (`signedBy`). A party signing that is not acting is refused too: its
 * signature authorizes nothing, and a wallet that sends one has prepared something else.
 *
 * The decision (`signatureVerdict`) is a pure function of the acting parties, their keys, the
 * hash and the signatures: it reads no state, so every case is a plain test.
 */
import { decodeBase64, fingerprint } from '@poolparty/core';
import { verifyEd25519Signature } from '@poolparty/ledger';
import { invalidArgument } from './canton-errors.js';
import { arrayAt, objectAt, stringAt } from './request-body.js';

const ED25519_SPEC = 'SIGNING_ALGORITHM_SPEC_ED25519';
const SIGNATURE_FORMATS = new Set(['SIGNATURE_FORMAT_CONCAT', 'SIGNATURE_FORMAT_RAW']);
/** How many parties, and signatures per party, one execution may carry. */
export const SIGNATURES_MAX = 100;

export interface PartySignature {
  readonly signedBy: string;
  /** Null when the request's text is not base64: such a signature never verifies. */
  readonly bytes: Uint8Array | null;
}

export interface PartySignatures {
  readonly party: string;
  readonly signatures: readonly PartySignature[];
}

function signaturesOf(entry: unknown, index: number): PartySignatures {
  const single = objectAt(entry, `signatures[${index}]`);
  const party = stringAt(single.party, `signatures[${index}].party`);
  const list = arrayAt(single.signatures, `signatures[${index}].signatures`);
  if (list.length > SIGNATURES_MAX) {
    throw invalidArgument(`over ${SIGNATURES_MAX} signatures of ${party}`);
  }
  const signatures = list.map((value, at) => {
    const path = `signatures[${index}].signatures[${at}]`;
    const signature = objectAt(value, path);
    if (signature.signingAlgorithmSpec !== ED25519_SPEC) {
      throw invalidArgument(`${path}.signingAlgorithmSpec must be ${ED25519_SPEC}`);
    }
    if (!SIGNATURE_FORMATS.has(stringAt(signature.format, `${path}.format`))) {
      throw invalidArgument(`${path}.format must be SIGNATURE_FORMAT_CONCAT or _RAW`);
    }
    return {
      signedBy: stringAt(signature.signedBy, `${path}.signedBy`),
      bytes: decodeBase64(stringAt(signature.signature, `${path}.signature`)),
    };
  });
  return { party, signatures };
}

/** `partySignatures` of an execute request, each entry checked for its declared shape. */
export function parsePartySignatures(value: unknown): PartySignatures[] {
  const list = arrayAt(objectAt(value, 'partySignatures').signatures, 'signatures');
  if (list.length > SIGNATURES_MAX) throw invalidArgument(`over ${SIGNATURES_MAX} signing parties`);
  return list.map(signaturesOf);
}

export type SignatureVerdict =
  | { readonly accepted: true }
  | {
      readonly accepted: false;
      /** External acting parties with no signature at all. */
      readonly missing: readonly string[];
      /** External acting parties whose every signature fails (another key, another hash). */
      readonly invalid: readonly string[];
      /** Signing parties that are not acting, or hold no key to sign with. */
      readonly strangers: readonly string[];
    };

export interface SignatureCase {
  readonly actAs: readonly string[];
  /** The raw Ed25519 keys of each acting party; a party with none is local. */
  readonly keysOf: ReadonlyMap<string, readonly Uint8Array[]>;
  readonly hash: Uint8Array;
  readonly signatures: readonly PartySignatures[];
}

function validFor(keys: readonly Uint8Array[], hash: Uint8Array, signature: PartySignature) {
  const key = keys.find((candidate) => fingerprint(candidate) === signature.signedBy);
  return (
    key !== undefined &&
    signature.bytes !== null &&
    verifyEd25519Signature(hash, signature.bytes, key)
  );
}

/** Whether the signatures authorize the acting parties (see the module's note). */
export function signatureVerdict({
  actAs,
  keysOf,
  hash,
  signatures,
}: SignatureCase): SignatureVerdict {
  const external = actAs.filter((party) => (keysOf.get(party)?.length ?? 0) > 0);
  const byParty = new Map<string, PartySignature[]>();
  for (const { party, signatures: given } of signatures) {
    byParty.set(party, [...(byParty.get(party) ?? []), ...given]);
  }
  const strangers = [...byParty.keys()].filter((party) => !external.includes(party));
  const missing = external.filter((party) => (byParty.get(party)?.length ?? 0) === 0);
  const invalid = external.filter((party) => {
    const given = byParty.get(party) ?? [];
    const keys = keysOf.get(party) ?? [];
    return given.length > 0 && !given.some((signature) => validFor(keys, hash, signature));
  });
  if (missing.length + invalid.length + strangers.length === 0) return { accepted: true };
  return { accepted: false, missing, invalid, strangers };
}

/** The refusal of a verdict: INVALID_ARGUMENT naming every party at fault, nothing submitted. */
export function signatureRefusal(verdict: Exclude<SignatureVerdict, { accepted: true }>) {
  const parts = [
    verdict.missing.length > 0 && `no signature by ${verdict.missing.join(', ')}`,
    verdict.invalid.length > 0 &&
      `no valid signature of the prepared transaction hash by ${verdict.invalid.join(', ')}`,
    verdict.strangers.length > 0 &&
      `signatures by parties not acting: ${verdict.strangers.join(', ')}`,
  ].filter((part): part is string => part !== false);
  return invalidArgument(`The submission is not authorized: ${parts.join('; ')}`, {
    parties: [...verdict.missing, ...verdict.invalid, ...verdict.strangers].join(','),
  });
}
