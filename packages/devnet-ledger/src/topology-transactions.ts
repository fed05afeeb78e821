/**
 * The topology transactions that onboard an external party, as Canton's protobuf
 * `com.digitalasset.canton.protocol.v30.TopologyTransaction` inside an `UntypedVersionedMessage`
 * (the version a synchronizer of protocol 34 speaks): the party's namespace, delegated to its key
 * (the namespace is the key's fingerprint); the party's signing key; and the party's hosting on
 * this participant with confirmation rights.
 *
 * Hashes, as Canton computes them: each transaction's is SHA-256 over the hash purpose
 * `TopologyTransactionSignature` (11) and the serialized transaction, in multihash form
 * (`0x12 0x20` + digest); the multi-hash a key may sign instead of each transaction is the same
 * over purpose `MultiTopologyTransaction` (55) and the transactions' hashes, sorted, each
 * length-prefixed, after their count.
 */
import { createHash } from 'node:crypto';
import {
  CryptoKeyFormat,
  Enums_ParticipantPermission,
  Enums_TopologyChangeOp,
  SigningKeyScheme,
  SigningKeySpec,
  SigningKeyUsage,
  type SigningPublicKey,
  TopologyTransaction,
} from '@canton-network/core-ledger-proto';
import { BinaryReader, BinaryWriter, WireType } from '@protobuf-ts/runtime';
import { invalidArgument } from './canton-errors.js';

/** The protobuf version a topology transaction is serialized in (Canton's `v30` messages). */
const TOPOLOGY_PROTO_VERSION = 30;
const PURPOSE_TOPOLOGY_TRANSACTION = 11;
const PURPOSE_MULTI_TOPOLOGY_TRANSACTION = 55;
const MULTIHASH_SHA256 = Uint8Array.of(0x12, 0x20);

/** Canton's hash of `bytes` for `purpose`, in multihash form. */
function cantonHash(purpose: number, bytes: Uint8Array): Uint8Array {
  const prefix = new Uint8Array(4);
  new DataView(prefix.buffer).setInt32(0, purpose, false);
  const digest = createHash('sha256').update(prefix).update(bytes).digest();
  return new Uint8Array([...MULTIHASH_SHA256, ...digest]);
}

export function topologyTransactionHash(serialized: Uint8Array): Uint8Array {
  return cantonHash(PURPOSE_TOPOLOGY_TRANSACTION, serialized);
}

/** The multi-hash of several transactions' hashes: what a key signs to authorize them all. */
export function multiHash(hashes: readonly Uint8Array[]): Uint8Array {
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  const sorted = [...hashes].sort((a, b) => hex(a).localeCompare(hex(b)));
  const parts: Uint8Array[] = [int32(sorted.length)];
  for (const hash of sorted) parts.push(int32(hash.length), hash);
  return cantonHash(PURPOSE_MULTI_TOPOLOGY_TRANSACTION, Buffer.concat(parts));
}

function int32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setInt32(0, value, false);
  return bytes;
}

/** An Ed25519 key as a topology transaction names it, for the given use. */
function signingKey(rawKey: Uint8Array, usage: SigningKeyUsage): SigningPublicKey {
  return {
    format: CryptoKeyFormat.RAW,
    publicKey: rawKey,
    scheme: SigningKeyScheme.UNSPECIFIED,
    usage: [usage],
    keySpec: SigningKeySpec.EC_CURVE25519,
  };
}

/** `UntypedVersionedMessage { bytes data = 1; int32 version = 2; }` around a transaction. */
function versioned(transaction: TopologyTransaction): Uint8Array {
  const data = TopologyTransaction.toBinary(transaction);
  return new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .bytes(data)
    .tag(2, WireType.Varint)
    .int32(TOPOLOGY_PROTO_VERSION)
    .finish();
}

/** The transaction a serialized `UntypedVersionedMessage` holds; INVALID_ARGUMENT otherwise. */
export function decodeTopologyTransaction(
  serialized: Uint8Array,
  path: string,
): TopologyTransaction {
  try {
    const reader = new BinaryReader(serialized);
    let data: Uint8Array | undefined;
    let version: number | undefined;
    while (reader.pos < reader.len) {
      const [field, wireType] = reader.tag();
      if (field === 1 && wireType === WireType.LengthDelimited) data = reader.bytes();
      else if (field === 2 && wireType === WireType.Varint) version = reader.int32();
      else reader.skip(wireType);
    }
    if (data === undefined || version !== TOPOLOGY_PROTO_VERSION) throw new Error('version');
    return TopologyTransaction.fromBinary(data);
  } catch {
    throw invalidArgument(
      `${path} is not a version ${TOPOLOGY_PROTO_VERSION} topology transaction`,
      {
        field: path,
      },
    );
  }
}

/** The three transactions that onboard `party` (namespace `namespace`) with key `rawKey`. */
export function onboardingTransactions(input: {
  readonly party: string;
  readonly namespace: string;
  readonly rawKey: Uint8Array;
  readonly participantUid: string;
}): Uint8Array[] {
  const add = (mapping: TopologyTransaction['mapping']) =>
    versioned({ operation: Enums_TopologyChangeOp.ADD_REPLACE, serial: 1, mapping });
  return [
    add({
      mapping: {
        oneofKind: 'namespaceDelegation',
        namespaceDelegation: {
          namespace: input.namespace,
          targetKey: signingKey(input.rawKey, SigningKeyUsage.NAMESPACE),
          isRootDelegation: true,
          restriction: { oneofKind: 'canSignAllMappings', canSignAllMappings: {} },
        },
      },
    }),
    add({
      mapping: {
        oneofKind: 'partyToKeyMapping',
        partyToKeyMapping: {
          party: input.party,
          threshold: 1,
          signingKeys: [signingKey(input.rawKey, SigningKeyUsage.PROTOCOL)],
        },
      },
    }),
    add({
      mapping: {
        oneofKind: 'partyToParticipant',
        partyToParticipant: {
          party: input.party,
          threshold: 1,
          participants: [
            {
              participantUid: input.participantUid,
              permission: Enums_ParticipantPermission.CONFIRMATION,
            },
          ],
        },
      },
    }),
  ];
}
