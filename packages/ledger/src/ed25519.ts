/**
 * Ed25519 signature checks on Node's own (OpenSSL) implementation, for the ledger packages: the
 * devnet ledger server checks every externally signed submission, and an atomic swap's execution
 * checks the trader's signature before anything is sent. Core's portable check (written to run in
 * browsers too) costs milliseconds of this single thread per signature, which a ledger taking
 * tens of submissions a second cannot spare. Strict RFC 8032 verification, as core's.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { keepRecent } from '@poolparty/core';

/** DER SubjectPublicKeyInfo of an Ed25519 key (RFC 8410), up to the raw 32 bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const RAW_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
/**
 * Keys kept decoded, the least recently used dropped beyond: decoding a key costs twice the
 * check itself, and a service checks the same few parties' keys over and over.
 */
export const DECODED_KEYS_MAX = 4_096;
const decodedKeys = new Map<string, KeyObject>();

function keyObjectOf(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString('hex');
  const key =
    decodedKeys.get(id) ??
    createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  keepRecent(decodedKeys, id, key, DECODED_KEYS_MAX);
  return key;
}

/** Whether `signature` is `publicKey`'s (raw 32 bytes) signature of `message`. */
export function verifyEd25519Signature(
  message: Uint8Array,
  signature: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  if (publicKey.length !== RAW_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false;
  try {
    return verify(null, message, keyObjectOf(publicKey), signature);
  } catch {
    return false;
  }
}
