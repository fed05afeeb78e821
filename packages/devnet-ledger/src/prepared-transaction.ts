/**
 * The prepared transaction of an interactive submission, as Canton's protobuf
 * `com.daml.ledger.api.v2.interactive.PreparedTransaction`, and the commands read back from it.
 *
 * What the devnet prepares (it runs Token Standard choices, not Daml): one root exercise node per
 * command (leg), with the choice, its argument typed as Daml types it (see `daml-types`), the
 * contract's ledger id, its signatories and stakeholders, the acting party and a fresh node seed;
 * under each root, the archives of the holdings the leg spends and create nodes for what it
 * creates (see `prepared-legs`); and the metadata:
 * submitters, command id, synchronizer, a transaction UUID, the preparation time and the input
 * contracts (every contract the legs read, with its argument and creation time). A participant
 * also lists fetches and each choice's result; the devnet leaves them out.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Create,
  type DamlTransaction_Node,
  type Exercise,
  type Identifier,
  type Metadata_InputContract,
  PreparedTransaction,
} from '@canton-network/core-ledger-proto';
import { keepRecent } from '@poolparty/core';
import {
  ALLOCATION_FACTORY_INTERFACE_REPORTED_ID,
  ALLOCATION_INTERFACE_REPORTED_ID,
  ARCHIVE_CHOICE,
  DEVNET_PACKAGE_NAME,
  HOLDING_INTERFACE_PACKAGE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID,
} from '@poolparty/ledger/canton/wire';
import { invalidArgument } from './canton-errors.js';
import { CHOICE_ARGUMENT_TYPES, CONTRACT_ARGUMENT_TYPES } from './daml-types.js';
import { damlValueOf, jsonOfDamlValue } from './daml-value.js';
import { SYNCHRONIZER_ID } from './identity.js';
import {
  type AllocationLeg,
  createdContractId,
  type LegContract,
  type PreparedLeg,
} from './prepared-legs.js';
import { arrayAt, type Json, objectAt, stringAt } from './request-body.js';
import { preparedTransactionHash, UnhashableTransaction } from './transaction-hash.js';
import {
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
  qualifiedName,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from './wire.js';

/** The Daml-LF version the devnet names on its nodes and transactions. */
const LF_VERSION = '2.1';
/** The size of a node seed (Canton's `crypto.Hash` of SHA-256). */
const SEED_BYTES = 32;
const MICROS_PER_MS = 1000n;
/** How many commands (legs) one prepared transaction may hold. */
export const PREPARED_LEGS_MAX = 16;

/** Interface packages by name, for commands that name an interface by `#package-name`. */
const PACKAGE_IDS: Readonly<Record<string, string>> = {
  'splice-api-token-holding-v1': HOLDING_INTERFACE_PACKAGE_ID,
  'splice-api-token-transfer-instruction-v1': TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID,
  'splice-api-token-allocation-v1': packageOf(ALLOCATION_INTERFACE_REPORTED_ID),
  'splice-api-token-allocation-instruction-v1': packageOf(ALLOCATION_FACTORY_INTERFACE_REPORTED_ID),
};

const INTERFACE_NAMES = new Set(
  [
    TRANSFER_FACTORY_INTERFACE_ID,
    TRANSFER_INSTRUCTION_INTERFACE_ID,
    ALLOCATION_FACTORY_INTERFACE_ID,
    ALLOCATION_INTERFACE_ID,
  ].map(qualifiedName),
);

function packageOf(id: string): string {
  return id.slice(0, id.indexOf(':'));
}

/** `<package>:<Module.Path>:<Entity>` as a protobuf identifier, the package resolved to its id. */
function identifierOf(id: string): Identifier {
  const [reference = '', moduleName = '', entityName = ''] = id.split(':');
  const named = reference.startsWith('#') ? PACKAGE_IDS[reference.slice(1)] : reference;
  return { packageId: named ?? reference, moduleName, entityName };
}

function textOf(id: Identifier): string {
  return `${id.packageId}:${id.moduleName}:${id.entityName}`;
}

/** What a prepared transaction is made from: its submission and the legs of its commands. */
export interface Preparation {
  readonly commandId: string;
  readonly actAs: readonly string[];
  readonly legs: readonly (PreparedLeg | AllocationLeg)[];
  readonly preparedAt: Date;
}

type Leg = Preparation['legs'][number];

const isAllocationLeg = (leg: Leg): leg is AllocationLeg => 'actingParties' in leg;

/** Who signs and who sees the contract a leg exercises a choice on. */
function partiesOfContract(leg: Leg) {
  if (isAllocationLeg(leg)) {
    return {
      signatories: [...leg.contract.signatories],
      stakeholders: [...leg.contract.stakeholders],
    };
  }
  const { command, instruction } = leg;
  if (command.kind === 'transfer') {
    return { signatories: [command.instrument.admin], stakeholders: [command.instrument.admin] };
  }
  if (instruction === null) throw new Error('a choice on an instruction needs the instruction');
  const signatories = [instruction.instrument.admin, instruction.sender];
  return { signatories, stakeholders: [...signatories, instruction.receiver] };
}

