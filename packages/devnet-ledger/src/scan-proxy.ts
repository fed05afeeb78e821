/**
 * The validator's scan proxy (`/api/validator/v0/scan-proxy/...`): the DSO party, the open mining
 * round with the Amulet price, Amulet's rules with the extra traffic price, and transfer
 * pre-approvals.
 *
 * Devnet choices: there is one open round (the local ledger's) and no issuing rounds; the Amulet
 * instrument is the ledger's `Amulet` of the first admin that has one, and its admin plays the
 * DSO (the fixed DSO party when there is no Amulet yet).
 */
import type { Instrument } from '@poolparty/core';
import { type LocalLedger, MINING_ROUND_MS } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { RegistryError } from './canton-errors.js';
import {
  amuletRulesContract,
  contractWithState,
  openMiningRoundContract,
  transferPreapprovalContract,
} from './devnet-contracts.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { DSO_PARTY, SYNCHRONIZER_ID } from './identity.js';

export const SCAN_PROXY_PREFIX = '/api/validator/v0/scan-proxy';

export async function amuletOf(ledger: LocalLedger): Promise<Instrument | null> {
  return (await ledger.listInstruments()).find((i) => i.id === 'Amulet') ?? null;
}

export async function dsoOf(ledger: LocalLedger): Promise<string> {
  return (await amuletOf(ledger))?.admin ?? DSO_PARTY;
}

/** When the devnet's configuration contracts count as created: the ledger's first record time. */
export async function genesisTime(ledger: LocalLedger): Promise<Date> {
  return ledger.updateAt(1)?.recordTime ?? (await ledger.now());
}

const scanProxyRoute = routeOf<LocalLedger>();

const getDsoPartyId = scanProxyRoute({
  method: 'GET',
  url: `${SCAN_PROXY_PREFIX}/dso-party-id`,
  handler: async (ledger) => ({ dso_party_id: await dsoOf(ledger) }),
});

const getMiningRounds = scanProxyRoute({
  method: 'GET',
  url: `${SCAN_PROXY_PREFIX}/open-and-issuing-mining-rounds`,
  handler: async (ledger) => {
    const round = await ledger.openMiningRound();
    const contract = openMiningRoundContract(await dsoOf(ledger), round, MINING_ROUND_MS);
    return {
      open_mining_rounds: [contractWithState(contract, SYNCHRONIZER_ID)],
      issuing_mining_rounds: [],
    };
  },
});

const getAmuletRules = scanProxyRoute({
  method: 'GET',
  url: `${SCAN_PROXY_PREFIX}/amulet-rules`,
  handler: async (ledger) => {
    const traffic = await ledger.trafficParameters();
    const contract = amuletRulesContract(
      await dsoOf(ledger),
      traffic.extraTrafficPriceUsdPerMb,
      await genesisTime(ledger),
      SYNCHRONIZER_ID,
    );
    return { amulet_rules: contractWithState(contract, SYNCHRONIZER_ID) };
  },
});

const getTransferPreapproval = scanProxyRoute<{ Params: { party: string } }>({
  method: 'GET',
  url: `${SCAN_PROXY_PREFIX}/transfer-preapprovals/by-party/:party`,
  handler: async (ledger, request) => {
    const { party } = request.params;
    const amulet = await amuletOf(ledger);
    if (amulet === null || !(await ledger.preapproves(party, amulet))) {
      // Splice's own text: wallets tell "none" from a failure by its start, not by the status.
      throw new RegistryError(404, `No TransferPreapproval found for party: ${party}`);
    }
    const contract = transferPreapprovalContract(
      amulet.admin,
      party,
      amulet,
      await genesisTime(ledger),
    );
    return { transfer_preapproval: contractWithState(contract, SYNCHRONIZER_ID) };
  },
});

/** The devnet grants no featured-app rights: every provider has none. */
const lookupFeaturedAppRight = scanProxyRoute<{ Params: { provider: string } }>({
  method: 'GET',
  url: `${SCAN_PROXY_PREFIX}/featured-apps/:provider`,
  handler: async () => ({}),
});

/** The devnet has no Amulet name service: no entries, and none found by party or name. */
const listAnsEntries = scanProxyRoute({
  method: 'GET',
  url: `${SCAN_PROXY_PREFIX}/ans-entries`,
  handler: async () => ({ entries: [] }),
});

const ANS_LOOKUPS = ['by-party/:party', 'by-name/:name'].map((by) =>
  scanProxyRoute({
    method: 'GET',
    url: `${SCAN_PROXY_PREFIX}/ans-entries/${by}`,
    handler: async () => {
      throw new RegistryError(404, 'No ANS entry found: the devnet has no Amulet name service');
    },
  }),
);

/** The scan proxy's operations the devnet does not serve, and why. */
const UNSERVED_SCAN_PROXY = [
  ['/dso', 'the devnet has no DSO rules or super validators'],
  ['/ans-rules', 'the devnet has no Amulet name service'],
  ['/transfer-command-counter/:party', 'the devnet runs no Amulet transfer commands'],
  ['/transfer-command/status', 'the devnet runs no Amulet transfer commands'],
  ['/holdings/summary', 'holdings are read from the ledger API'],
  ['/unclaimed-development-fund-coupons', 'the devnet issues no development fund coupons'],
] as const;

const unservedScanProxyRoutes = UNSERVED_SCAN_PROXY.map(([path, why]) =>
  scanProxyRoute({
    method: path === '/ans-rules' || path === '/holdings/summary' ? 'POST' : 'GET',
    url: `${SCAN_PROXY_PREFIX}${path}`,
    handler: async () => {
      throw new RegistryError(
        501,
        `${SCAN_PROXY_PREFIX}${path} is not served by the devnet ledger: ${why}`,
      );
    },
  }),
);

export async function scanProxyRoutes(app: FastifyInstance, ledger: LocalLedger): Promise<void> {
  registerRoutes(app, ledger, [
    getDsoPartyId,
    getMiningRounds,
    getAmuletRules,
    getTransferPreapproval,
    lookupFeaturedAppRight,
    listAnsEntries,
    ...ANS_LOOKUPS,
    ...unservedScanProxyRoutes,
  ]);
}
