/**
 * An Ed25519 signer from the key formats people hold, on WebCrypto (Node ≥ 20, current browsers):
 *
 * - hex of the 32-byte private key (seed), as in `.poolparty/devnet.json`;
 * - base64 of the seed, as `POST /devnet/parties` answers it;
 * - the 32-byte seed as bytes;
 * - the 64-byte secret key `seed ‖ public key` (libsodium, TweetNaCl, Solana keypairs), as bytes,
 *   hex or base64;
 * - PKCS#8: DER bytes, base64 of them, or PEM (`-----BEGIN PRIVATE KEY-----`), as OpenSSL and
 *   `crypto.generateKeyPairSync('ed25519')` write it;
 * - a JWK `{kty: 'OKP', crv: 'Ed25519', d, x?}`, as an object or its JSON text;
 * - a WebCrypto `CryptoKeyPair`, or an extractable private `CryptoKey`.
 *
 * Every form is turned into PKCS#8 and imported once; the public key is derived from the private
 * one, and where the input also names a public key (JWK `x`, the second half of a 64-byte secret
 * key) the two must agree. The signature is the plain Ed25519 signature (RFC 8032) that a Canton
 * wallet's `signMessage` produces, so the service verifies it with the same code as a wallet's.
 */
import { PoolPartyError, ValidationError } from '../errors.js';
import { fromBase64, fromHex, sameBytes, toBase64, toHex } from './encoding.js';

/** Any of the key forms in the module comment. */
export type SigningKey = string | Uint8Array | ArrayBuffer | JsonWebKey | CryptoKey | CryptoKeyPair;

/** What `walletAuth.verifyChallenge` needs besides partyId and nonce. */
export interface SignedMessage {
  /** Base64 of the 64-byte Ed25519 signature. */
  readonly signature: string;
  /** Base64 of the raw 32-byte public key. */
  readonly publicKey: string;
}

/** Signs with one Ed25519 key; the private key itself is not extractable from it. */
export interface Signer {
  /** Base64 of the raw 32-byte public key, as the service takes it. */
  readonly publicKey: string;
  /** Hex of the raw 32-byte public key, as `.poolparty/devnet.json` lists it. */
  readonly publicKeyHex: string;
  /** The 64-byte signature of `message` (a string is signed as its UTF-8 bytes). */
  sign(message: string | Uint8Array): Promise<Uint8Array>;
  /** Signs a wallet challenge `message` like a Canton wallet's `signMessage`. */
  signMessage(message: string): Promise<SignedMessage>;
}

const ED25519 = { name: 'Ed25519' } as const;
const SEED_BYTES = 32;
const SECRET_KEY_BYTES = 64;
/** DER of a PKCS#8 v1 Ed25519 key up to its 32-byte seed (RFC 8410 §7). */
const PKCS8_SEED_PREFIX = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];
const PEM = /^-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\s]+)-----END PRIVATE KEY-----$/;
const ACCEPTED =
  'an Ed25519 private key: hex or base64 of the 32-byte seed or 64-byte secret key, ' +
  'PKCS#8 (DER, base64 or PEM), a JWK, or a CryptoKeyPair';

function invalidKey(problem: string, cause?: unknown): ValidationError {
  return new ValidationError(`Invalid signing key: ${problem}`, {
    code: 'invalid_signing_key',
    details: `Expected ${ACCEPTED}.`,
    ...(cause !== undefined && { cause }),
  });
}

function subtle(): SubtleCrypto {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new PoolPartyError('WebCrypto is not available on this platform', {
      code: 'webcrypto_unavailable',
      details: 'Signing needs crypto.subtle: Node ≥ 20, or a browser page served over HTTPS.',
    });
  }
  return subtle;
}

/** Canton's hash purpose of a public key's fingerprint, as the 4 bytes it prefixes the key with. */
const FINGERPRINT_PURPOSE = [0, 0, 0, 12];

/**
 * The fingerprint Canton gives an Ed25519 public key (raw, 32 bytes): `1220` and the hex SHA-256
 * of the key after its hash purpose; the namespace of an external party's id, and the
 * `keyFingerprint` an atomic swap is prepared for.
 */
