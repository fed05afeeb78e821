/**
 * Canton's hash of a prepared transaction, hashing scheme V2 ("External Signing Hashing
 * Algorithm"): not a hash of the protobuf bytes (protobuf is not canonical) but of a
 * deterministic encoding of every field that decides what the transaction does. The external
 * party signs this hash; a wallet recomputes it from the prepared transaction it was given, so
 * the participant cannot have it sign something else.
 *
 * Encoding, as the specification defines it: integers big-endian (int32 lengths, int64 times),
 * strings and byte strings length-prefixed, contract ids as the bytes their hex spells,
 * optionals as a 0/1 marker then the value, repeated fields as a count then the items, and each
 * node as the SHA-256 of its own encoding, so a parent commits to its children by hash.
 */
import { createHash } from 'node:crypto';
import type {
  Create,
  DamlTransaction,
  DamlTransaction_Node,
  Exercise,
  Fetch,
  Identifier,
  Metadata,
  PreparedTransaction,
  Value,
} from '@canton-network/core-ledger-proto';
import { BaseError } from '@poolparty/core';

/** The hash purpose of a prepared transaction (Canton's `HashPurpose.PreparedSubmission`). */
const PREPARED_TRANSACTION_PURPOSE = Uint8Array.of(0x00, 0x00, 0x00, 0x30);
const HASHING_SCHEME_V2 = 0x02;
const NODE_ENCODING_V1 = 0x01;
const METADATA_ENCODING_V1 = 0x01;
/** How deep nodes and values may nest: a hostile prepared transaction must not exhaust the stack. */
export const NESTING_MAX = 100;
/** How many node encodings one hash may take: a node listed as a child many times is hashed each time. */
const NODE_VISITS_MAX = 10_000;
/** How many input contracts one transaction may list (each is hashed as a create node). */
const INPUT_CONTRACTS_MAX = 10_000;

/** Why a prepared transaction cannot be hashed: it is not one Canton could have prepared. */
export class UnhashableTransaction extends BaseError<'transaction_unhashable'> {
  constructor(message: string) {
    super('transaction_unhashable', message);
  }
}

/** The first size of an encoding's buffer; it doubles as the encoding grows. */
const ENCODING_START_BYTES = 256;

/**
 * The encoded fields of one message, in order, written into one buffer that doubles as it fills:
 * a prepared transaction's hash writes thousands of small fields, and a buffer per field (and a
 * hash update per buffer) cost more than the hashing itself.
 */
class Encoding {
  private buffer = Buffer.allocUnsafe(ENCODING_START_BYTES);
  private length = 0;

  /** Room for `bytes` more; answers where they go (read `buffer` after: it may be a new one). */
  private reserve(bytes: number): number {
    const at = this.length;
    if (at + bytes > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, at + bytes));
      this.buffer.copy(grown, 0, 0, at);
      this.buffer = grown;
    }
    this.length = at + bytes;
    return at;
  }
  byte(value: number): this {
    const at = this.reserve(1);
    this.buffer[at] = value;
    return this;
  }
  raw(bytes: Uint8Array): this {
    const at = this.reserve(bytes.length);
    this.buffer.set(bytes, at);
    return this;
  }
  int32(value: number): this {
    const at = this.reserve(4);
    this.buffer.writeInt32BE(value, at);
    return this;
  }
  int64(value: bigint | string | number): this {
    const at = this.reserve(8);
    this.buffer.writeBigInt64BE(BigInt(value), at);
    return this;
  }
  bytes(value: Uint8Array): this {
    return this.int32(value.length).raw(value);
  }
  string(value: string): this {
    const size = Buffer.byteLength(value, 'utf8');
    this.int32(size);
    const at = this.reserve(size);
    this.buffer.write(value, at, size, 'utf8');
    return this;
  }
  /**
   * A contract id as the bytes its hex spells. A participant's ids are hex; the devnet's are
   * text, and wallets read them as they read any id, pair by pair, so the hash encodes the bytes
   * that reading makes (a pair that is not hex reads as what its leading hex digits say, or 0;
   * an odd last character is dropped). Those bytes bind the id's digest part, and execution runs
   * only contracts the ledger has, so an id changed to another with the same reading is refused.
   */
  contractId(value: string): this {
    const size = Math.floor(value.length / 2);
    this.int32(size);
    const at = this.reserve(size);
    for (let n = 0; n < size; n++) {
      // Stored as a Uint8Array stores it: NaN as 0 and a negative pair reading wrapped, as the
      // wallets' reader does.
      this.buffer[at + n] = Number.parseInt(value.slice(2 * n, 2 * n + 2), 16) & 0xff;
    }
    return this;
  }
  strings(values: readonly string[]): this {
    this.int32(values.length);
    for (const value of values) this.string(value);
    return this;
  }
  optional<T>(value: T | undefined, encode: (value: T) => void): this {
    if (value === undefined) return this.byte(0);
    this.byte(1);
    encode(value);
    return this;
  }
  digest(): Uint8Array {
    const hash = createHash('sha256').update(this.buffer.subarray(0, this.length)).digest();
    return new Uint8Array(hash.buffer, hash.byteOffset, hash.length);
  }
}

