/**
 * Token Standard registries: metadata (`/registry/metadata/v1/...`), the transfer-instruction
 * API (`/registry/transfer-instruction/v1/...`) that hands out the transfer factory and the
 * choice contexts of pending instructions, and the allocation APIs (allocation-registry.ts).
 *
 * Two kinds of registry base are served:
 * - the default one, at the scan proxy (`/api/validator/v0/scan-proxy`), where a validator serves
 *   Canton Coin's registry: only the Amulet admin's (DSO's) instruments, as the metadata API's "all
 *   instruments managed by this instrument admin" says (a wallet files what a registry lists under
 *   its admin); before Amulet exists, the first admin's;
 * - one per instrument admin, at `/registries/<admin>`, serving only that admin's instruments.
 *
 * Devnet choices: instruments have 10 decimals (Daml's `Decimal`); `totalSupply` is the sum of the
 * active holdings. A factory request for an instrument the registry does not serve (another
 * admin's) is a 404, a malformed one a 400.
 */
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import { type LocalLedger, MINING_ROUND_MS, type TransferOffer } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ALLOCATION_REGISTRY_ROUTES } from './allocation-registry.js';
import { RegistryError } from './canton-errors.js';
import type { ContractHistory } from './contract-history.js';
import {
  amuletRulesContract,
  type DevnetContract,
  disclosedContract,
  openMiningRoundContract,
  transferFactoryContract,
  transferPreapprovalContract,
} from './devnet-contracts.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { SYNCHRONIZER_ID } from './identity.js';
import { amuletOf, genesisTime, SCAN_PROXY_PREFIX } from './scan-proxy.js';
import { damlDecimal } from './wire.js';

const REGISTRY_DECIMALS = 10;
export const PER_ADMIN_REGISTRY_PREFIX = '/registries';
const PAGE_SIZE_DEFAULT = 100;
const SUPPORTED_APIS = {
  'splice-api-token-metadata-v1': 1,
  'splice-api-token-transfer-instruction-v1': 1,
  'splice-api-token-allocation-instruction-v1': 1,
  'splice-api-token-allocation-v1': 1,
};

type Json = Readonly<Record<string, unknown>>;

export function objectOrError(value: unknown, name: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RegistryError(400, `${name} must be an object`);
  }
  return value as Json;
}

export function stringOrError(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new RegistryError(400, `${name} must be a non-empty string`);
  }
  return value;
}

export function excludeDebug(body: unknown): boolean {
  return (body as { excludeDebugFields?: unknown } | null)?.excludeDebugFields === true;
}

const contractIdValue = (contract: DevnetContract) => ({
  tag: 'AV_ContractId',
  value: contract.contractId,
});

interface RegistryDeps {
  readonly ledger: LocalLedger;
  readonly history: ContractHistory;
}

/**
 * The admin whose instruments a registry serves: its path's, or for the default registry the
 * Amulet admin (before Amulet exists, the first instrument's admin); null while there is none.
 */
async function servedAdmin(ledger: LocalLedger, admin: string | null): Promise<string | null> {
  if (admin !== null) return admin;
  const fallback = (await amuletOf(ledger)) ?? (await ledger.listInstruments())[0];
  return fallback?.admin ?? null;
}

/** The instruments a registry serves: those of the one admin it is the registry of. */
export async function instrumentsOf(
  ledger: LocalLedger,
  admin: string | null,
): Promise<Instrument[]> {
  const served = await servedAdmin(ledger, admin);
  if (served === null) return [];
  return (await ledger.listInstruments()).filter((i) => i.admin === served);
}

async function registryAdmin(ledger: LocalLedger, admin: string | null): Promise<string> {
  const served = await servedAdmin(ledger, admin);
  if (served === null) throw new RegistryError(404, 'this registry has no instruments yet');
  return served;
}

async function findInstrument(
  ledger: LocalLedger,
  admin: string | null,
  id: string,
): Promise<Instrument | undefined> {
  return (await instrumentsOf(ledger, admin)).find((i) => i.id === id);
}

function supplyByInstrument(deps: RegistryDeps, end: number): Map<string, Amount> {
  const supply = new Map<string, Amount>();
  for (const { contract } of deps.history.activeAt(end).holdings) {
    const key = instrumentKey(contract.instrument);
    supply.set(key, (supply.get(key) ?? Amount.ZERO).add(contract.amount));
  }
  return supply;
}

