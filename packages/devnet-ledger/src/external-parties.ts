/**
 * External-party onboarding (`/v2/parties/external/generate-topology` and `/allocate`): the
 * participant writes the topology transactions that make a key's holder a party it hosts, the
 * key's holder signs their multi-hash, and allocating checks every transaction is authorized by
 * that signature (or by its own) before the party exists.
 *
 * Devnet choices: the devnet synchronizer has one participant, so a party is hosted here alone
 * with confirmation rights (other participants, observation-only hosting and thresholds above
 * one are refused); a party's namespace must be its own key's (no existing or decentralized
 * namespaces); keys are Ed25519, given raw or as DER SubjectPublicKeyInfo.
 */
import {
  CryptoKeyFormat,
  Enums_TopologyChangeOp,
  SigningKeySpec,
  type SigningPublicKey,
  type TopologyTransaction,
} from '@canton-network/core-ledger-proto';
import { decodeBase64, fingerprint } from '@poolparty/core';
import { verifyEd25519Signature } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { invalidArgument, permissionDenied } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { SYNCHRONIZER_ID } from './identity.js';
import { arrayAt, type Json, objectAt, stringAt } from './request-body.js';
import {
  decodeTopologyTransaction,
  multiHash,
  onboardingTransactions,
  topologyTransactionHash,
} from './topology-transactions.js';

/** How many transactions, and signatures on each, one onboarding may carry. */
const ONBOARDING_ITEMS_MAX = 20;
const ED25519_SPEC = 'SIGNING_ALGORITHM_SPEC_ED25519';
/** DER SubjectPublicKeyInfo of an Ed25519 key: this prefix, then the 32 raw bytes. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The raw Ed25519 key of a request's `SigningPublicKey`. */
function rawKeyOf(value: unknown): Uint8Array {
  const key = objectAt(value, 'publicKey');
  if (key.keySpec !== 'SIGNING_KEY_SPEC_EC_CURVE25519') {
    throw invalidArgument('publicKey.keySpec must be SIGNING_KEY_SPEC_EC_CURVE25519 (Ed25519)');
  }
  const data = decodeBase64(stringAt(key.keyData, 'publicKey.keyData'));
  const format = stringAt(key.format, 'publicKey.format');
  if (data !== null && format === 'CRYPTO_KEY_FORMAT_RAW' && data.length === 32) return data;
  const der = data === null ? null : Buffer.from(data);
  if (
    der !== null &&
    format === 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO' &&
    der.length === 44 &&
    der.subarray(0, 12).equals(ED25519_SPKI_PREFIX)
  ) {
    return new Uint8Array(der.subarray(12));
  }
  throw invalidArgument(
    'publicKey must be an Ed25519 key, 32 raw bytes or DER SubjectPublicKeyInfo',
  );
}

/** Refuses hosting this devnet cannot give: elsewhere, observing only, or a higher threshold. */
function checkSingleHosting(body: Json, participantId: string): void {
  const others = [
    ...arrayAt(body.otherConfirmingParticipantUids ?? [], 'otherConfirmingParticipantUids'),
    ...arrayAt(body.observingParticipantUids ?? [], 'observingParticipantUids'),
  ];
  if (others.length > 0) {
    throw invalidArgument(`the devnet synchronizer has one participant, ${participantId}`);
  }
  if (body.localParticipantObservationOnly === true) {
    throw invalidArgument('the devnet participant hosts external parties with confirmation rights');
  }
  const threshold = body.confirmationThreshold ?? 0;
  if (threshold !== 0 && threshold !== 1) {
    throw invalidArgument('confirmationThreshold must be 1 with one confirming participant');
  }
}

function checkSynchronizer(value: unknown): void {
  if (stringAt(value, 'synchronizer') !== SYNCHRONIZER_ID) {
    throw invalidArgument(`the devnet participant is connected to ${SYNCHRONIZER_ID} only`);
  }
}

function requireParticipantAdmin(ctx: ServerContext, user: string): void {
  if (user !== ctx.users.defaultUser) {
    throw permissionDenied('only the participant administrator allocates external parties');
  }
}

