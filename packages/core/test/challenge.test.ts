import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import type { ChallengeResponse, StoredChallenge } from '../src/challenge.js';
import {
  CHALLENGE_TTL_MS,
  challengeMessage,
  checkChallengeResponse,
  createChallenge,
  generateNonce,
  NONCE_BYTES,
  WALLET_TOKEN_AUDIENCE,
  WALLET_TOKEN_TTL_MS,
} from '../src/challenge.js';
import { partyIdFor } from '../src/party-id.js';
import {
  decodeBase64,
  encodeBase64,
  encodeBase64Url,
  generateKeyPair,
  sign,
} from '../src/signing.js';

const RFC_PUBLIC = hexToBytes('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const RFC_SECRET = hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const RFC_PARTY = partyIdFor('alice', RFC_PUBLIC);
const NOW = new Date('2026-11-22T13:40:00.000Z');

const alice = { partyId: RFC_PARTY, privateKey: RFC_SECRET, publicKey: RFC_PUBLIC };

function challengeFor(partyId: string): StoredChallenge {
  return createChallenge({
    domain: 'poolparty.example',
    partyId,
    purpose: 'swap wallet authentication',
    environment: 'devnet',
    now: NOW,
  });
}

/** A correct answer by alice to a fresh challenge, with `changes` applied. */
function answer(changes: Partial<ChallengeResponse> = {}): ChallengeResponse {
  const challenge = challengeFor(alice.partyId);
  return {
    challenge,
    now: new Date(NOW.getTime() + 60_000),
    nonce: challenge.nonce,
    partyId: alice.partyId,
    signature: encodeBase64(sign(challenge.message, alice.privateKey)),
    publicKey: encodeBase64(alice.publicKey),
    ...changes,
  };
}

function outcome(response: ChallengeResponse): string {
  const result = checkChallengeResponse(response);
  return result.ok ? result.keyCheck : `${result.code}/${result.reason}`;
}

describe('challengeMessage', () => {
  it('lays out the message of docs/spec/auth.md#challenge-message exactly', () => {
    const message = challengeMessage({
      domain: 'poolparty.example',
      partyId: RFC_PARTY,
      purpose: 'swap wallet authentication',
      environment: 'devnet',
      nonce: 'q7Zr-3_xLw0',
      issuedAt: NOW,
      expiresAt: new Date('2026-11-22T13:45:00.000Z'),
    });
    expect(message).toBe(
      'poolparty.example wants you to authenticate your Canton party:\n' +
        'alice::1220035a791d845bbb8195615e7eccd7a57c2ec4075c2e88695f194bab4e0194a889\n' +
        '\n' +
        'Purpose: swap wallet authentication\n' +
        'Environment: devnet\n' +
        'Nonce: q7Zr-3_xLw0\n' +
        'Issued At: 2026-11-22T13:40:00.000Z\n' +
        'Expiration Time: 2026-11-22T13:45:00.000Z',
    );
  });

  it('names the developer login purpose and the environment', () => {
    const message = challengeMessage({
      domain: 'localhost:8080',
      partyId: RFC_PARTY,
      purpose: 'developer portal login',
      environment: 'mainnet',
      nonce: 'abc',
      issuedAt: NOW,
      expiresAt: NOW,
    });
    expect(message.split('\n')).toEqual(
      expect.arrayContaining([
        'localhost:8080 wants you to authenticate your Canton party:',
        'Purpose: developer portal login',
        'Environment: mainnet',
      ]),
    );
  });

  it('refuses values that would add or fake lines', () => {
    const base = {
      domain: 'poolparty.example',
      partyId: RFC_PARTY,
      purpose: 'swap wallet authentication',
      environment: 'devnet',
      nonce: 'abc',
      issuedAt: NOW,
      expiresAt: NOW,
    } as const;
    expect(() => challengeMessage({ ...base, domain: 'evil.example\nPurpose: x' })).toThrow(
      RangeError,
    );
    expect(() => challengeMessage({ ...base, partyId: `${RFC_PARTY}\nNonce: x` })).toThrow(
      RangeError,
    );
    expect(() => challengeMessage({ ...base, nonce: 'abc\nEnvironment: mainnet' })).toThrow(
      RangeError,
    );
  });
});

describe('createChallenge', () => {
  it('issues a single-use nonce valid for five minutes, bound into the message', () => {
    const challenge = challengeFor(RFC_PARTY);
    expect(challenge.expiresAt.getTime() - NOW.getTime()).toBe(CHALLENGE_TTL_MS);
    expect(challenge.usedAt).toBeNull();
    expect(challenge.partyId).toBe(RFC_PARTY);
    expect(challenge.message).toBe(
      challengeMessage({
        domain: 'poolparty.example',
        partyId: RFC_PARTY,
        purpose: 'swap wallet authentication',
        environment: 'devnet',
        nonce: challenge.nonce,
        issuedAt: NOW,
        expiresAt: challenge.expiresAt,
      }),
    );
  });
});

describe('generateNonce', () => {
  it('is base64url without padding and carries at least 128 bits', () => {
    const nonce = generateNonce();
    expect(nonce).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(nonce).toHaveLength(Math.ceil((NONCE_BYTES * 8) / 6));
    expect(decodeBase64(nonce)?.length).toBe(NONCE_BYTES);
    expect(NONCE_BYTES * 8).toBeGreaterThanOrEqual(128);
  });

  it('does not repeat', () => {
    const nonces = new Set(Array.from({ length: 200 }, generateNonce));
    expect(nonces.size).toBe(200);
  });
});

describe('checkChallengeResponse', () => {
  it('accepts the signature of the party key over the stored message', () => {
    const result = checkChallengeResponse(answer());
    expect(result).toEqual({ ok: true, rawPublicKey: RFC_PUBLIC, keyCheck: 'fingerprint_match' });
  });

  it('accepts the key and signature in every documented encoding', () => {
    const challenge = challengeFor(RFC_PARTY);
    const signature = sign(challenge.message, RFC_SECRET);
    const spki = encodeBase64(
      new Uint8Array([...hexToBytes('302a300506032b6570032100'), ...RFC_PUBLIC]),
    );
    for (const publicKey of [bytesToHex(RFC_PUBLIC), encodeBase64Url(RFC_PUBLIC), spki]) {
      for (const encoded of [bytesToHex(signature), encodeBase64Url(signature)]) {
        const response = answer({
          challenge,
          nonce: challenge.nonce,
          publicKey,
          signature: encoded,
        });
        expect(outcome(response)).toBe('fingerprint_match');
      }
    }
  });

  it('leaves a key that is not the party namespace key to the ledger', () => {
    const other = generateKeyPair();
    const challenge = challengeFor(RFC_PARTY);
    const response = answer({
      challenge,
      nonce: challenge.nonce,
      signature: encodeBase64(sign(challenge.message, other.privateKey)),
      publicKey: encodeBase64(other.publicKey),
    });
    expect(checkChallengeResponse(response)).toEqual({
      ok: true,
      rawPublicKey: other.publicKey,
      keyCheck: 'fingerprint_mismatch',
    });
  });

  it('refuses a signature by another key than the one presented', () => {
    const other = generateKeyPair();
    expect(outcome(answer({ publicKey: encodeBase64(other.publicKey) }))).toBe(
      'invalid_signature/signature_mismatch',
    );
  });

  it('refuses a signature over any other text than the stored message', () => {
    const challenge = challengeFor(RFC_PARTY);
    const altered = challenge.message.replace(
      'swap wallet authentication',
      'developer portal login',
    );
    const response = answer({
      challenge,
      nonce: challenge.nonce,
      signature: encodeBase64(sign(altered, RFC_SECRET)),
    });
    expect(outcome(response)).toBe('invalid_signature/signature_mismatch');
  });

  it('refuses a tampered signature', () => {
    const response = answer();
    const bytes = decodeBase64(response.signature as string) ?? new Uint8Array();
    bytes[10] = (bytes[10] ?? 0) ^ 0x80;
    expect(outcome({ ...response, signature: encodeBase64(bytes) })).toBe(
      'invalid_signature/signature_mismatch',
    );
  });

  it('refuses unknown nonces', () => {
    expect(outcome(answer({ challenge: null }))).toBe('invalid_nonce/unknown_nonce');
    expect(outcome(answer({ nonce: generateNonce() }))).toBe('invalid_nonce/unknown_nonce');
  });

  it('refuses a nonce that was already used', () => {
    const response = answer();
    const used = { ...(response.challenge as StoredChallenge), usedAt: NOW };
    expect(outcome({ ...response, challenge: used })).toBe('invalid_nonce/nonce_used');
  });

  it('accepts until the expiration time, and refuses from then on', () => {
    const expiresAt = new Date(NOW.getTime() + CHALLENGE_TTL_MS);
    expect(outcome(answer({ now: new Date(expiresAt.getTime() - 1) }))).toBe('fingerprint_match');
    expect(outcome(answer({ now: expiresAt }))).toBe('invalid_nonce/nonce_expired');
    expect(outcome(answer({ now: new Date(expiresAt.getTime() + 3_600_000) }))).toBe(
      'invalid_nonce/nonce_expired',
    );
  });

  it('refuses a nonce issued for another party, even with a valid signature', () => {
    const bob = generateKeyPair();
    const bobParty = partyIdFor('bob', bob.publicKey);
    const challenge = challengeFor(RFC_PARTY);
    const response = answer({
      challenge,
      nonce: challenge.nonce,
      partyId: bobParty,
      signature: encodeBase64(sign(challenge.message, bob.privateKey)),
      publicKey: encodeBase64(bob.publicKey),
    });
    expect(outcome(response)).toBe('invalid_nonce/nonce_for_other_party');
  });

  it('refuses malformed input before looking at the nonce', () => {
    const result = checkChallengeResponse(answer({ challenge: null, signature: 'not base64!' }));
    expect(result).toMatchObject({
      ok: false,
      code: 'validation_error',
      field: 'signature',
      reason: 'malformed_encoding',
    });
    expect(checkChallengeResponse(answer({ partyId: 'alice' }))).toMatchObject({
      code: 'validation_error',
      field: 'partyId',
      reason: 'missing_separator',
    });
    const x25519 = encodeBase64(
      new Uint8Array([...hexToBytes('302a300506032b656e032100'), ...RFC_PUBLIC]),
    );
    expect(checkChallengeResponse(answer({ publicKey: x25519 }))).toMatchObject({
      code: 'validation_error',
      field: 'publicKey',
      reason: 'unsupported_key_algorithm',
    });
  });
});

describe('token constants', () => {
  it('match docs/spec/auth.md: 5-minute challenges, 15-minute wallet tokens', () => {
    expect(CHALLENGE_TTL_MS).toBe(5 * 60_000);
    expect(WALLET_TOKEN_TTL_MS).toBe(15 * 60_000);
    expect(WALLET_TOKEN_AUDIENCE).toBe('poolparty-wallet');
  });
});
