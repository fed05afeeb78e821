/**
 * Canton party ids (docs/spec/auth.md#party-ids): `<hint>::<fingerprint>`, e.g.
 * `alice::1220035a791d845bbb8195615e7eccd7a57c2ec4075c2e88695f194bab4e0194a889`.
 *
 * Like Canton, the id is split at the first `::`; so a hint never contains `::` and never ends
 * with `:` (its last colon would join the separator). The fingerprint is the party's namespace:
 * for an external party, the fingerprint of its own signing key.
 */
import { BaseError } from './base-error.js';
import { fingerprint } from './fingerprint.js';

export const PARTY_ID_LENGTH_MAX = 255;
const PARTY_ID_SEPARATOR = '::';
/** `1220` (multihash sha2-256, 32 bytes) and 64 lowercase hex digits. */
const FINGERPRINT_LENGTH = 68;
/** What is left for the hint once the separator and fingerprint are counted. */
export const PARTY_HINT_LENGTH_MAX =
  PARTY_ID_LENGTH_MAX - PARTY_ID_SEPARATOR.length - FINGERPRINT_LENGTH;

const PARTY_ID_CHARACTERS = /^[A-Za-z0-9:_-]*$/;
const FINGERPRINT_PATTERN = /^1220[0-9a-f]{64}$/;

/** Why a string is not a party id or a hint; stable, for error details. */
export type PartyIdProblemReason =
  | 'not_a_string'
  | 'empty'
  | 'too_long'
  | 'invalid_characters'
  | 'missing_separator'
  | 'empty_hint'
  | 'invalid_hint'
  | 'invalid_fingerprint';

export interface PartyIdProblem {
  readonly ok: false;
  readonly reason: PartyIdProblemReason;
  readonly message: string;
}

export interface PartyIdParts {
  readonly ok: true;
  readonly hint: string;
  readonly fingerprint: string;
}

export class PartyIdError extends BaseError<'party_id_invalid'> {
  override readonly name = 'PartyIdError';
  constructor(
    readonly reason: PartyIdProblemReason,
    message: string,
  ) {
    super('party_id_invalid', message);
  }
}

function problem(reason: PartyIdProblemReason, message: string): PartyIdProblem {
  return { ok: false, reason, message };
}

function isFingerprint(value: string): boolean {
  return FINGERPRINT_PATTERN.test(value);
}

/** Checks the common shape of ids and hints: a non-empty string of the party-id alphabet. */
function checkText(input: unknown, what: string, lengthMax: number): PartyIdProblem | null {
  if (typeof input !== 'string') return problem('not_a_string', `${what} must be a string`);
  if (input.length === 0) return problem('empty', `${what} is empty`);
  if (input.length > lengthMax) {
    return problem('too_long', `${what} has ${input.length} characters, at most ${lengthMax}`);
  }
  if (!PARTY_ID_CHARACTERS.test(input)) {
    return problem('invalid_characters', `${what} may only contain A-Z a-z 0-9 : _ -`);
  }
  return null;
}

/** Parses `<hint>::<fingerprint>` strictly; returns the parts or why the input is refused. */
export function parsePartyId(input: unknown): PartyIdParts | PartyIdProblem {
  const textProblem = checkText(input, 'party id', PARTY_ID_LENGTH_MAX);
  if (textProblem) return textProblem;
  const id = input as string;
  const at = id.indexOf(PARTY_ID_SEPARATOR);
  if (at < 0) return problem('missing_separator', 'party id must be <hint>::<fingerprint>');
  if (at === 0) return problem('empty_hint', 'party id has an empty hint before ::');
  const fingerprintPart = id.slice(at + PARTY_ID_SEPARATOR.length);
  if (!isFingerprint(fingerprintPart)) {
    return problem('invalid_fingerprint', 'party fingerprint must be 1220 + 64 lowercase hex');
  }
  return { ok: true, hint: id.slice(0, at), fingerprint: fingerprintPart };
}

export function isPartyId(input: unknown): input is string {
  return parsePartyId(input).ok;
}

/** Checks a party hint (the part before `::`); returns null when it is acceptable. */
export function checkPartyHint(input: unknown): PartyIdProblem | null {
  const textProblem = checkText(input, 'party hint', PARTY_HINT_LENGTH_MAX);
  if (textProblem) return textProblem;
  const hint = input as string;
  if (hint.includes(PARTY_ID_SEPARATOR) || hint.endsWith(':')) {
    return problem('invalid_hint', 'party hint must not contain :: or end with :');
  }
  return null;
}

/**
 * The id of an external party whose namespace is its own Ed25519 key. Throws `PartyIdError`
 * for an unacceptable hint (check it first with `checkPartyHint` to answer a user) and
 * `RangeError` for a key that is not 32 bytes.
 */
export function partyIdFor(hint: string, rawPublicKey: Uint8Array): string {
  const hintProblem = checkPartyHint(hint);
  if (hintProblem) throw new PartyIdError(hintProblem.reason, hintProblem.message);
  return `${hint}${PARTY_ID_SEPARATOR}${fingerprint(rawPublicKey)}`;
}