const partyRoute = routeOf<ServerContext>();

const generateTopology = partyRoute({
  method: 'POST',
  url: '/v2/parties/external/generate-topology',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    checkSynchronizer(body.synchronizer);
    checkSingleHosting(body, ctx.participantId);
    const hint = stringAt(body.partyHint, 'partyHint');
    if (!/^[A-Za-z0-9_-]{1,185}$/.test(hint)) {
      throw invalidArgument('partyHint must be 1 to 185 of A-Z a-z 0-9 _ -', {
        field: 'partyHint',
      });
    }
    const rawKey = rawKeyOf(body.publicKey);
    const namespace = fingerprint(rawKey);
    const party = `${hint}::${namespace}`;
    const transactions = onboardingTransactions({
      party,
      namespace,
      rawKey,
      participantUid: ctx.participantId,
    });
    return {
      partyId: party,
      publicKeyFingerprint: namespace,
      topologyTransactions: transactions.map((tx) => Buffer.from(tx).toString('base64')),
      multiHash: Buffer.from(multiHash(transactions.map(topologyTransactionHash))).toString(
        'base64',
      ),
    };
  },
});

/** A signature as the request gives it: the signing key's fingerprint and the bytes. */
interface KeySignature {
  readonly signedBy: string;
  readonly bytes: Uint8Array;
}

function signaturesAt(value: unknown, path: string): KeySignature[] {
  const list = arrayAt(value ?? [], path);
  if (list.length > ONBOARDING_ITEMS_MAX)
    throw invalidArgument(`${path} holds over ${ONBOARDING_ITEMS_MAX}`);
  return list.map((entry, index) => {
    const signature = objectAt(entry, `${path}[${index}]`);
    if (signature.signingAlgorithmSpec !== ED25519_SPEC) {
      throw invalidArgument(`${path}[${index}].signingAlgorithmSpec must be ${ED25519_SPEC}`);
    }
    const bytes = decodeBase64(stringAt(signature.signature, `${path}[${index}].signature`));
    if (bytes === null) throw invalidArgument(`${path}[${index}].signature is not base64`);
    return { signedBy: stringAt(signature.signedBy, `${path}[${index}].signedBy`), bytes };
  });
}

/** One onboarding transaction: decoded, its hash, and the signatures it carries itself. */
interface Onboarding {
  readonly transaction: TopologyTransaction;
  readonly hash: Uint8Array;
  readonly signatures: readonly KeySignature[];
}

function onboardingsOf(value: unknown): Onboarding[] {
  const list = arrayAt(value, 'onboardingTransactions');
  if (list.length === 0 || list.length > ONBOARDING_ITEMS_MAX) {
    throw invalidArgument(
      `onboardingTransactions must hold 1 to ${ONBOARDING_ITEMS_MAX} transactions`,
    );
  }
  return list.map((entry, index) => {
    const path = `onboardingTransactions[${index}]`;
    const signed = objectAt(entry, path);
    const serialized = decodeBase64(stringAt(signed.transaction, `${path}.transaction`));
    if (serialized === null) throw invalidArgument(`${path}.transaction is not base64`);
    return {
      transaction: decodeTopologyTransaction(serialized, `${path}.transaction`),
      hash: topologyTransactionHash(serialized),
      signatures: signaturesAt(signed.signatures, `${path}.signatures`),
    };
  });
}

/** A topology transaction's key as raw Ed25519 bytes, or null when it is another kind of key. */
function rawOfTopologyKey(key: SigningPublicKey | undefined): Uint8Array | null {
  if (key === undefined || key.keySpec !== SigningKeySpec.EC_CURVE25519) return null;
  if (key.format === CryptoKeyFormat.RAW && key.publicKey.length === 32) return key.publicKey;
  const der = Buffer.from(key.publicKey);
  const spki = CryptoKeyFormat.DER_X509_SUBJECT_PUBLIC_KEY_INFO;
  if (key.format === spki && der.length === 44 && der.subarray(0, 12).equals(ED25519_SPKI_PREFIX)) {
    return new Uint8Array(der.subarray(12));
  }
  return null;
}

