/**
 * Parties, their signing keys, instruments and transfer pre-approvals of the local ledger.
 *
 * Party ids follow Canton: `<hint>::<namespace>`. An external party's namespace is the
 * fingerprint of its own Ed25519 key; an internal party lives in the operator's namespace.
 * Creating a party whose id already exists is idempotent: it returns the existing party and
 * changes nothing (the request's pre-approvals are ignored; use `setPreapproval`), since the
 * same hint and key always name the same party.
 */
import {
  ED25519_PUBLIC_KEY_BYTES,
  fingerprint,
  type Instrument,
  instrumentKey,
} from '@poolparty/core';
import type { CommandResult } from '../port.js';
import type {
  AddSigningKeyEntry,
  CreateInstrumentEntry,
  CreatePartyEntry,
  PreapprovalCommandEntry,
  SetPreapprovalEntry,
} from './entries.js';
import {
  type LedgerState,
  recordCompletion,
  recordUpdate,
  requireInstrument,
  requireParty,
} from './state.js';

const PARTY_HINT = /^[A-Za-z0-9_-]+$/;
/** 255 characters of party id, less `::` and a 68-character fingerprint. */
const PARTY_HINT_LENGTH_MAX = 185;
const NAMESPACE = /^1220[0-9a-f]{64}$/;

function checkHint(hint: unknown): string {
  if (typeof hint !== 'string' || !PARTY_HINT.test(hint)) {
    throw new RangeError(`party hint must be a non-empty string of A-Z a-z 0-9 _ -`);
  }
  if (hint.length > PARTY_HINT_LENGTH_MAX) {
    throw new RangeError(
      `party hint has ${hint.length} characters, at most ${PARTY_HINT_LENGTH_MAX}`,
    );
  }
  return hint;
}

export function checkNamespace(namespace: string): string {
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError('operator namespace must be 1220 + 64 lowercase hex digits');
  }
  return namespace;
}

export function checkPublicKey(key: unknown): Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new RangeError('a signing key is a raw 32-byte Ed25519 public key');
  }
  return key;
}

export function keyHex(key: Uint8Array): string {
  return Buffer.from(key).toString('hex');
}

/** The party id a `createParty` request names. */
export function partyIdOf(
  hint: string,
  publicKey: Uint8Array | undefined,
  operatorNamespace: string,
): string {
  const namespace = publicKey ? fingerprint(checkPublicKey(publicKey)) : operatorNamespace;
  return `${checkHint(hint)}::${namespace}`;
}

export function checkInstrument(instrument: Instrument): Instrument {
  const { admin, id } = instrument ?? {};
  if (
    typeof admin !== 'string' ||
    admin.length === 0 ||
    typeof id !== 'string' ||
    id.length === 0
  ) {
    throw new RangeError('an instrument needs a non-empty admin and id');
  }
  return { admin, id };
}

export function applyCreateParty(state: LedgerState, entry: CreatePartyEntry): void {
  if (state.parties.has(entry.partyId)) return;
  const listed = entry.preapprovals === 'all' ? [] : entry.preapprovals;
  for (const instrument of listed) requireInstrument(state, instrument);
  state.parties.set(entry.partyId, {
    partyId: entry.partyId,
    kind: entry.publicKey === null ? 'internal' : 'external',
    signingKeys: new Set(entry.publicKey === null ? [] : [entry.publicKey]),
    preapproveAll: entry.preapprovals === 'all',
    preapproved: new Set(listed.map(instrumentKey)),
    notPreapproved: new Set(),
  });
}

export function applyAddSigningKey(state: LedgerState, entry: AddSigningKeyEntry): void {
  requireParty(state, entry.partyId).signingKeys.add(entry.publicKey);
}

export function applyCreateInstrument(state: LedgerState, entry: CreateInstrumentEntry): void {
  const key = instrumentKey(entry.instrument);
  if (!state.instruments.has(key)) state.instruments.set(key, { ...entry.instrument });
}

export function applySetPreapproval(state: LedgerState, entry: SetPreapprovalEntry): void {
  const party = requireParty(state, entry.receiver);
  const key = instrumentKey(requireInstrument(state, entry.instrument));
  const [add, remove] = entry.enabled
    ? [party.preapproved, party.notPreapproved]
    : [party.notPreapproved, party.preapproved];
  add.add(key);
  remove.delete(key);
}

/**
 * A command that pre-approves the instrument for its receiver: an update of its own (with no
 * port event: no value moves), so the submitter has an offset and a completion.
 */
export function applyPreapprovalCommand(
  state: LedgerState,
  entry: PreapprovalCommandEntry,
): CommandResult {
  const { receiver, instrument } = entry;
  applySetPreapproval(state, { op: 'setPreapproval', receiver, instrument, enabled: true });
  const result = recordUpdate(state, entry.at, entry.commandId, []);
  recordCompletion(state, entry.commandId, result);
  return result;
}