export async function keyFingerprint(rawPublicKey: Uint8Array): Promise<string> {
  if (rawPublicKey.length !== SEED_BYTES) {
    throw invalidKey(`an Ed25519 public key has ${SEED_BYTES} bytes, not ${rawPublicKey.length}`);
  }
  const input = Uint8Array.from([...FINGERPRINT_PURPOSE, ...rawPublicKey]);
  return `1220${toHex(new Uint8Array(await subtle().digest('SHA-256', input)))}`;
}

/** A fresh private key: hex of a random 32-byte seed, the form `.poolparty/devnet.json` keeps. */
export function generatePrivateKey(): string {
  return toHex(globalThis.crypto.getRandomValues(new Uint8Array(SEED_BYTES)));
}

/** A signer for `key` (any form in the module comment). */
export async function createSigner(key: SigningKey): Promise<Signer> {
  if (isCryptoKeyPair(key)) return signerFromKeyPair(key);
  if (isCryptoKey(key)) return signerFromPrivateCryptoKey(key);
  const { pkcs8, publicKey } = pkcs8Of(key);
  return signerFromPkcs8(pkcs8, publicKey);
}

// --- every form to PKCS#8 --------------------------------------------------------------------

interface Pkcs8Key {
  readonly pkcs8: Uint8Array<ArrayBuffer>;
  /** The public key the input names alongside the private key, to check against. */
  readonly publicKey?: Uint8Array;
}

function pkcs8Of(key: Exclude<SigningKey, CryptoKey | CryptoKeyPair>): Pkcs8Key {
  if (typeof key === 'string') return pkcs8OfText(key.trim());
  if (key instanceof ArrayBuffer) return pkcs8OfBytes(new Uint8Array(key));
  if (ArrayBuffer.isView(key)) return pkcs8OfBytes(Uint8Array.from(key));
  if (typeof key === 'object' && key !== null) return pkcs8OfJwk(key);
  throw invalidKey(`a ${key === null ? 'null' : typeof key} is not a key`);
}

function pkcs8OfText(text: string): Pkcs8Key {
  if (text.length === 0) throw invalidKey('the key is empty');
  if (text.startsWith('{')) return pkcs8OfJwk(parseJwk(text));
  const pem = PEM.exec(text);
  if (pem) {
    const der = fromBase64((pem[1] ?? '').replace(/\s+/g, ''));
    if (!der) throw invalidKey('the PEM body is not base64');
    return { pkcs8: der };
  }
  if (text.startsWith('-----')) throw invalidKey('only PEM "PRIVATE KEY" (PKCS#8) is read');
  // Hex first for the two lengths a hex key has, as the service reads keys (core signing.ts).
  const hex = text.replace(/^0x/, '');
  const fromHexText =
    hex.length === 2 * SEED_BYTES || hex.length === 2 * SECRET_KEY_BYTES ? fromHex(hex) : null;
  const bytes = fromHexText ?? fromBase64(text);
  if (!bytes) throw invalidKey('the text is neither hex, base64, PEM nor a JWK');
  return pkcs8OfBytes(bytes);
}

function pkcs8OfBytes(bytes: Uint8Array<ArrayBuffer>): Pkcs8Key {
  if (bytes.length === SEED_BYTES) return { pkcs8: pkcs8OfSeed(bytes) };
  if (bytes.length === SECRET_KEY_BYTES) {
    return {
      pkcs8: pkcs8OfSeed(bytes.subarray(0, SEED_BYTES)),
      publicKey: bytes.slice(SEED_BYTES),
    };
  }
  if (bytes[0] === 0x30) return { pkcs8: bytes };
  throw invalidKey(`${bytes.length} bytes is neither a 32-byte seed, a 64-byte secret key nor DER`);
}

function pkcs8OfSeed(seed: Uint8Array): Uint8Array<ArrayBuffer> {
  const der = new Uint8Array(PKCS8_SEED_PREFIX.length + SEED_BYTES);
  der.set(PKCS8_SEED_PREFIX);
  der.set(seed, PKCS8_SEED_PREFIX.length);
  return der;
}

function parseJwk(text: string): JsonWebKey {
  try {
    return JSON.parse(text) as JsonWebKey;
  } catch (error) {
    throw invalidKey('the text starts like a JWK but is not JSON', error);
  }
}

