import { hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../src/fingerprint.js';
import {
  checkPartyHint,
  isPartyId,
  PARTY_HINT_LENGTH_MAX,
  PARTY_ID_LENGTH_MAX,
  PartyIdError,
  parsePartyId,
  partyIdFor,
} from '../src/party-id.js';

// RFC 8032 §7.1 test 1 public key and its Canton fingerprint (docs/spec/auth.md#key-fingerprints).
const RFC8032_KEY = hexToBytes('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const RFC8032_FINGERPRINT = '1220035a791d845bbb8195615e7eccd7a57c2ec4075c2e88695f194bab4e0194a889';

function reasonOf(input: unknown): string {
  const result = parsePartyId(input);
  return result.ok ? 'ok' : result.reason;
}

const hintCharacter = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_-',
);
const anyHint = fc.string({
  unit: hintCharacter,
  minLength: 0,
  maxLength: PARTY_HINT_LENGTH_MAX + 5,
});
const anyKey = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe('partyIdFor', () => {
  it('names an external party by the fingerprint of its key (RFC 8032 test key)', () => {
    const id = partyIdFor('alice', RFC8032_KEY);
    expect(id).toBe(`alice::${RFC8032_FINGERPRINT}`);
    expect(parsePartyId(id)).toEqual({ ok: true, hint: 'alice', fingerprint: RFC8032_FINGERPRINT });
  });

  it('parsing gives back the hint and the key fingerprint for every acceptable hint', () => {
    fc.assert(
      fc.property(anyHint, anyKey, (hint, key) => {
        fc.pre(checkPartyHint(hint) === null);
        expect(parsePartyId(partyIdFor(hint, key))).toEqual({
          ok: true,
          hint,
          fingerprint: fingerprint(key),
        });
      }),
    );
  });

  it('accepts exactly the hints that make a valid party id', () => {
    fc.assert(
      fc.property(anyHint, (hint) => {
        const id = `${hint}::${RFC8032_FINGERPRINT}`;
        const parsed = parsePartyId(id);
        const roundTrips = parsed.ok && parsed.hint === hint;
        expect(checkPartyHint(hint) === null).toBe(roundTrips);
      }),
    );
  });

  it('refuses hints that could not be read back', () => {
    expect(() => partyIdFor('a::b', RFC8032_KEY)).toThrow(PartyIdError);
    expect(() => partyIdFor('', RFC8032_KEY)).toThrow(PartyIdError);
    expect(() => partyIdFor('alice', new Uint8Array(31))).toThrow(RangeError);
  });
});

describe('checkPartyHint', () => {
  it('accepts the alphabet, single colons and the longest hint that fits', () => {
    expect(checkPartyHint('Alice_01-x:y')).toBeNull();
    expect(checkPartyHint('a'.repeat(PARTY_HINT_LENGTH_MAX))).toBeNull();
  });

  it.each([
    ['', 'empty'],
    ['a'.repeat(PARTY_HINT_LENGTH_MAX + 1), 'too_long'],
    ['al ice', 'invalid_characters'],
    ['alice.bob', 'invalid_characters'],
    ['a::b', 'invalid_hint'],
    ['alice:', 'invalid_hint'],
    [':', 'invalid_hint'],
  ])('refuses %j (%s)', (hint, reason) => {
    expect(checkPartyHint(hint)?.reason).toBe(reason);
  });

  it('refuses non-strings', () => {
    expect(checkPartyHint(42)?.reason).toBe('not_a_string');
  });
});

describe('parsePartyId', () => {
  const fp = RFC8032_FINGERPRINT;

  it('accepts 255 characters and refuses 256', () => {
    const longest = `${'h'.repeat(PARTY_ID_LENGTH_MAX - 2 - fp.length)}::${fp}`;
    expect(longest).toHaveLength(255);
    expect(isPartyId(longest)).toBe(true);
    expect(reasonOf(`h${longest}`)).toBe('too_long');
  });

  it('splits at the first separator, as Canton does', () => {
    expect(parsePartyId(`a:b::${fp}`)).toEqual({ ok: true, hint: 'a:b', fingerprint: fp });
    expect(reasonOf(`a:::${fp}`)).toBe('invalid_fingerprint');
    expect(reasonOf(`a::b::${fp}`)).toBe('invalid_fingerprint');
  });

  it.each([
    [42, 'not_a_string'],
    [null, 'not_a_string'],
    ['', 'empty'],
    [`alice::${fp.toUpperCase()}`, 'invalid_fingerprint'],
    [`alice::1220${'A'.repeat(64)}`, 'invalid_fingerprint'],
    [`alice::${fp.slice(0, -1)}`, 'invalid_fingerprint'],
    [`alice::${fp}0`, 'invalid_fingerprint'],
    [`alice::1221${fp.slice(4)}`, 'invalid_fingerprint'],
    ['alice::', 'invalid_fingerprint'],
    [`::${fp}`, 'empty_hint'],
    [fp, 'missing_separator'],
    [`alice:${fp}`, 'missing_separator'],
    [`al ice::${fp}`, 'invalid_characters'],
    [`alice.bob::${fp}`, 'invalid_characters'],
    [`alicé::${fp}`, 'invalid_characters'],
    [`alice\n::${fp}`, 'invalid_characters'],
  ])('refuses %j (%s)', (input, reason) => {
    expect(reasonOf(input)).toBe(reason);
    expect(isPartyId(input)).toBe(false);
  });

  it('says why in words as well', () => {
    const result = parsePartyId(`::${fp}`);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/hint/);
  });
});
