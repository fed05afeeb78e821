import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeBase64,
  fingerprint,
  generateKeyPair,
  PARTY_KEYS_MAX,
  readPartyKeys,
} from '../src/index.js';

const partyOf = (hint: string, publicKey: Uint8Array) => `${hint}::${fingerprint(publicKey)}`;

describe('readPartyKeys', () => {
  it('reads each party’s key pair when the key is the party’s own', () => {
    const [a, b] = [generateKeyPair(), generateKeyPair()];
    const reading = readPartyKeys({
      [partyOf('swap-pool', a.publicKey)]: encodeBase64(a.privateKey),
      [partyOf('lp-pool', b.publicKey)]: encodeBase64(b.privateKey),
    });
    expect(reading.ok).toBe(true);
    if (!reading.ok) return;
    expect(reading.keys.get(partyOf('swap-pool', a.publicKey))?.publicKey).toEqual(a.publicKey);
    expect(reading.keys.get(partyOf('lp-pool', b.publicKey))?.privateKey).toEqual(b.privateKey);
  });

  it.each([
    [[], 'it must be a JSON object'],
    [null, 'it must be a JSON object'],
    ['text', 'it must be a JSON object'],
    [{ 'not a party': 'AAAA' }, 'not a party is not a party id'],
  ])('refuses %j', (json, problem) => {
    const reading = readPartyKeys(json);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.problems.join('\n')).toContain(problem);
  });

  it('refuses a key filed under another party, and one that is not 32 bytes, naming each party', () => {
    const [a, b] = [generateKeyPair(), generateKeyPair()];
    const wrong = partyOf('swap-pool', a.publicKey);
    const short = partyOf('lp-pool', b.publicKey);
    const reading = readPartyKeys({
      [wrong]: encodeBase64(b.privateKey),
      [short]: encodeBase64(b.privateKey.slice(0, 16)),
    });
    expect(reading).toEqual({
      ok: false,
      problems: [
        `the key of ${wrong} is not that party's: its fingerprint is not the party id's namespace`,
        `the key of ${short} is not the base64 of a 32-byte Ed25519 secret key`,
      ],
    });
  });

  it(`refuses more than ${PARTY_KEYS_MAX} parties`, () => {
    const many = Object.fromEntries(
      Array.from({ length: PARTY_KEYS_MAX + 1 }, (_, i) => [`p${i}::1220${'0'.repeat(64)}`, '']),
    );
    const reading = readPartyKeys(many);
    expect(reading.ok).toBe(false);
  });

  it('never puts a key in what it says of a bad file', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), (secret, swap) => {
        const other = generateKeyPair();
        const party = partyOf('pool', other.publicKey);
        const text = encodeBase64(swap ? secret : secret.slice(0, 31));
        const reading = readPartyKeys({ [party]: text });
        expect(reading.ok).toBe(false);
        if (!reading.ok) expect(reading.problems.join('\n')).not.toContain(text);
      }),
      { numRuns: 50 },
    );
  });
});
