/**
 * The devnet entry's signer: every key form people hold signs exactly what core's own Ed25519
 * signs, verifies with the service's verification, and answers a wallet challenge that the
 * service's challenge check accepts for the key's party, and signs an atomic swap's hash for the
 * key core fingerprints; a key that is not one is refused.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, webcrypto } from 'node:crypto';
import {
  checkChallengeResponse,
  devnetSigningMessage as coreSigningMessage,
  createChallenge,
  decodePublicKey,
  decodeSignature,
  fingerprint,
  generateKeyPair,
  sign,
  verifyEd25519,
} from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  createSigner,
  Devnet,
  devnetSigningMessage,
  generatePrivateKey,
  keyFingerprint,
  type SigningKey,
} from '../src/devnet/index.js';
import { ValidationError } from '../src/index.js';

const MESSAGE = 'poolparty.example wants you to authenticate your Canton party: ✓';

const { privateKey: seed, publicKey } = generateKeyPair();
function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const secretKey = new Uint8Array([...seed, ...publicKey]);
const nodeKey = createPrivateKey({
  key: { kty: 'OKP', crv: 'Ed25519', d: b64url(seed), x: b64url(publicKey) },
  format: 'jwk',
});
const pkcs8 = new Uint8Array(nodeKey.export({ format: 'der', type: 'pkcs8' }));
const jwk = nodeKey.export({ format: 'jwk' });

async function webCryptoPair(extractable: boolean): Promise<CryptoKeyPair> {
  const der = Uint8Array.from(pkcs8);
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, 'Ed25519', extractable, [
    'sign',
  ]);
  const publicKeyObject = createPublicKey(nodeKey).export({ format: 'der', type: 'spki' });
  const publicCryptoKey = await webcrypto.subtle.importKey(
    'spki',
    new Uint8Array(publicKeyObject),
    'Ed25519',
    true,
    ['verify'],
  );
  return { privateKey, publicKey: publicCryptoKey } as CryptoKeyPair;
}

const FORMS: [string, () => SigningKey | Promise<SigningKey>][] = [
  ['hex of the seed (devnet.json)', () => hex(seed)],
  ['0x-prefixed upper-case hex', () => `0x${hex(seed).toUpperCase()}`],
  ['base64 of the seed (POST /devnet/parties)', () => base64(seed)],
  ['the seed as bytes', () => Uint8Array.from(seed)],
  ['the seed as an ArrayBuffer', () => Uint8Array.from(seed).buffer],
  ['the 64-byte secret key as bytes', () => secretKey],
  ['hex of the 64-byte secret key', () => hex(secretKey)],
  ['PKCS#8 DER', () => pkcs8],
  ['base64 of PKCS#8 DER', () => base64(pkcs8)],
  ['PKCS#8 PEM', () => nodeKey.export({ format: 'pem', type: 'pkcs8' }).toString()],
  ['a JWK', () => jwk as JsonWebKey],
  ['a JWK without x', () => ({ kty: 'OKP', crv: 'Ed25519', d: jwk.d }) as JsonWebKey],
  ['JWK JSON text', () => JSON.stringify(jwk)],
  ['a WebCrypto key pair', () => webCryptoPair(false)],
  ['an extractable WebCrypto private key', async () => (await webCryptoPair(true)).privateKey],
];

describe('createSigner', () => {
  it.each(FORMS)('from %s signs as core signs, with the same public key', async (_, key) => {
    const signer = await createSigner(await key());
    expect(signer.publicKeyHex).toBe(hex(publicKey));
    expect(signer.publicKey).toBe(base64(publicKey));
    const signature = await signer.sign(MESSAGE);
    // Ed25519 is deterministic: the same key and message give the same signature.
    expect(hex(signature)).toBe(hex(sign(MESSAGE, seed)));
    expect(verifyEd25519(MESSAGE, signature, publicKey)).toBe(true);
  });

  it('signs bytes as given and a string as its UTF-8 bytes', async () => {
    const signer = await createSigner(hex(seed));
    const bytes = new TextEncoder().encode(MESSAGE);
    expect(hex(await signer.sign(bytes))).toBe(hex(await signer.sign(MESSAGE)));
  });

  it("answers a wallet challenge that the service's check accepts for the key's party", async () => {
    const signer = await createSigner(hex(seed));
    const partyId = `alice::${fingerprint(publicKey)}`;
    const now = new Date('2026-11-23T10:00:00.000Z');
    const challenge = createChallenge({
      domain: 'localhost',
      partyId,
      purpose: 'swap wallet authentication',
      environment: 'devnet',
      now,
    });
    const signed = await signer.signMessage(challenge.message);
    const check = checkChallengeResponse({
      challenge,
      now,
      nonce: challenge.nonce,
      partyId,
      ...signed,
    });
    expect(check).toMatchObject({ ok: true, keyCheck: 'fingerprint_match' });
    // The encodings are the ones the service reads: base64 of the raw key and signature.
    expect(decodePublicKey(signed.publicKey)).toMatchObject({ ok: true, bytes: publicKey });
    expect(decodeSignature(signed.signature).ok).toBe(true);
  });

  it('keeps a fresh private key as hex of 32 bytes, the devnet.json form', async () => {
    const key = generatePrivateKey();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(generatePrivateKey()).not.toBe(key);
    const signer = await createSigner(key);
    expect(verifyEd25519('x', await signer.sign('x'), decodeKey(signer.publicKey))).toBe(true);
  });

  const other = generateKeyPair();
  it.each<[string, () => SigningKey | Promise<SigningKey>, RegExp]>([
    ['an empty string', () => '', /empty/],
    ['text that is no encoding', () => 'not a key!', /neither hex, base64, PEM nor a JWK/],
    ['hex of 31 bytes', () => hex(seed.subarray(0, 31)), /neither a 32-byte seed/],
    ['bytes of a wrong length', () => new Uint8Array(33), /neither a 32-byte seed/],
    [
      'a secret key whose public half is another key',
      () => new Uint8Array([...seed, ...other.publicKey]),
      /not its public key/,
    ],
    ['a JWK whose x is another key', () => ({ ...jwk, x: b64url(other.publicKey) }), /not its/],
    ['a JWK of another curve', () => ({ ...jwk, crv: 'X25519' }), /crv "Ed25519"/],
    ['a JWK without d', () => ({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }), /no private part/],
    ['malformed JWK JSON', () => '{"kty": "OKP",', /not JSON/],
    [
      'an RSA PKCS#8 key',
      () =>
        generateKeyPairSync('rsa', { modulusLength: 1024 })
          .privateKey.export({ format: 'pem', type: 'pkcs8' })
          .toString(),
      /not an Ed25519 PKCS#8/,
    ],
    ['a public key PEM', () => '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', /PEM/],
    [
      'a non-extractable private CryptoKey alone',
      async () => (await webCryptoPair(false)).privateKey,
      /pass the CryptoKeyPair/,
    ],
  ])('refuses %s with a ValidationError', async (_, key, message) => {
    const error = await createSigner(await key()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'invalid_signing_key', shortMessage: expect.any(String) });
    expect((error as ValidationError).shortMessage).toMatch(message);
  });
});

describe("an atomic swap's signer", () => {
  it("prepares for core's fingerprint of the key and signs the hash's bytes as core verifies", async () => {
    for (let n = 0; n < 5; n++) {
      const keys = generateKeyPair();
      expect(await keyFingerprint(keys.publicKey)).toBe(fingerprint(keys.publicKey));
    }
    const wallet = await new Devnet('http://127.0.0.1:1').wallet(
      `alice::${fingerprint(publicKey)}`,
      hex(seed),
    );
    const signer = await wallet.atomicSigner();
    expect(signer).toMatchObject({
      partyId: wallet.partyId,
      fingerprint: fingerprint(publicKey),
      publicKey,
    });
    const hash = new Uint8Array(32).fill(5);
    expect(verifyEd25519(hash, await signer.signHash(hash), publicKey)).toBe(true);
    await expect(keyFingerprint(new Uint8Array(31))).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('devnetSigningMessage', () => {
  it('is METHOD, path and the exact body, as the service verifies them', async () => {
    const body = JSON.stringify({ sender: 'a::1220', amount: '1.5', reason: 'pp-Ü' });
    const message = devnetSigningMessage({ method: 'post', path: '/devnet/transfers', body });
    expect(Buffer.from(message).toString('utf8')).toBe(`POST /devnet/transfers\n${body}`);
    const signer = await createSigner(hex(seed));
    const signature = await signer.sign(message);
    const served = coreSigningMessage('POST', '/devnet/transfers', body);
    expect(verifyEd25519(served, signature, publicKey)).toBe(true);
  });

  it('agrees with the service on every part: method, path without query, body', () => {
    const cases = [
      { method: 'POST', path: '/devnet/offers/offer-1/accept', body: '{"partyId":"a"}' },
      { method: 'POST', path: '/devnet/offers/offer%3A1/reject?x=1', body: '{}' },
      { method: 'put', path: '/devnet/transfers', body: '{ "a" : 1 }\n' },
    ];
    for (const { method, path, body } of cases) {
      expect(devnetSigningMessage({ method, path, body })).toEqual(
        coreSigningMessage(method, path, body),
      );
    }
    const one = devnetSigningMessage({
      method: 'POST',
      path: '/devnet/offers/a/accept',
      body: '{}',
    });
    const other = devnetSigningMessage({
      method: 'POST',
      path: '/devnet/offers/b/accept',
      body: '{}',
    });
    expect(one).not.toEqual(other);
  });
});

function decodeKey(base64Key: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64Key, 'base64'));
}