/** What the onboarding transactions establish: the party and the key of its namespace. */
function partyOfOnboardings(onboardings: readonly Onboarding[], participantId: string) {
  const mappings = onboardings.map(({ transaction }) => {
    if (transaction.operation !== Enums_TopologyChangeOp.ADD_REPLACE) {
      throw invalidArgument('onboarding transactions add mappings; none removes one');
    }
    return transaction.mapping?.mapping ?? { oneofKind: undefined };
  });
  const hosting = mappings.flatMap((m) =>
    m.oneofKind === 'partyToParticipant' ? [m.partyToParticipant] : [],
  );
  const [only] = hosting;
  if (hosting.length !== 1 || only === undefined) {
    throw invalidArgument('onboardingTransactions must hold one PartyToParticipant');
  }
  const here = only.participants.filter((p) => p.participantUid === participantId);
  if (only.participants.length !== 1 || here.length !== 1 || only.threshold > 1) {
    throw invalidArgument(`the party must be hosted by ${participantId} alone, threshold 1`);
  }
  const namespace = only.party.slice(only.party.indexOf('::') + 2);
  const namespaceKeys = mappings.flatMap((m) =>
    m.oneofKind === 'namespaceDelegation' && m.namespaceDelegation.namespace === namespace
      ? [rawOfTopologyKey(m.namespaceDelegation.targetKey)]
      : [],
  );
  const key = namespaceKeys[0];
  if (namespaceKeys.length !== 1 || key == null || fingerprint(key) !== namespace) {
    throw invalidArgument(
      `the party's namespace ${namespace} must be delegated to the Ed25519 key it is the fingerprint of`,
    );
  }
  for (const m of mappings) {
    if (m.oneofKind === 'namespaceDelegation' || m.oneofKind === 'partyToParticipant') continue;
    const keys =
      m.oneofKind === 'partyToKeyMapping'
        ? m.partyToKeyMapping.signingKeys.map(rawOfTopologyKey)
        : [];
    if (keys.length !== 1 || keys[0] == null || fingerprint(keys[0]) !== namespace) {
      throw invalidArgument(
        'besides the namespace and the hosting, only a PartyToKeyMapping to the namespace key',
      );
    }
  }
  return { party: only.party, hint: only.party.slice(0, only.party.indexOf('::')), key };
}

/** Whether `key` signed every transaction, each itself or all at once by their multi-hash. */
function signedByKey(
  onboardings: readonly Onboarding[],
  multiSignatures: readonly KeySignature[],
  key: Uint8Array,
): boolean {
  const signedBy = fingerprint(key);
  const verifies = (message: Uint8Array) => (signature: KeySignature) =>
    signature.signedBy === signedBy && verifyEd25519Signature(message, signature.bytes, key);
  const all = multiHash(onboardings.map((o) => o.hash));
  if (multiSignatures.some(verifies(all))) return true;
  return onboardings.every((o) => o.signatures.some(verifies(o.hash)));
}

const allocateExternalParty = partyRoute({
  method: 'POST',
  url: '/v2/parties/external/allocate',
  handler: async (ctx, request) => {
    requireParticipantAdmin(ctx, userOf(request));
    const body = objectAt(request.body, 'body');
    checkSynchronizer(body.synchronizer);
    const onboardings = onboardingsOf(body.onboardingTransactions);
    const multiSignatures = signaturesAt(body.multiHashSignatures, 'multiHashSignatures');
    const { party, hint, key } = partyOfOnboardings(onboardings, ctx.participantId);
    if (!signedByKey(onboardings, multiSignatures, key)) {
      throw invalidArgument(
        `the onboarding transactions are not all signed by the key of ${party}`,
        {
          party,
        },
      );
    }
    try {
      await ctx.ledger.createParty({ hint, publicKey: key });
    } catch (error) {
      if (error instanceof RangeError) throw invalidArgument(error.message, { party });
      throw error;
    }
    return { partyId: party };
  },
});

export async function externalPartyRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  registerRoutes(app, ctx, [generateTopology, allocateExternalParty]);
}