/** The root exercise node of a leg, its children the nodes of what it creates. */
function exerciseOf(leg: Leg, children: readonly string[]): Exercise {
  const { exercise } = leg;
  const named = stringAt(exercise.templateId, 'ExerciseCommand.templateId');
  const choice = stringAt(exercise.choice, 'ExerciseCommand.choice');
  const argumentType = CHOICE_ARGUMENT_TYPES[choice];
  if (argumentType === undefined)
    throw invalidArgument(`choice ${choice} is not one this participant runs`);
  const template = leg.inputs[0]?.templateId ?? named;
  return {
    lfVersion: LF_VERSION,
    contractId: stringAt(exercise.contractId, 'ExerciseCommand.contractId'),
    packageName: DEVNET_PACKAGE_NAME,
    templateId: identifierOf(template),
    ...partiesOfContract(leg),
    actingParties: isAllocationLeg(leg) ? [...leg.actingParties] : [leg.actor],
    ...(INTERFACE_NAMES.has(qualifiedName(named)) && { interfaceId: identifierOf(named) }),
    choiceId: choice,
    chosenValue: damlValueOf(exercise.choiceArgument, argumentType, 'choiceArgument'),
    // A factory stays; an instruction or an allocation is consumed by its choices.
    consuming: isAllocationLeg(leg) ? leg.consuming : leg.command.kind !== 'transfer',
    children: [...children],
    choiceObservers: [],
  };
}

function createOf(contract: LegContract): Create {
  return {
    lfVersion: LF_VERSION,
    contractId: contract.contractId,
    packageName: DEVNET_PACKAGE_NAME,
    templateId: identifierOf(contract.templateId),
    argument: damlValueOf(
      contract.argument,
      CONTRACT_ARGUMENT_TYPES[contract.kind],
      'createArgument',
    ),
    signatories: [...contract.signatories],
    stakeholders: [...contract.stakeholders],
  };
}

/** A node of node version 1. */
function v1Node(
  nodeId: string,
  nodeType: { oneofKind: 'exercise'; exercise: Exercise } | { oneofKind: 'create'; create: Create },
): DamlTransaction_Node {
  return { nodeId, versionedNode: { oneofKind: 'v1', v1: { nodeType } } };
}

/** The consuming `Archive` of a holding a leg spends, as the committed transaction shows it. */
function archiveOf(holding: LegContract): Exercise {
  return {
    lfVersion: LF_VERSION,
    contractId: holding.contractId,
    packageName: DEVNET_PACKAGE_NAME,
    templateId: identifierOf(holding.templateId),
    signatories: [...holding.signatories],
    stakeholders: [...holding.stakeholders],
    actingParties: [...holding.signatories],
    choiceId: ARCHIVE_CHOICE,
    chosenValue: { sum: { oneofKind: 'record', record: { fields: [] } } },
    consuming: true,
    children: [],
    exerciseResult: { sum: { oneofKind: 'unit', unit: {} } },
    choiceObservers: [],
  };
}

/**
 * Every leg's nodes, numbered in order, each with a fresh seed: the root exercise, then under it
 * the archives of the holdings it spends and the creates of what it makes.
 */
function nodesOf(legs: readonly Leg[], transactionUuid: string) {
  const nodes: DamlTransaction_Node[] = [];
  const roots: string[] = [];
  let next = 0;
  for (const leg of legs.slice(0, PREPARED_LEGS_MAX)) {
    const rootId = String(next++);
    const spent = leg.inputs.filter((input) => input.kind === 'holding');
    const children = [...spent, ...leg.creates].map(() => String(next++));
    roots.push(rootId);
    nodes.push(v1Node(rootId, { oneofKind: 'exercise', exercise: exerciseOf(leg, children) }));
    spent.forEach((holding, index) => {
      const nodeId = children[index] as string;
      nodes.push(v1Node(nodeId, { oneofKind: 'exercise', exercise: archiveOf(holding) }));
    });
    leg.creates.forEach((created, index) => {
      const nodeId = children[spent.length + index] as string;
      const contract = { ...created, contractId: createdContractId(transactionUuid, nodeId) };
      nodes.push(v1Node(nodeId, { oneofKind: 'create', create: createOf(contract) }));
    });
  }
  const nodeSeeds = nodes.map((node) => ({
    nodeId: Number(node.nodeId),
    seed: new Uint8Array(randomBytes(SEED_BYTES)),
  }));
  return { roots, nodes, nodeSeeds };
}

/** Every contract the legs read, once each, with the time it was created. */
function inputContractsOf(legs: readonly Leg[]): Metadata_InputContract[] {
  const seen = new Map<string, Metadata_InputContract>();
  for (const input of legs.flatMap((leg) => leg.inputs)) {
    if (seen.has(input.contractId)) continue;
    seen.set(input.contractId, {
      contract: { oneofKind: 'v1', v1: createOf(input) },
      createdAt: BigInt(input.createdAt.getTime()) * MICROS_PER_MS,
      eventBlob: new Uint8Array(),
    });
  }
  return [...seen.values()];
}

