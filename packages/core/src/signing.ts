/**
 * Ed25519 keys and signatures as wallets send them (docs/spec/auth.md#signatures-and-keys), and the
 * check that a key controls a party. Runs in browsers too: no Node `Buffer`.
 *
 * Accepted encodings:
 * - public key: hex of the raw 32-byte key; base64 (standard or url-safe, padded or not) of the
 *   raw key; base64 of a DER SubjectPublicKeyInfo for Ed25519 (RFC 8410).
 * - signature: hex or base64 of the 64 bytes.
 *
 * Precedence: a value of exactly 64 (key) or 128 (signature) hex digits is read as hex, anything
 * else as base64. Such a value is also valid base64, but it would decode to 48 or 96 bytes, which
 * no accepted form has; so the precedence only fixes the reading, it never refuses a value that
 * another reading would accept.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { ED25519_PUBLIC_KEY_BYTES, fingerprint } from './fingerprint.js';
import { parsePartyId } from './party-id.js';

const ED25519_SIGNATURE_BYTES = 64;

export type DecodeProblemReason =
  | 'not_a_string'
  | 'empty'
  | 'malformed_encoding'
  | 'wrong_length'
  | 'malformed_spki'
  | 'unsupported_key_algorithm';

export type Decoded =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly reason: DecodeProblemReason; readonly message: string };

function refuse(reason: DecodeProblemReason, message: string): Decoded {
  return { ok: false, reason, message };
}

// --- base64 -------------------------------------------------------------------------------

const STANDARD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE64_SHAPE = /^([A-Za-z0-9+/_-]*)(={0,2})$/;

const SEXTET_OF = new Map<string, number>([
  ...[...STANDARD_ALPHABET].map((char, value) => [char, value] as const),
  ...[...URL_ALPHABET].map((char, value) => [char, value] as const),
]);

function encodeWith(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = bytes.subarray(i, i + 3);
    const word = ((chunk[0] ?? 0) << 16) | ((chunk[1] ?? 0) << 8) | (chunk[2] ?? 0);
    const chars = chunk.length + 1;
    for (let j = 0; j < chars; j++) out += alphabet[(word >> (18 - 6 * j)) & 63];
    if (pad) out += '='.repeat(4 - chars);
  }
  return out;
}

/** Standard, padded base64 (RFC 4648 §4): the form this service sends. */
export function encodeBase64(bytes: Uint8Array): string {
  return encodeWith(bytes, STANDARD_ALPHABET, true);
}

/** Url-safe base64 without padding (RFC 4648 §5), for tokens and nonces. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return encodeWith(bytes, URL_ALPHABET, false);
}

/**
 * Decodes standard or url-safe base64, padded or not; null when malformed. Refused: a mix of the
 * two alphabets, wrong padding, and non-zero unused bits, so each byte string has one accepted
 * spelling per alphabet and padding choice.
 */
