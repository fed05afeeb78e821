import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partyIdFor } from '../src/party-id.js';
import {
  decodeBase64,
  decodePublicKey,
  decodeSignature,
  encodeBase64,
  encodeBase64Url,
  generateKeyPair,
  keyControlsParty,
  sign,
  verifyEd25519,
} from '../src/signing.js';

// RFC 8032 §7.1 test 1: the empty message.
const RFC_SECRET_HEX = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const RFC_PUBLIC_HEX = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const RFC_SIGNATURE_HEX =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';
const RFC_PUBLIC = hexToBytes(RFC_PUBLIC_HEX);
const RFC_SIGNATURE = hexToBytes(RFC_SIGNATURE_HEX);

const ED25519_SPKI_PREFIX = hexToBytes('302a300506032b6570032100');

function spki(prefix: Uint8Array, key: Uint8Array): string {
  const der = new Uint8Array(prefix.length + key.length);
  der.set(prefix);
  der.set(key, prefix.length);
  return encodeBase64(der);
}

function reasonOf(result: ReturnType<typeof decodePublicKey>): string {
  return result.ok ? 'ok' : result.reason;
}

function flipBit(bytes: Uint8Array, index: number): Uint8Array {
  const copy = bytes.slice();
  copy[index] = (copy[index] ?? 0) ^ 1;
  return copy;
}

describe('base64', () => {
  it('matches RFC 4648 test vectors', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [text, encoded] of vectors) {
      expect(encodeBase64(utf8ToBytes(text))).toBe(encoded);
      expect(decodeBase64(encoded)).toEqual(utf8ToBytes(text));
      expect(decodeBase64(encoded.replace(/=+$/, ''))).toEqual(utf8ToBytes(text));
    }
  });

  it('decodes what it encodes, in both alphabets', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(decodeBase64(encodeBase64(bytes))).toEqual(bytes);
        expect(decodeBase64(encodeBase64Url(bytes))).toEqual(bytes);
        expect(encodeBase64Url(bytes)).toMatch(/^[A-Za-z0-9_-]*$/);
      }),
    );
  });

  it.each([
    ['Zg=', 'padding that does not complete a quartet'],
    ['Zg===', 'too much padding'],
    ['Z', 'a lone character'],
    ['Zh==', 'non-zero unused bits'],
    ['+/-_', 'mixed alphabets'],
    ['Zm 9v', 'whitespace'],
    ['Zm9v\n', 'a line break'],
    ['Zm=9v', 'padding in the middle'],
  ])('refuses %j (%s)', (text) => {
    expect(decodeBase64(text)).toBeNull();
  });
});

