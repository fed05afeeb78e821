/**
 * The decision of which signatures an execution needs and which it has, and the legs' joint
 * check: both pure, so each case is a table row.
 */
import { Amount, fingerprint, generateKeyPair, sign } from '@poolparty/core';
import type { TransferOffer } from '@poolparty/ledger';
import { describe, expect, it } from 'vitest';
import { signatureVerdict } from '../src/party-signatures.js';
import { type ExecutedLeg, type LegsState, legsRefusal } from '../src/prepared-execution.js';
import type { LedgerCommand } from '../src/token-standard-commands.js';

const hash = new Uint8Array(32).fill(3);
const alice = generateKeyPair();
const bob = generateKeyPair();
const mallory = generateKeyPair();
const keysOf = new Map([
  ['alice', [alice.publicKey]],
  ['bob', [bob.publicKey]],
]);

const signed = (key: { publicKey: Uint8Array; privateKey: Uint8Array }, message = hash) => ({
  signedBy: fingerprint(key.publicKey),
  bytes: sign(message, key.privateKey),
});

describe('signatureVerdict', () => {
  it('accepts one valid signature per external acting party, none from a local one', () => {
    const verdict = signatureVerdict({
      actAs: ['alice', 'bob', 'local'],
      keysOf,
      hash,
      signatures: [
        { party: 'alice', signatures: [signed(mallory), signed(alice)] },
        { party: 'bob', signatures: [signed(bob)] },
      ],
    });
    expect(verdict).toEqual({ accepted: true });
  });

  it.each([
    [
      'a missing signature',
      [{ party: 'alice', signatures: [signed(alice)] }],
      { missing: ['bob'] },
    ],
    [
      'another key’s signature',
      [
        { party: 'alice', signatures: [signed(alice)] },
        {
          party: 'bob',
          signatures: [{ ...signed(mallory), signedBy: fingerprint(bob.publicKey) }],
        },
      ],
      { invalid: ['bob'] },
    ],
    [
      'another party’s key',
      [
        { party: 'alice', signatures: [signed(alice)] },
        { party: 'bob', signatures: [signed(alice)] },
      ],
      { invalid: ['bob'] },
    ],
    [
      'a signature of another hash',
      [
        { party: 'alice', signatures: [signed(alice, new Uint8Array(32))] },
        { party: 'bob', signatures: [signed(bob)] },
      ],
      { invalid: ['alice'] },
    ],
    [
      'a signature by a party not acting',
      [
        { party: 'alice', signatures: [signed(alice)] },
        { party: 'bob', signatures: [signed(bob)] },
        { party: 'mallory', signatures: [signed(mallory)] },
      ],
      { strangers: ['mallory'] },
    ],
  ])('refuses %s', (_case, signatures, fault) => {
    const verdict = signatureVerdict({ actAs: ['alice', 'bob'], keysOf, hash, signatures });
    expect(verdict).toEqual({ accepted: false, missing: [], invalid: [], strangers: [], ...fault });
  });
});

const amulet = { admin: 'dso', id: 'Amulet' };
const now = new Date('2030-01-01T00:00:00Z');
const later = new Date('2030-01-02T00:00:00Z');

function transfer(sender: string, amount: number): ExecutedLeg {
  const command: LedgerCommand = {
    kind: 'transfer',
    factoryId: 'factory',
    sender,
    receiver: 'receiver',
    instrument: amulet,
    amount: Amount.of(amount),
    meta: {},
    inputHoldingIds: [],
    executeBefore: later,
  };
  return { command, actor: sender, exercise: {} };
}

const offer: TransferOffer = {
  offerId: 'offer-1',
  sender: 'alice',
  receiver: 'bob',
  instrument: amulet,
  amount: Amount.of(1),
  meta: {},
  executeBefore: later,
};

const state: LegsState = {
  now,
  unlocked: new Map([['alice/dso/Amulet', Amount.of(10)]]),
  pending: new Map([['offer-1', offer]]),
};

describe('legsRefusal', () => {
  it('lets legs commit that the state covers together', () => {
    const accept: ExecutedLeg = {
      command: { kind: 'accept', offerId: 'offer-1' },
      actor: 'bob',
      exercise: {},
    };
    expect(legsRefusal([transfer('alice', 4), transfer('alice', 6), accept], state)).toBeNull();
  });

  it.each([
    [
      'legs that together exceed the sender’s holdings',
      [transfer('alice', 4), transfer('alice', 7)],
    ],
    ['a sender holding nothing', [transfer('carol', 1)]],
    [
      'an instruction exercised twice',
      [
        { command: { kind: 'reject', offerId: 'offer-1' }, actor: 'bob', exercise: {} },
        { command: { kind: 'accept', offerId: 'offer-1' }, actor: 'bob', exercise: {} },
      ],
    ],
    [
      'an accept by the sender',
      [{ command: { kind: 'accept', offerId: 'offer-1' }, actor: 'alice', exercise: {} }],
    ],
    [
      'an instruction not pending',
      [{ command: { kind: 'withdraw', offerId: 'offer-2' }, actor: 'alice', exercise: {} }],
    ],
  ] as [string, ExecutedLeg[]][])('refuses %s', (_case, legs) => {
    expect(legsRefusal(legs, state)).toBeInstanceOf(Error);
  });

  it('refuses accepting an instruction past its deadline', () => {
    const accept: ExecutedLeg = {
      command: { kind: 'accept', offerId: 'offer-1' },
      actor: 'bob',
      exercise: {},
    };
    expect(legsRefusal([accept], { ...state, now: later })?.message).toContain('no longer');
  });
});