async function instrumentJson(deps: RegistryDeps, instrument: Instrument) {
  const end = await deps.ledger.ledgerEnd();
  const supply = supplyByInstrument(deps, end).get(instrumentKey(instrument)) ?? Amount.ZERO;
  return {
    id: instrument.id,
    name: instrument.id,
    symbol: instrument.id,
    totalSupply: damlDecimal(supply),
    totalSupplyAsOf: (await deps.ledger.now()).toISOString(),
    decimals: REGISTRY_DECIMALS,
    supportedApis: SUPPORTED_APIS,
  };
}

/** The Amulet configuration contracts a transfer of Amulet reads, for the choice context. */
export async function amuletContext(ledger: LocalLedger, instrument: Instrument) {
  const amulet = await amuletOf(ledger);
  if (amulet === null || instrumentKey(amulet) !== instrumentKey(instrument)) return [];
  const traffic = await ledger.trafficParameters();
  const created = await genesisTime(ledger);
  return [
    [
      'amulet-rules',
      amuletRulesContract(
        amulet.admin,
        traffic.extraTrafficPriceUsdPerMb,
        created,
        SYNCHRONIZER_ID,
      ),
    ],
    [
      'open-round',
      openMiningRoundContract(amulet.admin, await ledger.openMiningRound(), MINING_ROUND_MS),
    ],
  ] as const;
}

export function choiceContext(
  entries: readonly (readonly [string, DevnetContract])[],
  debug: boolean,
) {
  return {
    choiceContextData: {
      values: Object.fromEntries(
        entries.map(([key, contract]) => [key, contractIdValue(contract)]),
      ),
    },
    disclosedContracts: entries.map(([, contract]) =>
      disclosedContract(contract, SYNCHRONIZER_ID, !debug),
    ),
  };
}

/** What a registry's routes share: the ledger, its history, and whose instruments it serves. */
export interface RegistryRouteDeps extends RegistryDeps {
  /** The admin a request's registry serves (from its path), or null for the default registry. */
  readonly adminOf: (request: FastifyRequest) => string | null;
}

const registryRoute = routeOf<RegistryRouteDeps>();

const getRegistryInfo = registryRoute({
  method: 'GET',
  url: '/registry/metadata/v1/info',
  handler: async ({ ledger, adminOf }, request) => ({
    adminId: await registryAdmin(ledger, adminOf(request)),
    supportedApis: SUPPORTED_APIS,
  }),
});

const listInstruments = registryRoute<{ Querystring: { pageSize?: string; pageToken?: string } }>({
  method: 'GET',
  url: '/registry/metadata/v1/instruments',
  handler: async (deps, request) => {
    const pageSize = Number(request.query.pageSize ?? PAGE_SIZE_DEFAULT);
    const start = Number(request.query.pageToken ?? 0);
    if (!(Number.isSafeInteger(pageSize) && pageSize > 0)) {
      throw new RegistryError(400, 'pageSize must be a positive integer');
    }
    if (!(Number.isSafeInteger(start) && start >= 0)) {
      throw new RegistryError(400, 'pageToken is not one this registry issued');
    }
    const all = await instrumentsOf(deps.ledger, deps.adminOf(request));
    const page = all.slice(start, start + pageSize);
    const instruments = [];
    for (const instrument of page) instruments.push(await instrumentJson(deps, instrument));
    const next = start + pageSize;
    return { instruments, ...(next < all.length && { nextPageToken: String(next) }) };
  },
});

const getInstrument = registryRoute<{ Params: { instrumentId: string } }>({
  method: 'GET',
  url: '/registry/metadata/v1/instruments/:instrumentId',
  handler: async (deps, request) => {
    const { instrumentId } = request.params;
    const instrument = await findInstrument(deps.ledger, deps.adminOf(request), instrumentId);
    if (instrument === undefined) {
      throw new RegistryError(404, `Instrument ${instrumentId} not found`);
    }
    return instrumentJson(deps, instrument);
  },
});

/** The instrument a transfer-factory request names, checked against what the registry serves. */
async function factoryInstrument(
  ledger: LocalLedger,
  admin: string | null,
  args: Json,
  transfer: Json,
): Promise<Instrument> {
  const instrumentId = objectOrError(transfer.instrumentId, 'transfer.instrumentId');
  const wanted: Instrument = {
    admin: stringOrError(instrumentId.admin, 'transfer.instrumentId.admin'),
    id: stringOrError(instrumentId.id, 'transfer.instrumentId.id'),
  };
  if (args.expectedAdmin !== undefined && args.expectedAdmin !== wanted.admin) {
    throw new RegistryError(400, `expectedAdmin differs from the instrument's admin`);
  }
  const served = await instrumentsOf(ledger, admin);
  const instrument = served.find((i) => instrumentKey(i) === instrumentKey(wanted));
  if (instrument === undefined) {
    throw new RegistryError(404, `this registry has no instrument ${wanted.id} of ${wanted.admin}`);
  }
  return instrument;
}

