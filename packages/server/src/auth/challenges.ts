/**
 * Wallet challenges as the service runs them (docs/spec/auth.md#verification), for wallet
 * authentication and for the developer portal's login alike: issue a stored single-use challenge,
 * and verify a signed answer. The rules are core's (`createChallenge`, `checkChallengeResponse`);
 * this module adds the store and the ledger look-up.
 *
 * Choices made here:
 * - a malformed answer (party id, signature or key that cannot be decoded) is refused with 400
 *   before the nonce is touched: it proves nothing, so it costs the wallet nothing either. Every
 *   well-formed answer consumes the nonce, whatever the outcome;
 * - a nonce issued for the other purpose (portal login vs. wallet authentication) is an unknown
 *   nonce: a signature for one must never open the other, and the answer does not say that such
 *   a nonce exists, also once it is spent;
 * - a nonce that was issued for this purpose and already spent answers `nonce_used` (told apart
 *   from an unknown one by reading the stored nonce after the consuming update found nothing to
 *   consume). Spent nonces are purged once they expire, so a very old one is `unknown_nonce`.
 */
import {
  type Challenge,
  type ChallengeCheck,
  type ChallengePurpose,
  checkChallengeResponse,
  createChallenge,
  DomainError,
  parsePartyId,
  type StoredChallenge,
} from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import {
  consumeNonce,
  type Database,
  findNonce,
  insertNonce,
  type NonceRecord,
} from '@poolparty/store';
import type { Settings } from '../config.js';

/** The store, the ledger that says which keys act for a party, and whose challenges these are. */
export interface ChallengeDeps {
  readonly db: Database;
  readonly settings: Pick<Settings, 'serviceDomain' | 'environment'>;
  readonly clock: { now(): Date };
  readonly ledger: Pick<LedgerPort, 'isSigningKeyOf'>;
}

/** What a wallet sends back: the challenge's nonce, signed. */
export interface SignedChallenge {
  readonly partyId: string;
  readonly nonce: string;
  readonly signature: string;
  readonly publicKey: string;
}

/** Creates and stores a challenge for `partyId`, valid for `CHALLENGE_TTL_MS`. */
export async function issueChallenge(
  deps: ChallengeDeps,
  partyId: string,
  purpose: ChallengePurpose,
): Promise<Challenge> {
  const party = parsePartyId(partyId);
  if (!party.ok) throw invalidField('partyId', party.reason, party.message);
  const now = deps.clock.now();
  const challenge = createChallenge({
    domain: deps.settings.serviceDomain,
    environment: deps.settings.environment,
    partyId,
    purpose,
    now,
  });
  await insertNonce(deps.db, {
    nonce: challenge.nonce,
    partyId,
    purpose,
    message: challenge.message,
    createdAt: now,
    expiresAt: challenge.expiresAt,
  });
  return {
    partyId,
    nonce: challenge.nonce,
    message: challenge.message,
    expiresAt: challenge.expiresAt.toISOString(),
  };
}

/**
 * Verifies a signed challenge of `purpose` and returns the authenticated party. Throws `DomainError`:
 * `validation_error`, `invalid_nonce` or `invalid_signature`.
 */
export async function verifyChallenge(
  deps: ChallengeDeps,
  answer: SignedChallenge,
  purpose: ChallengePurpose,
): Promise<string> {
  const now = deps.clock.now();
  const shape = checkChallengeResponse({ ...answer, challenge: null, now });
  if (!shape.ok && shape.code === 'validation_error') throw problemOf(shape);
  const consumed = await consumeNonce(deps.db, answer.nonce, now);
  const challenge =
    consumed === null
      ? spentChallenge(await findNonce(deps.db, answer.nonce), purpose, now)
      : openChallenge(consumed, purpose);
  const check = checkChallengeResponse({ ...answer, challenge, now });
  if (!check.ok) throw problemOf(check);
  if (check.keyCheck === 'fingerprint_mismatch') {
    await requireRegisteredKey(deps, answer.partyId, check.rawPublicKey);
  }
  return answer.partyId;
}

/**
 * The challenge as it stood before this answer consumed it (so unused), or null when there is
 * none to answer for this purpose.
 */
function openChallenge(
  record: NonceRecord | null,
  purpose: ChallengePurpose,
): StoredChallenge | null {
  if (record === null || record.purpose !== purpose) return null;
  return { ...record, usedAt: null };
}

/**
 * The challenge behind a nonce this answer could not consume: spent before (by an earlier
 * answer, or by one running at the same time), or null when there is none for this purpose.
 */
function spentChallenge(
  record: NonceRecord | null,
  purpose: ChallengePurpose,
  now: Date,
): StoredChallenge | null {
  if (record === null || record.purpose !== purpose) return null;
  return { ...record, usedAt: record.usedAt ?? now };
}

/** A party in someone else's namespace: only the ledger knows which keys act for it. */
async function requireRegisteredKey(
  deps: ChallengeDeps,
  partyId: string,
  rawPublicKey: Uint8Array,
): Promise<void> {
  let registered: boolean;
  try {
    registered = await deps.ledger.isSigningKeyOf(partyId, rawPublicKey);
  } catch {
    throw new DomainError(
      'ledger_unavailable',
      'The ledger could not be asked whether this key acts for the party; try again.',
    );
  }
  if (!registered) {
    throw new DomainError('invalid_signature', 'The public key does not control this party.', {
      reason: 'key_not_of_party',
    });
  }
}

type FailedCheck = Extract<ChallengeCheck, { ok: false }>;

function problemOf(check: FailedCheck): DomainError {
  switch (check.code) {
    case 'validation_error':
      return invalidField(check.field, check.reason, check.message);
    case 'invalid_nonce':
      return new DomainError(
        'invalid_nonce',
        `The challenge cannot be answered (${check.message}); request a new challenge.`,
        { reason: check.reason },
      );
    case 'invalid_signature':
      return new DomainError('invalid_signature', 'The signature does not verify with this key.', {
        reason: check.reason,
      });
  }
}

function invalidField(field: string, reason: string, message: string): DomainError {
  return new DomainError('validation_error', `${field}: ${message}.`, {
    reason,
    errors: [{ path: `/${field}`, message }],
  });
}
