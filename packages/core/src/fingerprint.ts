/**
 * Canton key fingerprints (docs/spec/auth.md#key-fingerprints): the namespace part of an external
 * party id.
 *
 * `fingerprint = "1220" + hex(sha256(0x0000000C ‖ rawKey))`: Canton prefixes the hashed bytes
 * with the hash purpose (12, public-key fingerprint) as a 4-byte big-endian integer, and writes
 * the digest as a multihash (0x12 = sha2-256, 0x20 = 32 bytes).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const PUBLIC_KEY_FINGERPRINT_PURPOSE = 12;
const MULTIHASH_SHA256_PREFIX = '1220';
export const ED25519_PUBLIC_KEY_BYTES = 32;

export function fingerprint(rawPublicKey: Uint8Array): string {
  if (rawPublicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new RangeError(`an Ed25519 public key has 32 bytes, not ${rawPublicKey.length}`);
  }
  const input = new Uint8Array(4 + rawPublicKey.length);
  new DataView(input.buffer).setUint32(0, PUBLIC_KEY_FINGERPRINT_PURPOSE);
  input.set(rawPublicKey, 4);
  return MULTIHASH_SHA256_PREFIX + bytesToHex(sha256(input));
}
