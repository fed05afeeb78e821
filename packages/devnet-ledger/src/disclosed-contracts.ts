/**
 * The `disclosedContracts` of a prepare request: contracts the submitter hands the participant
 * because it cannot read them itself (the registries' factories and rules, and the holdings of a
 * party hosted on another participant, `party-hosting.ts`).
 *
 * Checked as a participant checks them:
 * - each carries a non-empty `createdEventBlob` this participant can decode, and the
 *   `contractId`, `templateId` and `synchronizerId` given beside it, when given, are the blob's
 *   and the devnet synchronizer's: otherwise INVALID_ARGUMENT, before anything is interpreted;
 * - a disclosed holding the ledger knows must be that holding, its blob the one its reads hand
 *   out: otherwise DISCLOSED_CONTRACT_INVALID (a changed blob would make the transaction read
 *   a contract that is not on the ledger);
 * - a holding a transfer names as its input must be active and, when its owner is hosted
 *   elsewhere, disclosed: otherwise CONTRACT_NOT_FOUND, as for any contract the participant
 *   cannot find.
 */
import { CantonApiError, invalidArgument } from './canton-errors.js';
import type { ServerContext } from './context.js';
import type { ContractRecord } from './contract-history.js';
import { createdEventBlobOf } from './event-filter.js';
import { SYNCHRONIZER_ID } from './identity.js';
import { arrayAt, objectAt } from './request-body.js';
import { encodeHoldingCreated, TEMPLATE_IDS } from './wire.js';

/** The most contracts one request may disclose. */
const DISCLOSED_CONTRACTS_MAX = 1000;

/** The disclosed contracts of a request, by the contract id their blobs carry. */
export type Disclosures = ReadonlyMap<string, { readonly createdEventBlob: string }>;

function optionalText(value: unknown, path: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidArgument(`${path} must be a string`);
  return value;
}

/** What a devnet blob says it is (the devnet reads back its own blobs only). */
function decodedBlob(blob: string, path: string): { contractId: string; templateId: string } {
  try {
    const decoded = JSON.parse(Buffer.from(blob, 'base64').toString('utf8')) as unknown;
    const { contractId, templateId } = (decoded ?? {}) as Record<string, unknown>;
    if (typeof contractId === 'string' && typeof templateId === 'string') {
      return { contractId, templateId };
    }
  } catch {
    // Not JSON: said below, as for a blob of the wrong shape.
  }
  throw invalidArgument(`${path}.createdEventBlob cannot be decoded as a created event`);
}

function mismatch(path: string, field: string, given: string, inBlob: string): CantonApiError {
  return invalidArgument(
    `Mismatch between ${path}.${field} (${given}) and ${field} from decoded ${path}.createdEventBlob (${inBlob})`,
  );
}

/** The disclosed contracts of a request, each checked on its own (see the module's note). */
export function parseDisclosures(value: unknown): Disclosures {
  const list = arrayAt(value ?? [], 'disclosedContracts');
  if (list.length > DISCLOSED_CONTRACTS_MAX) {
    throw invalidArgument(`disclosedContracts holds over ${DISCLOSED_CONTRACTS_MAX} contracts`);
  }
  const disclosures = new Map<string, { createdEventBlob: string }>();
  list.forEach((entry, index) => {
    const path = `disclosedContracts[${index}]`;
    const contract = objectAt(entry, path);
    const blob = optionalText(contract.createdEventBlob, `${path}.createdEventBlob`);
    if (blob === undefined) throw invalidArgument(`${path}.createdEventBlob must be non-empty`);
    const inBlob = decodedBlob(blob, path);
    const contractId = optionalText(contract.contractId, `${path}.contractId`);
    if (contractId !== undefined && contractId !== inBlob.contractId) {
      throw mismatch(path, 'contractId', contractId, inBlob.contractId);
    }
    const templateId = optionalText(contract.templateId, `${path}.templateId`);
    if (templateId !== undefined && templateId !== inBlob.templateId) {
      throw mismatch(path, 'templateId', templateId, inBlob.templateId);
    }
    const synchronizerId = optionalText(contract.synchronizerId, `${path}.synchronizerId`);
    if (synchronizerId !== undefined && synchronizerId !== SYNCHRONIZER_ID) {
      throw invalidArgument(`${path}.synchronizerId ${synchronizerId} is not ${SYNCHRONIZER_ID}`);
    }
    disclosures.set(inBlob.contractId, { createdEventBlob: blob });
  });
  return disclosures;
}

/** The blob the participant's reads hand out for a holding it created. */
export function holdingBlob(ctx: ServerContext, record: ContractRecord): string | null {
  if (record.kind !== 'holding') return null;
  const recordTime = ctx.ledger.updateAt(record.createdAt)?.recordTime;
  const event = encodeHoldingCreated(
    record.contract,
    record.createdAt,
    SYNCHRONIZER_ID,
    recordTime === undefined ? {} : { createdAt: recordTime },
  );
  return createdEventBlobOf(event);
}

/** Refuses a disclosed holding that is not the holding its id names (see the module's note). */
export function checkDisclosedHoldings(
  ctx: ServerContext,
  disclosures: Disclosures,
  end: number,
): void {
  for (const [contractId, { createdEventBlob }] of disclosures) {
    const found = ctx.history.contractUpTo(contractId, end);
    const expected = found === undefined ? null : holdingBlob(ctx, found.record);
    if (expected === null || expected === createdEventBlob) continue;
    throw new CantonApiError(
      'DISCLOSED_CONTRACT_INVALID',
      'InvalidGivenCurrentSystemStateOther',
      `The disclosed contract ${contractId} does not match the contract with that id: its payload or metadata differ`,
      { contract_id: contractId },
    );
  }
}

/**
 * The active holding a transfer names as an input, as this participant finds it: refused when
 * it is gone or unknown, or of a party hosted elsewhere and not disclosed (see the module's note).
 */
export function namedInputHolding(
  ctx: ServerContext,
  contractId: string,
  disclosures: Disclosures,
  end: number,
) {
  const found = ctx.history.contractUpTo(contractId, end);
  const known =
    found !== undefined &&
    found.record.kind === 'holding' &&
    found.archivedAt === null &&
    (ctx.hosting.isHostedHere(found.record.contract.owner) || disclosures.has(contractId));
  if (!known || found.record.kind !== 'holding') {
    throw new CantonApiError(
      'CONTRACT_NOT_FOUND',
      'InvalidGivenCurrentSystemStateResourceMissing',
      `Contract could not be found with id ${contractId}`,
      { contract_id: contractId },
    );
  }
  return { contract: found.record.contract, createdAt: found.record.createdAt };
}

/**
 * A party's active holdings as disclosed contracts: what its own participant answers its wallet
 * (active contracts read with `includeCreatedEventBlob`) for a party hosted elsewhere to pass on.
 */
export async function disclosedHoldingsOf(ctx: ServerContext, partyId: string) {
  const end = await ctx.ledger.ledgerEnd();
  return ctx.history.activeAt(end).holdings.flatMap(({ contract, createdAt }) => {
    if (contract.owner !== partyId) return [];
    const blob = holdingBlob(ctx, { kind: 'holding', contract, createdAt });
    if (blob === null) return [];
    return [
      {
        contractId: contract.holdingId,
        templateId: TEMPLATE_IDS.holding,
        createdEventBlob: blob,
        synchronizerId: SYNCHRONIZER_ID,
        holding: contract,
      },
    ];
  });
}