function identifier(out: Encoding, id: Identifier | undefined): void {
  if (id === undefined) throw new UnhashableTransaction('a node names no template');
  out.string(id.packageId).strings(id.moduleName.split('.')).strings(id.entityName.split('.'));
}

/** A Daml value, tagged by its kind. */
function value(out: Encoding, v: Value | undefined, depth: number): void {
  if (v === undefined) throw new UnhashableTransaction('a value is missing');
  if (depth > NESTING_MAX)
    throw new UnhashableTransaction(`values nest deeper than ${NESTING_MAX}`);
  const { sum } = v;
  const inner = (item: Value | undefined) => value(out, item, depth + 1);
  switch (sum.oneofKind) {
    case 'unit':
      out.byte(0);
      break;
    case 'bool':
      out.byte(1).byte(sum.bool ? 1 : 0);
      break;
    case 'int64':
      out.byte(2).int64(sum.int64);
      break;
    case 'numeric':
      out.byte(3).string(sum.numeric);
      break;
    case 'timestamp':
      out.byte(4).int64(sum.timestamp);
      break;
    case 'date':
      out.byte(5).int32(sum.date);
      break;
    case 'party':
      out.byte(6).string(sum.party);
      break;
    case 'text':
      out.byte(7).string(sum.text);
      break;
    case 'contractId':
      out.byte(8).contractId(sum.contractId);
      break;
    default:
      containerValue(out, v, inner);
  }
}

/** Optionals, lists, maps, records, variants and enums: values that hold or name others. */
function containerValue(out: Encoding, { sum }: Value, inner: (v: Value | undefined) => void) {
  const typeId = (id: Identifier) => identifier(out, id);
  switch (sum.oneofKind) {
    case 'optional':
      out.byte(9).optional(sum.optional.value, inner);
      break;
    case 'list':
      out.byte(10).int32(sum.list.elements.length);
      for (const element of sum.list.elements) inner(element);
      break;
    case 'textMap':
      out.byte(11).int32(sum.textMap.entries.length);
      for (const entry of sum.textMap.entries) {
        out.string(entry.key);
        inner(entry.value);
      }
      break;
    case 'record':
      out.byte(12).optional(sum.record.recordId, typeId).int32(sum.record.fields.length);
      // A protobuf string is never absent, so every label is encoded as present.
      for (const field of sum.record.fields) {
        out.byte(1).string(field.label);
        inner(field.value);
      }
      break;
    case 'variant':
      out.byte(13).optional(sum.variant.variantId, typeId).string(sum.variant.constructor);
      inner(sum.variant.value);
      break;
    case 'enum':
      out.byte(14).optional(sum.enum.enumId, typeId).string(sum.enum.constructor);
      break;
    case 'genMap':
      out.byte(15).int32(sum.genMap.entries.length);
      for (const entry of sum.genMap.entries) {
        inner(entry.key);
        inner(entry.value);
      }
      break;
    default:
      throw new UnhashableTransaction(`a value of unknown kind ${String(sum.oneofKind)}`);
  }
}

function encodeValue(out: Encoding, v: Value | undefined): void {
  value(out, v, 0);
}

/** Hashes nodes by id, each once per reference, no deeper than `NESTING_MAX`. */
class NodeHasher {
  private readonly nodes = new Map<string, DamlTransaction_Node>();
  private readonly seeds = new Map<string, Uint8Array>();
  private visits = 0;

  constructor(transaction: DamlTransaction) {
    for (const node of transaction.nodes) this.nodes.set(node.nodeId, node);
    for (const seed of transaction.nodeSeeds) this.seeds.set(String(seed.nodeId), seed.seed);
  }

  hashOf(nodeId: string, depth: number): Uint8Array {
    if (depth > NESTING_MAX) {
      throw new UnhashableTransaction(`nodes nest deeper than ${NESTING_MAX}`);
    }
    this.visits += 1;
    if (this.visits > NODE_VISITS_MAX) {
      throw new UnhashableTransaction(`the transaction lists nodes over ${NODE_VISITS_MAX} times`);
    }
    const node = this.nodes.get(nodeId);
    if (node === undefined) throw new UnhashableTransaction(`no node ${nodeId} in the transaction`);
    if (node.versionedNode.oneofKind !== 'v1') {
      throw new UnhashableTransaction(`node ${nodeId} is not of node version 1`);
    }
    const type = node.versionedNode.v1.nodeType;
    switch (type.oneofKind) {
      case 'create':
        return createNode(type.create, this.seeds.get(nodeId)).digest();
      case 'exercise':
        return this.exerciseNode(type.exercise, nodeId, depth).digest();
      case 'fetch':
        return fetchNode(type.fetch).digest();
      case 'rollback': {
        const out = new Encoding().byte(NODE_ENCODING_V1).byte(3);
        return this.children(out, type.rollback.children, depth).digest();
      }
      default:
        throw new UnhashableTransaction(`node ${nodeId} is of no known type`);
    }
  }