/** The prepared transaction of a preparation, as protobuf. */
export function prepareTransaction(preparation: Preparation): PreparedTransaction {
  if (preparation.legs.length === 0 || preparation.legs.length > PREPARED_LEGS_MAX) {
    throw invalidArgument(`a prepared transaction holds 1 to ${PREPARED_LEGS_MAX} commands`);
  }
  const transactionUuid = randomUUID();
  // Built whole, as its type requires, rather than through `PreparedTransaction.create`, whose
  // copy of every nested message and value is a third of preparing one.
  const prepared: PreparedTransaction = {
    transaction: { version: LF_VERSION, ...nodesOf(preparation.legs, transactionUuid) },
    metadata: {
      submitterInfo: { actAs: [...preparation.actAs], commandId: preparation.commandId },
      synchronizerId: SYNCHRONIZER_ID,
      mediatorGroup: 0,
      transactionUuid,
      preparationTime: BigInt(preparation.preparedAt.getTime()) * MICROS_PER_MS,
      inputContracts: inputContractsOf(preparation.legs),
      globalKeyMapping: [],
    },
  };
  return prepared;
}

/** Prepared transactions remembered for their execution; a wallet executes within seconds. */
const PREPARED_HASHES_KEPT = 1024;

/**
 * The hashes of the prepared transactions this participant handed out, by their exact text. A
 * transaction sent back byte for byte as it was handed out has the hash it had then, so execution
 * looks it up instead of hashing it again (about half the hashing of an external submission);
 * a transaction changed by one byte is another text, and is hashed as it arrives.
 */
export class PreparedHashes {
  private readonly kept = new Map<string, Uint8Array>();

  remember(base64: string, hash: Uint8Array): void {
    keepRecent(this.kept, base64, hash, PREPARED_HASHES_KEPT);
  }

  hashOf(base64: string): Uint8Array | undefined {
    return this.kept.get(base64);
  }
}

/** A prepared transaction as sent back for execution: decoded, and its hash recomputed. */
export interface Received {
  readonly prepared: PreparedTransaction;
  readonly hash: Uint8Array;
}

export function receivePreparedTransaction(base64: unknown, handedOut?: PreparedHashes): Received {
  const text = stringAt(base64, 'preparedTransaction');
  try {
    const prepared = PreparedTransaction.fromBinary(Buffer.from(text, 'base64'));
    return { prepared, hash: handedOut?.hashOf(text) ?? preparedTransactionHash(prepared) };
  } catch (error) {
    const why = error instanceof UnhashableTransaction ? error.message : 'it does not decode';
    throw invalidArgument(`preparedTransaction is not a prepared transaction: ${why}`, {
      field: 'preparedTransaction',
    });
  }
}

/** One command read back from a prepared transaction, with the party it is exercised by. */
export interface PreparedCommand {
  readonly command: Json;
  readonly actingParties: readonly string[];
}

function commandOfRoot(transaction: PreparedTransaction['transaction'], rootId: string) {
  const root = transaction?.nodes.find((node) => node.nodeId === rootId);
  const type = root?.versionedNode.oneofKind === 'v1' ? root.versionedNode.v1.nodeType : undefined;
  if (type?.oneofKind !== 'exercise') {
    throw invalidArgument(
      'a root of the prepared transaction is not an exercise, as this participant prepares',
    );
  }
  const { exercise } = type;
  const templateId = exercise.interfaceId ?? exercise.templateId;
  if (templateId === undefined) throw invalidArgument('the prepared exercise names no template');
  const command = {
    ExerciseCommand: {
      templateId: textOf(templateId),
      contractId: exercise.contractId,
      choice: exercise.choiceId,
      choiceArgument: objectAt(jsonOfDamlValue(exercise.chosenValue), 'choiceArgument'),
    },
  };
  return { command, actingParties: [...exercise.actingParties] };
}

/** The commands a prepared transaction stands for: its submitters, command id and legs. */
export function commandsOfPreparedTransaction({ prepared }: Received) {
  const { metadata, transaction } = prepared;
  if (metadata?.synchronizerId !== SYNCHRONIZER_ID) {
    throw invalidArgument(`the transaction was not prepared for synchronizer ${SYNCHRONIZER_ID}`);
  }
  const roots = transaction?.roots ?? [];
  if (roots.length === 0 || roots.length > PREPARED_LEGS_MAX) {
    throw invalidArgument(`a prepared transaction holds 1 to ${PREPARED_LEGS_MAX} commands`);
  }
  const legs: PreparedCommand[] = roots.map((rootId) => commandOfRoot(transaction, rootId));
  return {
    commandId: metadata.submitterInfo?.commandId ?? '',
    actAs: arrayAt(metadata.submitterInfo?.actAs ?? [], 'actAs') as string[],
    legs,
  };
}

/** The ids of the input contracts a prepared transaction lists. */
export function inputContractIdsOf({ prepared }: Received): string[] {
  return (prepared.metadata?.inputContracts ?? []).map((input) =>
    input.contract.oneofKind === 'v1' ? input.contract.v1.contractId : '',
  );
}
