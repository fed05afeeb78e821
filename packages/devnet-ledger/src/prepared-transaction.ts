/**
 * The prepared transaction of an interactive submission, as Canton's protobuf
 * `com.daml.ledger.api.v2.interactive.PreparedTransaction`, and the command read back from it.
 *
 * What the devnet prepares (it runs Token Standard choices, not Daml): one root exercise node for
 * the one command, with the choice, its argument (typed as `daml-value` says), the contract, its
 * signatories and stakeholders, the acting parties and a fresh node seed; and the metadata
 * (submitters, command id, synchronizer, a transaction UUID, the preparation time). A participant
 * also lists the sub-transaction the choice would commit (fetches, archives, creates), the
 * choice's result and the input contracts; the devnet cannot know them before it executes.
 *
 * Contract ids: Canton's are hex and the hash encodes the bytes the hex spells; the devnet's are
 * text, so the prepared transaction carries the hex of their UTF-8 bytes, which the hash then
 * binds byte for byte.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type Identifier, PreparedTransaction } from '@canton-network/core-ledger-proto';
import { keepRecent } from '@poolparty/core';
import type { TransferOffer } from '@poolparty/ledger';
import {
  DEVNET_PACKAGE_NAME,
  HOLDING_INTERFACE_PACKAGE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID,
} from '@poolparty/ledger/canton/wire';
import { invalidArgument } from './canton-errors.js';
import { damlValueOf, jsonOfDamlValue } from './daml-value.js';
import { SYNCHRONIZER_ID } from './identity.js';
import { arrayAt, type Json, objectAt, stringAt } from './request-body.js';
import type { LedgerCommand } from './token-standard-commands.js';
import { preparedTransactionHash, UnhashableTransaction } from './transaction-hash.js';
import {
  qualifiedName,
  TEMPLATE_IDS,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from './wire.js';

/** The Daml-LF version the devnet names on its nodes and transactions. */
const LF_VERSION = '2.1';
const ROOT_NODE_ID = '0';
/** The size of a node seed (Canton's `crypto.Hash` of SHA-256). */
const SEED_BYTES = 32;

/** Interface packages by name, for commands that name an interface by `#package-name`. */
const PACKAGE_IDS: Readonly<Record<string, string>> = {
  'splice-api-token-holding-v1': HOLDING_INTERFACE_PACKAGE_ID,
  'splice-api-token-transfer-instruction-v1': TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID,
};

const INTERFACE_NAMES = new Set(
  [TRANSFER_FACTORY_INTERFACE_ID, TRANSFER_INSTRUCTION_INTERFACE_ID].map(qualifiedName),
);

/** `<package>:<Module.Path>:<Entity>` as a protobuf identifier, the package resolved to its id. */
function identifierOf(id: string): Identifier {
  const [reference = '', moduleName = '', entityName = ''] = id.split(':');
  const named = reference.startsWith('#') ? PACKAGE_IDS[reference.slice(1)] : reference;
  return { packageId: named ?? reference, moduleName, entityName };
}

function textOf(id: Identifier): string {
  return `${id.packageId}:${id.moduleName}:${id.entityName}`;
}

function hexOfContractId(contractId: string): string {
  return Buffer.from(contractId, 'utf8').toString('hex');
}

function contractIdOfHex(hex: string): string {
  return Buffer.from(hex, 'hex').toString('utf8');
}

/** What a prepared transaction is made from: the command as sent and as the ledger runs it. */
export interface Preparation {
  readonly commandId: string;
  readonly actAs: readonly string[];
  readonly exercise: Json;
  readonly command: LedgerCommand;
  /** The pending instruction a choice on an instruction exercises. */
  readonly instruction: TransferOffer | null;
  readonly preparedAt: Date;
}

/** Who signs and who sees the contract the command exercises a choice on. */
function partiesOfContract(preparation: Preparation) {
  const { command, instruction } = preparation;
  if (command.kind === 'transfer') {
    return { signatories: [command.instrument.admin], stakeholders: [command.instrument.admin] };
  }
  if (instruction === null) throw new Error('a choice on an instruction needs the instruction');
  const signatories = [instruction.instrument.admin, instruction.sender];
  return { signatories, stakeholders: [...signatories, instruction.receiver] };
}