/**
 * The transfer factory a transfer-factory request's body asks the registry of `admin` (null: the
 * default registry) for, with its kind and choice context. The embedded ledger's atomic swaps ask
 * it in process, as the canton adapter asks the route.
 */
export async function transferFactoryOf(ledger: LocalLedger, admin: string | null, body: unknown) {
  const request = objectOrError(body, 'the request body');
  const args = objectOrError(request.choiceArguments, 'choiceArguments');
  const transfer = objectOrError(args.transfer, 'choiceArguments.transfer');
  const sender = stringOrError(transfer.sender, 'transfer.sender');
  const receiver = stringOrError(transfer.receiver, 'transfer.receiver');
  const instrument = await factoryInstrument(ledger, admin, args, transfer);
  const created = await genesisTime(ledger);
  const factory = transferFactoryContract(instrument.admin, created);
  const preapproved = sender !== receiver && (await ledger.preapproves(receiver, instrument));
  const entries: (readonly [string, DevnetContract])[] = [
    ...(await amuletContext(ledger, instrument)),
  ];
  if (preapproved) {
    const preapproval = transferPreapprovalContract(
      instrument.admin,
      receiver,
      instrument,
      created,
    );
    entries.push(['transfer-preapproval', preapproval]);
  }
  const context = choiceContext(entries, !excludeDebug(request));
  return {
    factoryId: factory.contractId,
    transferKind: sender === receiver ? 'self' : preapproved ? 'direct' : 'offer',
    choiceContext: {
      ...context,
      // The factory itself is disclosed too: the caller exercises it without seeing it.
      disclosedContracts: [
        disclosedContract(factory, SYNCHRONIZER_ID, excludeDebug(request)),
        ...context.disclosedContracts,
      ],
    },
  } as const;
}

const getTransferFactory = registryRoute({
  method: 'POST',
  url: '/registry/transfer-instruction/v1/transfer-factory',
  handler: (deps, request) => transferFactoryOf(deps.ledger, deps.adminOf(request), request.body),
});

/** The choice context of accepting, rejecting or withdrawing a pending transfer instruction. */
const choiceContextRoute = (action: 'accept' | 'reject' | 'withdraw') =>
  registryRoute<{ Params: { transferInstructionId: string } }>({
    method: 'POST',
    url: `/registry/transfer-instruction/v1/:transferInstructionId/choice-contexts/${action}`,
    handler: async ({ ledger, history, adminOf }, request) => {
      const body = request.body === undefined ? {} : objectOrError(request.body, 'the body');
      const { transferInstructionId } = request.params;
      const end = await ledger.ledgerEnd();
      const instruction: TransferOffer | undefined = history.pendingInstruction(
        transferInstructionId,
        end,
      );
      const admin = await servedAdmin(ledger, adminOf(request));
      if (instruction === undefined || instruction.instrument.admin !== admin) {
        throw new RegistryError(
          404,
          `No pending transfer instruction ${transferInstructionId} in this registry`,
        );
      }
      // Only accepting moves the holding (and for Amulet reads the round); rejecting and
      // withdrawing just unlock it.
      const entries =
        action === 'accept' ? await amuletContext(ledger, instruction.instrument) : [];
      return choiceContext(entries, !excludeDebug(body));
    },
  });

const REGISTRY_ROUTES = [
  getRegistryInfo,
  listInstruments,
  getInstrument,
  getTransferFactory,
  choiceContextRoute('accept'),
  choiceContextRoute('reject'),
  choiceContextRoute('withdraw'),
];

/** The registry routes at `base`, each answering for the admin `adminOf` reads from a request. */
function registerRegistry(app: FastifyInstance, base: string, deps: RegistryRouteDeps): void {
  const routes = [...REGISTRY_ROUTES, ...ALLOCATION_REGISTRY_ROUTES].map((route) => ({
    ...route,
    url: `${base}${route.url}`,
  }));
  registerRoutes(app, deps, routes);
}

export async function registryRoutes(app: FastifyInstance, deps: RegistryDeps): Promise<void> {
  registerRegistry(app, SCAN_PROXY_PREFIX, { ...deps, adminOf: () => null });
  registerRegistry(app, `${PER_ADMIN_REGISTRY_PREFIX}/:admin`, {
    ...deps,
    adminOf: (request) => (request.params as { admin?: string }).admin ?? null,
  });
}