  children(out: Encoding, children: readonly string[], depth: number): Encoding {
    out.int32(children.length);
    for (const child of children) out.raw(this.hashOf(child, depth + 1));
    return out;
  }

  private exerciseNode(exercise: Exercise, nodeId: string, depth: number): Encoding {
    const seed = this.seeds.get(nodeId);
    if (seed === undefined) throw new UnhashableTransaction(`exercise node ${nodeId} has no seed`);
    const out = new Encoding().byte(NODE_ENCODING_V1).string(exercise.lfVersion).byte(1).raw(seed);
    out.contractId(exercise.contractId).string(exercise.packageName);
    identifier(out, exercise.templateId);
    out.strings(exercise.signatories).strings(exercise.stakeholders);
    out.strings(exercise.actingParties).optional(exercise.interfaceId, (id) => identifier(out, id));
    out.string(exercise.choiceId);
    encodeValue(out, exercise.chosenValue);
    out.byte(exercise.consuming ? 1 : 0);
    out.optional(exercise.exerciseResult, (result) => encodeValue(out, result));
    out.strings(exercise.choiceObservers);
    return this.children(out, exercise.children, depth);
  }
}

function createNode(create: Create, seed: Uint8Array | undefined): Encoding {
  const out = new Encoding().byte(NODE_ENCODING_V1).string(create.lfVersion).byte(0);
  out.optional(seed, (bytes) => out.raw(bytes));
  out.contractId(create.contractId).string(create.packageName);
  identifier(out, create.templateId);
  encodeValue(out, create.argument);
  return out.strings(create.signatories).strings(create.stakeholders);
}

function fetchNode(fetch: Fetch): Encoding {
  const out = new Encoding().byte(NODE_ENCODING_V1).string(fetch.lfVersion).byte(2);
  out.contractId(fetch.contractId).string(fetch.packageName);
  identifier(out, fetch.templateId);
  out.strings(fetch.signatories).strings(fetch.stakeholders);
  out.optional(fetch.interfaceId, (id) => identifier(out, id));
  return out.strings(fetch.actingParties);
}

function transactionHash(transaction: DamlTransaction): Uint8Array {
  const hasher = new NodeHasher(transaction);
  const out = new Encoding().raw(PREPARED_TRANSACTION_PURPOSE).string(transaction.version);
  return hasher.children(out, transaction.roots, 0).digest();
}

function metadataHash(metadata: Metadata): Uint8Array {
  const out = new Encoding().raw(PREPARED_TRANSACTION_PURPOSE).byte(METADATA_ENCODING_V1);
  out.strings(metadata.submitterInfo?.actAs ?? []).string(metadata.submitterInfo?.commandId ?? '');
  out
    .string(metadata.transactionUuid)
    .int32(metadata.mediatorGroup)
    .string(metadata.synchronizerId);
  out.optional(metadata.minLedgerEffectiveTime, (time) => out.int64(time));
  out.optional(metadata.maxLedgerEffectiveTime, (time) => out.int64(time));
  if (metadata.inputContracts.length > INPUT_CONTRACTS_MAX) {
    throw new UnhashableTransaction(
      `the transaction lists over ${INPUT_CONTRACTS_MAX} input contracts`,
    );
  }
  out.int64(metadata.preparationTime).int32(metadata.inputContracts.length);
  for (const input of metadata.inputContracts) {
    if (input.contract.oneofKind !== 'v1') {
      throw new UnhashableTransaction('an input contract is not of contract version 1');
    }
    out.int64(input.createdAt).raw(createNode(input.contract.v1, undefined).digest());
  }
  return out.digest();
}

/** The hash the acting parties sign (32 bytes). */
export function preparedTransactionHash(prepared: PreparedTransaction): Uint8Array {
  if (prepared.transaction === undefined || prepared.metadata === undefined) {
    throw new UnhashableTransaction('a prepared transaction needs its transaction and metadata');
  }
  return new Encoding()
    .raw(PREPARED_TRANSACTION_PURPOSE)
    .byte(HASHING_SCHEME_V2)
    .raw(transactionHash(prepared.transaction))
    .raw(metadataHash(prepared.metadata))
    .digest();
}