/** The root exercise node of a preparation. */
function exerciseNode(preparation: Preparation) {
  const { exercise, command, actAs } = preparation;
  const named = stringAt(exercise.templateId, 'ExerciseCommand.templateId');
  const byInterface = INTERFACE_NAMES.has(qualifiedName(named));
  const template =
    command.kind === 'transfer' ? TEMPLATE_IDS.transferFactory : TEMPLATE_IDS.transferInstruction;
  return {
    lfVersion: LF_VERSION,
    contractId: hexOfContractId(stringAt(exercise.contractId, 'ExerciseCommand.contractId')),
    packageName: DEVNET_PACKAGE_NAME,
    templateId: identifierOf(template),
    ...partiesOfContract(preparation),
    actingParties: [...actAs],
    ...(byInterface && { interfaceId: identifierOf(named) }),
    choiceId: stringAt(exercise.choice, 'ExerciseCommand.choice'),
    chosenValue: damlValueOf(exercise.choiceArgument),
    // A transfer factory stays; an instruction is consumed by accepting, rejecting or withdrawing.
    consuming: command.kind !== 'transfer',
    children: [],
    choiceObservers: [],
  };
}

/** The prepared transaction of a command, as protobuf. */
export function prepareTransaction(preparation: Preparation): PreparedTransaction {
  return PreparedTransaction.create({
    transaction: {
      version: LF_VERSION,
      roots: [ROOT_NODE_ID],
      nodes: [
        {
          nodeId: ROOT_NODE_ID,
          versionedNode: {
            oneofKind: 'v1',
            v1: { nodeType: { oneofKind: 'exercise', exercise: exerciseNode(preparation) } },
          },
        },
      ],
      nodeSeeds: [{ nodeId: Number(ROOT_NODE_ID), seed: new Uint8Array(randomBytes(SEED_BYTES)) }],
    },
    metadata: {
      submitterInfo: { actAs: [...preparation.actAs], commandId: preparation.commandId },
      synchronizerId: SYNCHRONIZER_ID,
      mediatorGroup: 0,
      transactionUuid: randomUUID(),
      preparationTime: BigInt(preparation.preparedAt.getTime()) * 1000n,
      inputContracts: [],
      globalKeyMapping: [],
    },
  });
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

/** The command a prepared transaction stands for: its submitters, command id and one command. */
export function commandOfPreparedTransaction({ prepared }: Received) {
  const { metadata, transaction } = prepared;
  if (metadata?.synchronizerId !== SYNCHRONIZER_ID) {
    throw invalidArgument(`the transaction was not prepared for synchronizer ${SYNCHRONIZER_ID}`);
  }
  const root = transaction?.nodes.find((node) => node.nodeId === transaction.roots[0]);
  const type = root?.versionedNode.oneofKind === 'v1' ? root.versionedNode.v1.nodeType : undefined;
  if (transaction?.roots.length !== 1 || type?.oneofKind !== 'exercise') {
    throw invalidArgument(
      'the prepared transaction is not one exercise, as this participant prepares',
    );
  }
  const { exercise } = type;
  const templateId = exercise.interfaceId ?? exercise.templateId;
  if (templateId === undefined) throw invalidArgument('the prepared exercise names no template');
  const commands = [
    {
      ExerciseCommand: {
        templateId: textOf(templateId),
        contractId: contractIdOfHex(exercise.contractId),
        choice: exercise.choiceId,
        choiceArgument: objectAt(jsonOfDamlValue(exercise.chosenValue), 'choiceArgument'),
      },
    },
  ];
  return {
    commandId: metadata.submitterInfo?.commandId ?? '',
    actAs: arrayAt(metadata.submitterInfo?.actAs ?? [], 'actAs') as string[],
    commands,
  };
}