export function decodeBase64(text: string): Uint8Array | null {
  const match = BASE64_SHAPE.exec(text);
  const body = match?.[1] ?? '';
  const padding = match?.[2] ?? '';
  if (!match || body.length % 4 === 1) return null;
  if (/[+/]/.test(body) && /[-_]/.test(body)) return null;
  if (padding.length > 0 && text.length % 4 !== 0) return null;
  const out = new Uint8Array(Math.floor((body.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let length = 0;
  for (const char of body) {
    buffer = (buffer << 6) | (SEXTET_OF.get(char) ?? 0);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (buffer >> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  return buffer === 0 ? out : null;
}

// --- DER SubjectPublicKeyInfo -------------------------------------------------------------

const DER_SEQUENCE = 0x30;
const DER_BIT_STRING = 0x03;
const DER_OBJECT_IDENTIFIER = 0x06;
/** id-Ed25519, 1.3.101.112 (RFC 8410). */
const ED25519_OID = '2b6570';

interface DerElement {
  readonly tag: number;
  readonly value: Uint8Array;
  /** Offset just past the element in the bytes it was read from. */
  readonly end: number;
}

/** Reads one DER element; lengths over 65535 are refused, no key comes near. */
function readDer(bytes: Uint8Array, offset: number): DerElement | null {
  const tag = bytes[offset];
  const first = bytes[offset + 1];
  if (tag === undefined || first === undefined) return null;
  let length = first;
  let start = offset + 2;
  if (first === 0x81 || first === 0x82) {
    const width = first - 0x80;
    length = 0;
    for (let i = 0; i < width; i++) {
      const byte = bytes[start + i];
      if (byte === undefined) return null;
      length = length * 256 + byte;
    }
    start += width;
    // DER: the shortest length form only.
    if (length < (width === 1 ? 0x80 : 0x100)) return null;
  } else if (first >= 0x80) {
    return null;
  }
  const end = start + length;
  if (end > bytes.length) return null;
  return { tag, value: bytes.subarray(start, end), end };
}

/** `SEQUENCE { SEQUENCE { OID id-Ed25519 }, BIT STRING (0 unused bits) key }`, nothing else. */
function decodeSpki(der: Uint8Array): Decoded {
  const malformed = refuse('malformed_spki', 'public key is not a DER SubjectPublicKeyInfo');
  const outer = readDer(der, 0);
  if (outer?.tag !== DER_SEQUENCE || outer.end !== der.length) return malformed;
  const algorithm = readDer(outer.value, 0);
  if (algorithm?.tag !== DER_SEQUENCE) return malformed;
  const key = readDer(outer.value, algorithm.end);
  if (key?.tag !== DER_BIT_STRING || key.end !== outer.value.length) return malformed;
  const oid = readDer(algorithm.value, 0);
  if (oid?.tag !== DER_OBJECT_IDENTIFIER) return malformed;
  if (bytesToHex(oid.value) !== ED25519_OID) {
    return refuse('unsupported_key_algorithm', 'public key is not an Ed25519 key');
  }
  // RFC 8410: the parameters are absent for Ed25519.
  if (oid.end !== algorithm.value.length) return malformed;
  if (key.value.length !== ED25519_PUBLIC_KEY_BYTES + 1 || key.value[0] !== 0) return malformed;
  return { ok: true, bytes: key.value.slice(1) };
}

// --- keys and signatures ------------------------------------------------------------------

function checkPresent(input: unknown, what: string): Decoded | null {
  if (typeof input !== 'string') return refuse('not_a_string', `${what} must be a string`);
  if (input.length === 0) return refuse('empty', `${what} is empty`);
  return null;
}

function isHexOfLength(text: string, bytes: number): boolean {
  return text.length === bytes * 2 && /^[0-9a-fA-F]*$/.test(text);
}

/** Refuses a value that is no accepted form; hex of the wrong size is named as such. */
function refuseUndecodable(text: string, what: string, expected: string): Decoded {
  if (/^(?:[0-9a-fA-F]{2})+$/.test(text)) {
    return refuse(
      'wrong_length',
      `${what} is hex of ${text.length / 2} bytes, expected ${expected}`,
    );
  }
  return refuse('malformed_encoding', `${what} is neither hex nor base64`);
}

/** The raw 32-byte Ed25519 key from any accepted encoding (see the module comment). */
export function decodePublicKey(input: unknown): Decoded {
  const absent = checkPresent(input, 'public key');
  if (absent) return absent;
  const text = input as string;
  if (isHexOfLength(text, ED25519_PUBLIC_KEY_BYTES)) return { ok: true, bytes: hexToBytes(text) };
  const bytes = decodeBase64(text);
  if (!bytes) return refuseUndecodable(text, 'public key', '32');
  if (bytes.length === ED25519_PUBLIC_KEY_BYTES) return { ok: true, bytes };
  if (bytes[0] === DER_SEQUENCE) return decodeSpki(bytes);
  return refuse(
    'wrong_length',
    'public key must be 32 bytes (hex or base64) or an Ed25519 SubjectPublicKeyInfo (base64)',
  );
}

/** The 64 signature bytes from hex or base64. */
export function decodeSignature(input: unknown): Decoded {
  const absent = checkPresent(input, 'signature');
  if (absent) return absent;
  const text = input as string;
  if (isHexOfLength(text, ED25519_SIGNATURE_BYTES)) return { ok: true, bytes: hexToBytes(text) };
  const bytes = decodeBase64(text);
  if (!bytes) return refuseUndecodable(text, 'signature', '64');
  if (bytes.length !== ED25519_SIGNATURE_BYTES) {
    return refuse('wrong_length', 'signature must be 64 bytes (base64 or hex)');
  }
  return { ok: true, bytes };
}

function messageBytes(message: Uint8Array | string): Uint8Array {
  return typeof message === 'string' ? utf8ToBytes(message) : message;
}

/**
 * Whether `signature` is a valid Ed25519 signature of `message` (a string is signed as its UTF-8
 * bytes) by `publicKey`. Never throws: malformed input is simply not a valid signature. Strict
 * RFC 8032 decoding (no ZIP-215), which also refuses small-order keys, so a signature cannot be
 * re-encoded into a second accepted one.
 */
export function verifyEd25519(
  message: Uint8Array | string,
  signature: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  try {
    return ed25519.verify(signature, messageBytes(message), publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/**
 * `fingerprint_match`: the key is the party's namespace key (an external party).
 * `fingerprint_mismatch`: it is not; only the ledger can still say whether the key is a
 * registered signing key of a party in someone else's namespace.
 */
export type KeyCheck = 'fingerprint_match' | 'fingerprint_mismatch';

export function keyControlsParty(partyId: string, rawPublicKey: Uint8Array): KeyCheck {
  const parts = parsePartyId(partyId);
  const matches =
    parts.ok &&
    rawPublicKey.length === ED25519_PUBLIC_KEY_BYTES &&
    fingerprint(rawPublicKey) === parts.fingerprint;
  return matches ? 'fingerprint_match' : 'fingerprint_mismatch';
}

export interface Ed25519KeyPair {
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

/** A fresh key pair, for devnet parties and tests. */
export function generateKeyPair(): Ed25519KeyPair {
  const privateKey = ed25519.utils.randomSecretKey();
  return { publicKey: ed25519.getPublicKey(privateKey), privateKey };
}

/** The key pair of a raw 32-byte Ed25519 secret key (an operator's, read from its keys file). */
export function keyPairOf(privateKey: Uint8Array): Ed25519KeyPair {
  return { publicKey: ed25519.getPublicKey(privateKey), privateKey };
}

/** Signs like a Canton wallet's `signMessage`: a string is signed as its UTF-8 bytes. */
export function sign(message: Uint8Array | string, privateKey: Uint8Array): Uint8Array {
  return ed25519.sign(messageBytes(message), privateKey);
}