function pkcs8OfJwk(jwk: JsonWebKey): Pkcs8Key {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') {
    throw invalidKey(`a JWK must have kty "OKP" and crv "Ed25519"`);
  }
  if (typeof jwk.d !== 'string') throw invalidKey('the JWK has no private part "d"');
  const seed = fromBase64(jwk.d);
  if (seed?.length !== SEED_BYTES) throw invalidKey('the JWK "d" is not 32 bytes of base64url');
  const publicKey = typeof jwk.x === 'string' ? fromBase64(jwk.x) : null;
  if (typeof jwk.x === 'string' && publicKey === null) {
    throw invalidKey('the JWK "x" is not base64url');
  }
  return { pkcs8: pkcs8OfSeed(seed), ...(publicKey && { publicKey }) };
}

// --- import and sign ------------------------------------------------------------------------------

async function signerFromPkcs8(
  pkcs8: Uint8Array<ArrayBuffer>,
  expectedPublicKey?: Uint8Array,
): Promise<Signer> {
  let extractable: CryptoKey;
  try {
    extractable = await subtle().importKey('pkcs8', pkcs8, ED25519, true, ['sign']);
  } catch (error) {
    if (error instanceof PoolPartyError) throw error;
    throw invalidKey('not an Ed25519 PKCS#8 private key', error);
  }
  const publicKey = await publicKeyOfPrivate(extractable);
  if (expectedPublicKey && !sameBytes(publicKey, expectedPublicKey)) {
    throw invalidKey('the public key given with the private key is not its public key');
  }
  // The key kept for signing cannot be exported again.
  const privateKey = await subtle().importKey('pkcs8', pkcs8, ED25519, false, ['sign']);
  return makeSigner(privateKey, publicKey);
}

async function signerFromKeyPair(pair: CryptoKeyPair): Promise<Signer> {
  checkEd25519(pair.privateKey);
  const publicKey = new Uint8Array(await subtle().exportKey('raw', pair.publicKey));
  return makeSigner(pair.privateKey, publicKey);
}

async function signerFromPrivateCryptoKey(key: CryptoKey): Promise<Signer> {
  checkEd25519(key);
  if (!key.extractable) {
    throw invalidKey(
      'a non-extractable CryptoKey alone does not reveal its public key; pass the CryptoKeyPair',
    );
  }
  return makeSigner(key, await publicKeyOfPrivate(key));
}

function checkEd25519(key: CryptoKey): void {
  if (key.type !== 'private' || key.algorithm.name !== 'Ed25519' || !key.usages.includes('sign')) {
    throw invalidKey('the CryptoKey is not an Ed25519 private key usable for signing');
  }
}

async function publicKeyOfPrivate(key: CryptoKey): Promise<Uint8Array> {
  const { x } = await subtle().exportKey('jwk', key);
  const publicKey = x === undefined ? null : fromBase64(x);
  if (!publicKey) throw invalidKey('the platform exported no public key for it');
  return publicKey;
}

function makeSigner(privateKey: CryptoKey, publicKeyBytes: Uint8Array): Signer {
  const publicKey = toBase64(publicKeyBytes);
  const sign = async (message: string | Uint8Array): Promise<Uint8Array> => {
    const bytes =
      typeof message === 'string' ? new TextEncoder().encode(message) : Uint8Array.from(message);
    return new Uint8Array(await subtle().sign(ED25519, privateKey, bytes));
  };
  return {
    publicKey,
    publicKeyHex: toHex(publicKeyBytes),
    sign,
    async signMessage(message) {
      return { signature: toBase64(await sign(message)), publicKey };
    },
  };
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return (
    typeof value === 'object' &&
    value !== null &&
    'algorithm' in value &&
    'usages' in value &&
    'type' in value
  );
}

function isCryptoKeyPair(value: unknown): value is CryptoKeyPair {
  return (
    typeof value === 'object' &&
    value !== null &&
    isCryptoKey((value as Partial<CryptoKeyPair>).privateKey) &&
    isCryptoKey((value as Partial<CryptoKeyPair>).publicKey)
  );
}
