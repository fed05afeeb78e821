import { generateKeyPair, sign, verifyEd25519 } from '@poolparty/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyEd25519Signature } from '../src/ed25519.js';

const message = fc.uint8Array({ minLength: 0, maxLength: 200 });

describe('the ledger packages check Ed25519 signatures as core does', () => {
  it('accepts the signature of the key, of the message', () => {
    fc.assert(
      fc.property(message, (bytes) => {
        const { publicKey, privateKey } = generateKeyPair();
        const signature = sign(bytes, privateKey);
        expect(verifyEd25519Signature(bytes, signature, publicKey)).toBe(true);
        expect(verifyEd25519(bytes, signature, publicKey)).toBe(true);
      }),
    );
  });

  it('refuses a changed byte of the message or the signature, or another key, as core does', () => {
    fc.assert(
      fc.property(message, fc.nat(), (bytes, at) => {
        const { publicKey, privateKey } = generateKeyPair();
        const signature = sign(bytes, privateKey);
        const cases: [Uint8Array, Uint8Array, Uint8Array][] = [
          [bytes, flip(signature, at), publicKey],
          [bytes, signature, generateKeyPair().publicKey],
        ];
        if (bytes.length > 0) cases.push([flip(bytes, at), signature, publicKey]);
        for (const [m, s, k] of cases) {
          expect(verifyEd25519Signature(m, s, k)).toBe(verifyEd25519(m, s, k));
        }
      }),
    );
  });

  it('refuses keys and signatures of the wrong length', () => {
    const { publicKey, privateKey } = generateKeyPair();
    const signature = sign(new Uint8Array([1]), privateKey);
    expect(verifyEd25519Signature(new Uint8Array([1]), signature.slice(1), publicKey)).toBe(false);
    expect(verifyEd25519Signature(new Uint8Array([1]), signature, publicKey.slice(1))).toBe(false);
  });
});

function flip(bytes: Uint8Array, at: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  const index = at % copy.length;
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}