describe('decodePublicKey', () => {
  it('reads every accepted encoding of a key as the same 32 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (key) => {
        const standard = encodeBase64(key);
        const encodings = [
          bytesToHex(key),
          bytesToHex(key).toUpperCase(),
          standard,
          standard.replace(/=+$/, ''),
          encodeBase64Url(key),
          `${encodeBase64Url(key)}=`,
          spki(ED25519_SPKI_PREFIX, key),
          spki(ED25519_SPKI_PREFIX, key).replace(/=+$/, ''),
        ];
        for (const encoding of encodings) {
          expect(decodePublicKey(encoding)).toEqual({ ok: true, bytes: key });
        }
      }),
    );
  });

  it('reads the RFC 8032 key from hex, base64 and SubjectPublicKeyInfo', () => {
    expect(decodePublicKey(RFC_PUBLIC_HEX)).toEqual({ ok: true, bytes: RFC_PUBLIC });
    expect(decodePublicKey('11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=')).toEqual({
      ok: true,
      bytes: RFC_PUBLIC,
    });
    expect(decodePublicKey('MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=')).toEqual(
      { ok: true, bytes: RFC_PUBLIC },
    );
  });

  it('refuses SubjectPublicKeyInfo of other algorithms', () => {
    // X25519 (1.3.101.110) and Ed448 (1.3.101.113) have the same shape as Ed25519.
    expect(
      reasonOf(decodePublicKey(spki(hexToBytes('302a300506032b656e032100'), RFC_PUBLIC))),
    ).toBe('unsupported_key_algorithm');
    // A P-256 key as WebCrypto exports it.
    const p256 =
      'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEfdWe8vkgLXaZqRxsS0Yj0Mnn7H89/JS+8emi5MEzdUdymqpOSxp/' +
      'rbxOJkp/jrmzTu3v83Xq7L4D7Yz4jK3FEA==';
    expect(reasonOf(decodePublicKey(p256))).toBe('unsupported_key_algorithm');
  });

  it.each([
    ['302a300506032b6570032200', 'a wrong BIT STRING length'],
    ['302a300506032b6570032101', 'unused bits in the BIT STRING'],
    ['302b300506032b6570032100', 'an outer length that does not match'],
    ['302a300506032b6570042100', 'an OCTET STRING instead of a BIT STRING'],
    ['302a300505032b6570032100', 'a wrong OID tag'],
  ])('refuses a SubjectPublicKeyInfo with %s', (prefix) => {
    expect(reasonOf(decodePublicKey(spki(hexToBytes(prefix), RFC_PUBLIC)))).toBe('malformed_spki');
  });

  it('refuses Ed25519 SubjectPublicKeyInfo with parameters or trailing bytes', () => {
    const withNull = spki(hexToBytes('302c300706032b65700500032100'), RFC_PUBLIC);
    expect(reasonOf(decodePublicKey(withNull))).toBe('malformed_spki');
    const trailing = spki(ED25519_SPKI_PREFIX, new Uint8Array([...RFC_PUBLIC, 0]));
    expect(reasonOf(decodePublicKey(trailing))).toBe('malformed_spki');
  });

  it.each([
    [undefined, 'not_a_string'],
    [RFC_PUBLIC, 'not_a_string'],
    ['', 'empty'],
    ['not a key!', 'malformed_encoding'],
    [`${RFC_PUBLIC_HEX.slice(0, 63)}!`, 'malformed_encoding'],
    [` ${RFC_PUBLIC_HEX}`, 'malformed_encoding'],
    [RFC_PUBLIC_HEX.slice(0, 62), 'wrong_length'],
    [`${RFC_PUBLIC_HEX}00`, 'wrong_length'],
    [encodeBase64(new Uint8Array(31)), 'wrong_length'],
    [encodeBase64(new Uint8Array(33)), 'wrong_length'],
    [encodeBase64(RFC_SIGNATURE), 'wrong_length'],
  ])('refuses %j (%s)', (input, reason) => {
    expect(reasonOf(decodePublicKey(input))).toBe(reason);
  });
});

describe('decodeSignature', () => {
  it('reads hex and base64 of the same signature as the same bytes', () => {
    for (const encoding of [
      RFC_SIGNATURE_HEX,
      RFC_SIGNATURE_HEX.toUpperCase(),
      encodeBase64(RFC_SIGNATURE),
      encodeBase64Url(RFC_SIGNATURE),
    ]) {
      expect(decodeSignature(encoding)).toEqual({ ok: true, bytes: RFC_SIGNATURE });
    }
  });

  it.each([
    [42, 'not_a_string'],
    ['', 'empty'],
    ['%%%', 'malformed_encoding'],
    [RFC_SIGNATURE_HEX.slice(0, 126), 'wrong_length'],
    [`${RFC_SIGNATURE_HEX}00`, 'wrong_length'],
    [encodeBase64(RFC_SIGNATURE.subarray(0, 63)), 'wrong_length'],
    [encodeBase64(RFC_PUBLIC), 'wrong_length'],
  ])('refuses %j (%s)', (input, reason) => {
    expect(reasonOf(decodeSignature(input))).toBe(reason);
  });
});

