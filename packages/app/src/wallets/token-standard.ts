/**
 * The Canton Token Standard pieces a browser wallet deposit needs: the interface and choice names
 * (the same strings as packages/ledger/src/canton/wire/ids.ts, copied because that module needs
 * Node's crypto), choosing the input holdings, and the `TransferFactory_Transfer` exercise built
 * from the registry's transfer factory (splice-0.6.1/transfer-instruction-v1.yaml). Pure: the
 * wallet module does the I/O.
 */
import { Amount } from '@poolparty/core/amount';
import { parseAmount } from '../decimal.js';
import type { DepositTerms } from './wallet.js';

const HOLDING_INTERFACE_ID = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const TRANSFER_FACTORY_INTERFACE_ID =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
export const TRANSFER_INSTRUCTION_INTERFACE_ID =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const TRANSFER_FACTORY_TRANSFER_CHOICE = 'TransferFactory_Transfer';
export const TRANSFER_INSTRUCTION_ACCEPT_CHOICE = 'TransferInstruction_Accept';
/** Where a Token Standard transfer carries its reason: the deposit reference goes here. */
const REASON_META_KEY = 'splice.lfdecentralizedtrust.org/reason';

/** A holding of the party as the Holding interface view shows it. */
export interface HoldingView {
  readonly contractId: string;
  readonly owner: string;
  readonly admin: string;
  readonly id: string;
  readonly amount: string;
  readonly locked: boolean;
}

/** The registry's answer to `POST /registry/transfer-instruction/v1/transfer-factory`. */
export interface TransferFactoryAnswer {
  readonly factoryId: string;
  readonly transferKind: 'self' | 'direct' | 'offer';
  readonly choiceContext: {
    readonly choiceContextData: Record<string, unknown>;
    readonly disclosedContracts: readonly {
      readonly templateId?: string;
      readonly contractId?: string;
      readonly createdEventBlob: string;
      readonly synchronizerId?: string;
    }[];
  };
}

/** The request body for the ledger's active contracts of `party` through the Holding interface. */
export function activeHoldingsRequest(party: string, activeAtOffset: number) {
  return {
    activeAtOffset,
    verbose: false,
    eventFormat: {
      filtersByParty: {
        [party]: {
          cumulative: [
            {
              identifierFilter: {
                InterfaceFilter: {
                  value: {
                    interfaceId: HOLDING_INTERFACE_ID,
                    includeInterfaceView: true,
                    includeCreatedEventBlob: false,
                  },
                },
              },
            },
          ],
        },
      },
    },
  };
}

/** The holdings in an active-contracts answer (JSON Ledger API v2), ignoring other entries. */
export function holdingsOf(answer: unknown): HoldingView[] {
  if (!Array.isArray(answer)) return [];
  const holdings: HoldingView[] = [];
  for (const item of answer) {
    const created = item?.contractEntry?.JsActiveContract?.createdEvent;
    const views: unknown[] = Array.isArray(created?.interfaceViews) ? created.interfaceViews : [];
    for (const view of views as { interfaceId?: string; viewValue?: Record<string, unknown> }[]) {
      if (!view.interfaceId?.endsWith(':Splice.Api.Token.HoldingV1:Holding')) continue;
      const value = view.viewValue as
        | {
            owner?: string;
            instrumentId?: { admin?: string; id?: string };
            amount?: string;
            lock?: unknown;
          }
        | undefined;
      if (
        typeof created?.contractId !== 'string' ||
        typeof value?.owner !== 'string' ||
        typeof value.instrumentId?.admin !== 'string' ||
        typeof value.instrumentId.id !== 'string' ||
        typeof value.amount !== 'string'
      ) {
        continue;
      }
      holdings.push({
        contractId: created.contractId,
        owner: value.owner,
        admin: value.instrumentId.admin,
        id: value.instrumentId.id,
        amount: value.amount,
        locked: value.lock !== null && value.lock !== undefined,
      });
    }
  }
  return holdings;
}

/**
 * The unlocked holdings of the instrument to spend for `amount`: largest first, as few as cover
 * it, so the transfer touches few contracts. Null when the party does not hold enough.
 */
