/**
 * The configuration contracts a participant's clients read besides holdings and instructions:
 * the transfer factory of each instrument admin, Amulet's rules and open mining round, and the
 * receivers' transfer pre-approvals. The local ledger keeps these as plain settings; here they
 * get contract ids (derived from what they stand for, so the same contract keeps its id) and an
 * opaque created-event blob, the way the scan proxy and the registries hand them out.
 */
import { createHash } from 'node:crypto';
import type { Amount, Instrument } from '@poolparty/core';
import {
  damlDecimal,
  preapprovalContractId,
  TEMPLATE_IDS,
  transferFactoryContractId,
} from './wire.js';

export interface DevnetContract {
  readonly templateId: string;
  readonly contractId: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}

/** A contract id in Canton's form: `00` and a hex digest. */
function devnetContractId(kind: string, key: string): string {
  return `00${createHash('sha256').update(`${kind}\n${key}`).digest('hex')}`;
}

/** The blob a client passes back as a disclosed contract: opaque to it, readable here. */
function createdEventBlob(contract: DevnetContract): string {
  const { templateId, contractId, payload } = contract;
  return Buffer.from(JSON.stringify({ templateId, contractId, payload })).toString('base64');
}

export function transferFactoryContract(admin: string, createdAt: Date): DevnetContract {
  return {
    templateId: TEMPLATE_IDS.transferFactory,
    contractId: transferFactoryContractId(admin),
    payload: { admin },
    createdAt,
  };
}

/**
 * Daml's latest representable time: the devnet's pre-approvals never lapse, but Splice's
 * `TransferPreapproval.expiresAt` is a required time, so they are stated to expire then.
 */
const NEVER_EXPIRES = '9999-12-31T23:59:59.999999Z';

/** Amulet's rules, naming the one synchronizer as the decentralized synchronizer Amulet is on. */
export function amuletRulesContract(
  dso: string,
  extraTrafficPriceUsdPerMb: Amount,
  createdAt: Date,
  synchronizerId: string,
): DevnetContract {
  return {
    templateId: TEMPLATE_IDS.amuletRules,
    contractId: devnetContractId('amulet-rules', dso),
    payload: {
      dso,
      configSchedule: {
        initialValue: {
          decentralizedSynchronizer: {
            // A Daml `Set` in the JSON encoding: a map of its elements to unit.
            requiredSynchronizers: { map: [[synchronizerId, {}]] },
            activeSynchronizer: synchronizerId,
            fees: { extraTrafficPrice: damlDecimal(extraTrafficPriceUsdPerMb) },
          },
        },
        futureValues: [],
      },
      isDevNet: true,
    },
    createdAt,
  };
}

export function openMiningRoundContract(
  dso: string,
  round: { readonly round: number; readonly amuletPriceUsd: Amount; readonly opensAt: Date },
  roundMs: number,
): DevnetContract {
  const microseconds = String(roundMs * 1000);
  return {
    templateId: TEMPLATE_IDS.openMiningRound,
    contractId: devnetContractId('open-mining-round', `${dso}/${round.round}`),
    payload: {
      dso,
      round: { number: String(round.round) },
      amuletPrice: damlDecimal(round.amuletPriceUsd),
      opensAt: round.opensAt.toISOString(),
      // A round stays open for two ticks after it opens, as on the global synchronizer.
      targetClosesAt: new Date(round.opensAt.getTime() + 2 * roundMs).toISOString(),
      issuingFor: { microseconds: '0' },
      tickDuration: { microseconds },
    },
    createdAt: round.opensAt,
  };
}

export function transferPreapprovalContract(
  dso: string,
  receiver: string,
  instrument: Instrument,
  createdAt: Date,
): DevnetContract {
  return {
    templateId: TEMPLATE_IDS.transferPreapproval,
    contractId: preapprovalContractId(receiver, instrument),
    payload: {
      dso,
      receiver,
      provider: receiver,
      instrumentId: { admin: instrument.admin, id: instrument.id },
      validFrom: createdAt.toISOString(),
      lastRenewedAt: createdAt.toISOString(),
      expiresAt: NEVER_EXPIRES,
    },
    createdAt,
  };
}

/** A contract as the scan proxy's `ContractWithState`. */
export function contractWithState(contract: DevnetContract, synchronizerId: string) {
  return {
    contract: {
      template_id: contract.templateId,
      contract_id: contract.contractId,
      payload: contract.payload,
      created_event_blob: createdEventBlob(contract),
      created_at: contract.createdAt.toISOString(),
    },
    domain_id: synchronizerId,
  };
}

/** A contract as the registry's `DisclosedContract` (debug fields unless excluded). */
export function disclosedContract(
  contract: DevnetContract,
  synchronizerId: string,
  excludeDebugFields: boolean,
) {
  return {
    templateId: contract.templateId,
    contractId: contract.contractId,
    createdEventBlob: createdEventBlob(contract),
    synchronizerId,
    ...(!excludeDebugFields && {
      debugPackageName: contract.templateId.split(':')[0]?.replace(/^#/, ''),
      debugPayload: contract.payload,
      debugCreatedAt: contract.createdAt.toISOString(),
    }),
  };
}
