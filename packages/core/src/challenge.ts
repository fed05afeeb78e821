/**
 * The wallet challenge (docs/spec/auth.md#wallet-challenge): a human-readable message that binds
 * the service, the party, the purpose, the environment, a single-use nonce and its validity window,
 * and the pure check of a wallet's answer. Storing and consuming nonces and asking the ledger are
 * the caller's part.
 */
import type { PartyIdProblemReason } from './party-id.js';
import { parsePartyId } from './party-id.js';
import type { DecodeProblemReason, KeyCheck } from './signing.js';
import {
  decodePublicKey,
  decodeSignature,
  encodeBase64Url,
  keyControlsParty,
  verifyEd25519,
} from './signing.js';

export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const WALLET_TOKEN_TTL_MS = 15 * 60 * 1000;
export const WALLET_TOKEN_AUDIENCE = 'poolparty-wallet';
/** 256 bits, 43 base64url characters: twice what makes a nonce unguessable. */
export const NONCE_BYTES = 32;

const CHALLENGE_PURPOSES = ['swap wallet authentication', 'developer portal login'] as const;
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number];
export type ChallengeEnvironment = 'devnet' | 'mainnet';

export interface ChallengeMessageParams {
  /** The configured service domain, e.g. `poolparty.example`. */
  readonly domain: string;
  readonly partyId: string;
  readonly purpose: ChallengePurpose;
  readonly environment: ChallengeEnvironment;
  readonly nonce: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/** The challenge as the service stores it until it is answered. */
export interface StoredChallenge {
  readonly partyId: string;
  readonly nonce: string;
  readonly message: string;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

// Every value lands on its own line of a message the user reads before signing: nothing may
// smuggle in a line break or look like another field.
const NONCE_PATTERN = /^[A-Za-z0-9_-]+$/;
const DOMAIN_PATTERN = /^[A-Za-z0-9.-]+(?::\d+)?$/;

/**
 * The message's text (docs/spec/auth.md#challenge-message). Throws `RangeError` for values that
 * cannot appear in it.
 */
export function challengeMessage(params: ChallengeMessageParams): string {
  if (!DOMAIN_PATTERN.test(params.domain)) throw new RangeError('invalid service domain');
  if (!parsePartyId(params.partyId).ok) throw new RangeError('invalid party id');
  if (!NONCE_PATTERN.test(params.nonce)) throw new RangeError('nonce must be base64url');
  return [
    `${params.domain} wants you to authenticate your Canton party:`,
    params.partyId,
    '',
    `Purpose: ${params.purpose}`,
    `Environment: ${params.environment}`,
    `Nonce: ${params.nonce}`,
    `Issued At: ${params.issuedAt.toISOString()}`,
    `Expiration Time: ${params.expiresAt.toISOString()}`,
  ].join('\n');
}

/** A fresh single-use nonce: `NONCE_BYTES` random bytes, base64url without padding. */
export function generateNonce(): string {
  return encodeBase64Url(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
}

export interface NewChallengeParams {
  readonly domain: string;
  readonly partyId: string;
  readonly purpose: ChallengePurpose;
  readonly environment: ChallengeEnvironment;
  readonly now: Date;
}

/** A challenge to store and hand out: fresh nonce, valid for `CHALLENGE_TTL_MS` from `now`. */
export function createChallenge(params: NewChallengeParams): StoredChallenge {
  const nonce = generateNonce();
  const expiresAt = new Date(params.now.getTime() + CHALLENGE_TTL_MS);
  const message = challengeMessage({ ...params, nonce, issuedAt: params.now, expiresAt });
  return { partyId: params.partyId, nonce, message, expiresAt, usedAt: null };
}

export interface ChallengeResponse {
  /** The stored challenge found under the submitted nonce, or null when there is none. */
  readonly challenge: StoredChallenge | null;
  readonly now: Date;
  readonly nonce: string;
  readonly partyId: unknown;
  readonly signature: unknown;
  readonly publicKey: unknown;
}

export type NonceProblemReason =
  | 'unknown_nonce'
  | 'nonce_used'
  | 'nonce_expired'
  | 'nonce_for_other_party';

export type ChallengeCheck =
  | { readonly ok: true; readonly rawPublicKey: Uint8Array; readonly keyCheck: KeyCheck }
  | {
      readonly ok: false;
      readonly code: 'validation_error';
      readonly field: 'partyId' | 'signature' | 'publicKey';
      readonly reason: PartyIdProblemReason | DecodeProblemReason;
      readonly message: string;
    }
  | {
      readonly ok: false;
      readonly code: 'invalid_nonce';
      readonly reason: NonceProblemReason;
      readonly message: string;
    }
  | {
      readonly ok: false;
      readonly code: 'invalid_signature';
      readonly reason: 'signature_mismatch';
      readonly message: string;
    };

function invalidNonce(reason: NonceProblemReason, message: string): ChallengeCheck {
  return { ok: false, code: 'invalid_nonce', reason, message };
}

/** Whether an existing challenge can still be answered by `partyId` at `now`. */
function checkNonceState(
  challenge: StoredChallenge,
  now: Date,
  partyId: string,
): ChallengeCheck | null {
  if (challenge.usedAt !== null) return invalidNonce('nonce_used', 'nonce was already used');
  if (now.getTime() >= challenge.expiresAt.getTime()) {
    return invalidNonce('nonce_expired', 'challenge has expired');
  }
  if (challenge.partyId !== partyId) {
    return invalidNonce('nonce_for_other_party', 'challenge was issued for another party');
  }
  return null;
}

/**
 * Checks a wallet's answer to a challenge, in the order: well-formed input (`validation_error`),
 * then the nonce (`invalid_nonce`), then the signature over the stored message's UTF-8 bytes
 * (`invalid_signature`). On success `keyCheck` says whether the key's fingerprint is the party's
 * namespace; on `fingerprint_mismatch` only the ledger can still accept the key. Callers consume
 * the nonce whatever the outcome.
 */
export function checkChallengeResponse(response: ChallengeResponse): ChallengeCheck {
  const party = parsePartyId(response.partyId);
  if (!party.ok) return { ...party, code: 'validation_error', field: 'partyId' };
  const signature = decodeSignature(response.signature);
  if (!signature.ok) return { ...signature, code: 'validation_error', field: 'signature' };
  const publicKey = decodePublicKey(response.publicKey);
  if (!publicKey.ok) return { ...publicKey, code: 'validation_error', field: 'publicKey' };
  const partyId = response.partyId as string;
  const { challenge } = response;
  if (challenge === null || challenge.nonce !== response.nonce) {
    return invalidNonce('unknown_nonce', 'no challenge was issued with this nonce');
  }
  const nonceProblem = checkNonceState(challenge, response.now, partyId);
  if (nonceProblem) return nonceProblem;
  if (!verifyEd25519(challenge.message, signature.bytes, publicKey.bytes)) {
    return {
      ok: false,
      code: 'invalid_signature',
      reason: 'signature_mismatch',
      message: 'signature does not verify with this public key',
    };
  }
  return {
    ok: true,
    rawPublicKey: publicKey.bytes,
    keyCheck: keyControlsParty(partyId, publicKey.bytes),
  };
}