export function selectInputHoldings(
  holdings: readonly HoldingView[],
  party: string,
  instrument: { admin: string; id: string },
  amount: string,
): string[] | null {
  const needed = parseAmount(amount)?.units;
  if (needed === undefined) return null;
  const usable = holdings
    .filter(
      (h) =>
        h.owner === party && !h.locked && h.admin === instrument.admin && h.id === instrument.id,
    )
    .map((h) => ({ id: h.contractId, units: parseAmount(h.amount)?.units ?? 0n }))
    .sort((a, b) => (a.units === b.units ? 0 : a.units > b.units ? -1 : 1));
  const chosen: string[] = [];
  let sum = 0n;
  for (const holding of usable) {
    if (sum >= needed) break;
    chosen.push(holding.id);
    sum += holding.units;
  }
  return sum >= needed ? chosen : null;
}

/** The `TransferFactory_Transfer` choice argument of a deposit (context and meta filled later). */
export function depositChoiceArguments(
  party: string,
  terms: DepositTerms,
  inputHoldingCids: readonly string[],
  requestedAt: string,
  // The registry is asked with both left empty (transfer-instruction-v1.yaml, GetFactoryRequest);
  // the command carries the registry's context.
  extraArgs: { context: Record<string, unknown>; meta: Record<string, unknown> } = {
    context: {},
    meta: {},
  },
) {
  return {
    expectedAdmin: terms.inputTokenAdmin,
    transfer: {
      sender: party,
      receiver: terms.depositAddress,
      amount: terms.expectedAmount,
      instrumentId: { admin: terms.inputTokenAdmin, id: terms.inputToken },
      requestedAt,
      // The intent refuses a deposit after it expires: the transfer must not execute later.
      executeBefore: terms.expiresAt,
      inputHoldingCids: [...inputHoldingCids],
      meta: { values: { [REASON_META_KEY]: terms.depositReference } },
    },
    extraArgs,
  };
}

/** The commands to hand the wallet for the deposit, with the registry's context. */
export function depositCommands(
  party: string,
  terms: DepositTerms,
  inputHoldingCids: readonly string[],
  requestedAt: string,
  factory: TransferFactoryAnswer,
) {
  return {
    commandId: `deposit-${terms.intentId}`,
    actAs: [party],
    commands: [
      {
        ExerciseCommand: {
          templateId: TRANSFER_FACTORY_INTERFACE_ID,
          contractId: factory.factoryId,
          choice: TRANSFER_FACTORY_TRANSFER_CHOICE,
          choiceArgument: depositChoiceArguments(party, terms, inputHoldingCids, requestedAt, {
            context: factory.choiceContext.choiceContextData,
            meta: { values: {} },
          }),
        },
      },
    ],
    disclosedContracts: factory.choiceContext.disclosedContracts.map((contract) => ({
      createdEventBlob: contract.createdEventBlob,
      ...(contract.templateId !== undefined && { templateId: contract.templateId }),
      ...(contract.contractId !== undefined && { contractId: contract.contractId }),
      ...(contract.synchronizerId !== undefined && { synchronizerId: contract.synchronizerId }),
    })),
  };
}

/** The registry base URL for an instrument admin: its own, else the default; null when none. */
export function registryUrlFor(
  registries: { defaultUrl: string | null; byAdmin: Readonly<Record<string, string>> },
  admin: string,
): string | null {
  const url = registries.byAdmin[admin] ?? registries.defaultUrl;
  return url === null ? null : url.replace(/\/+$/, '');
}

/** The party's unlocked holdings summed per instrument: what it can spend now. */
export function spendableOf(
  holdings: readonly HoldingView[],
  party: string,
): { token: string; admin: string; amount: string }[] {
  const totals = new Map<string, { token: string; admin: string; units: bigint }>();
  for (const holding of holdings) {
    if (holding.owner !== party || holding.locked) continue;
    const units = parseAmount(holding.amount)?.units;
    if (units === undefined) continue;
    const key = `${holding.id}|${holding.admin}`;
    const total = totals.get(key) ?? { token: holding.id, admin: holding.admin, units: 0n };
    total.units += units;
    totals.set(key, total);
  }
  return [...totals.values()].map(({ token, admin, units }) => ({
    token,
    admin,
    amount: Amount.fromUnits(units).toString(),
  }));
}