describe('verifyEd25519', () => {
  it('accepts the RFC 8032 test 1 signature of the empty message', () => {
    expect(verifyEd25519(new Uint8Array(0), RFC_SIGNATURE, RFC_PUBLIC)).toBe(true);
    expect(verifyEd25519('', RFC_SIGNATURE, RFC_PUBLIC)).toBe(true);
  });

  it('signs like the RFC 8032 reference', () => {
    expect(bytesToHex(sign('', hexToBytes(RFC_SECRET_HEX)))).toBe(RFC_SIGNATURE_HEX);
  });

  it('refuses a tampered message, signature or key', () => {
    expect(verifyEd25519('x', RFC_SIGNATURE, RFC_PUBLIC)).toBe(false);
    expect(verifyEd25519('', flipBit(RFC_SIGNATURE, 0), RFC_PUBLIC)).toBe(false);
    expect(verifyEd25519('', flipBit(RFC_SIGNATURE, 40), RFC_PUBLIC)).toBe(false);
    expect(verifyEd25519('', RFC_SIGNATURE, flipBit(RFC_PUBLIC, 5))).toBe(false);
  });

  it('signs strings as their UTF-8 bytes', () => {
    const { publicKey, privateKey } = generateKeyPair();
    const text = 'Grüße from Zürich ✓';
    const signature = sign(text, privateKey);
    expect(verifyEd25519(utf8ToBytes(text), signature, publicKey)).toBe(true);
    expect(verifyEd25519(text.normalize('NFD'), signature, publicKey)).toBe(false);
  });

  it('returns false instead of throwing on malformed input', () => {
    expect(verifyEd25519('', RFC_SIGNATURE.subarray(0, 63), RFC_PUBLIC)).toBe(false);
    expect(verifyEd25519('', RFC_SIGNATURE, RFC_PUBLIC.subarray(0, 31))).toBe(false);
    expect(verifyEd25519('', new Uint8Array(64), new Uint8Array(32))).toBe(false);
    expect(verifyEd25519('', RFC_SIGNATURE, new Uint8Array(32).fill(0xff))).toBe(false);
  });

  it('refuses a signature whose scalar is not reduced (no malleable second form)', () => {
    // S + L, where L is the order of the Ed25519 base point: same equation, non-canonical form.
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const s = BigInt(`0x${bytesToHex(RFC_SIGNATURE.slice(32).reverse())}`) + L;
    const sBytes = hexToBytes(s.toString(16).padStart(64, '0')).reverse();
    const malleated = new Uint8Array([...RFC_SIGNATURE.subarray(0, 32), ...sBytes]);
    expect(verifyEd25519('', malleated, RFC_PUBLIC)).toBe(false);
  });

  it('verifies every signature it makes, and only for the signed message', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (m1, m2) => {
        const { publicKey, privateKey } = generateKeyPair();
        const signature = sign(m1, privateKey);
        expect(verifyEd25519(m1, signature, publicKey)).toBe(true);
        fc.pre(bytesToHex(m1) !== bytesToHex(m2));
        expect(verifyEd25519(m2, signature, publicKey)).toBe(false);
      }),
      { numRuns: 20 },
    );
  });
});

describe('keyControlsParty', () => {
  it('matches the key an external party is named after', () => {
    const party = partyIdFor('alice', RFC_PUBLIC);
    expect(keyControlsParty(party, RFC_PUBLIC)).toBe('fingerprint_match');
  });

  it('does not match another key, so the ledger has to be asked', () => {
    const party = partyIdFor('alice', RFC_PUBLIC);
    expect(keyControlsParty(party, generateKeyPair().publicKey)).toBe('fingerprint_mismatch');
  });

  it('does not match when the party id or key is malformed', () => {
    expect(keyControlsParty('alice', RFC_PUBLIC)).toBe('fingerprint_mismatch');
    const party = partyIdFor('alice', RFC_PUBLIC);
    expect(keyControlsParty(party, RFC_PUBLIC.subarray(0, 31))).toBe('fingerprint_mismatch');
  });
});
