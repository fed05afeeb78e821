/**
 * `poolparty devnet-ledger`: the embedded local ledger served at the paths a Canton participant
 * and its validator serve, in Canton's shapes — the JSON Ledger API (`/v2/...`, HTTP and
 * WebSocket), Token Standard registries (`.../registry/...`), the validator's scan proxy
 * (`/api/validator/v0/scan-proxy/...`) — plus the devnet conveniences (`/devnet/...`). The
 * `canton` ledger adapter runs against this server exactly as against a real participant.
 */
import websocket from '@fastify/websocket';
import type { Holding, LocalLedger } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_AUDIENCE, WS_AUTH_PROTOCOL } from './auth.js';
import { commandRoutes } from './command-routes.js';
import { authenticate, type ServerContext } from './context.js';
import { ContractHistory } from './contract-history.js';
import { contractRoutes } from './contracts.js';
import type { DevnetPoolListing } from './devnet/pool-manifest.js';
import { devnetRoutes } from './devnet/routes.js';
import { disclosedHoldingsOf } from './disclosed-contracts.js';
import { externalPartyRoutes } from './external-parties.js';
import {
  answerCantonError,
  answerRegistryError,
  answerUnknownParticipantPath,
  readBodiesAsJson,
} from './http/canton-answers.js';
import { createLedgerFastify } from './http/fastify.js';
import { participantIdOf } from './identity.js';
import { interactiveSubmissionRoutes } from './interactive-submission.js';
import { packageRoutes } from './package-routes.js';
import { participantRoutes } from './participant-routes.js';
import { PartyHosting } from './party-hosting.js';
import { PreparedHashes } from './prepared-transaction.js';
import { PER_ADMIN_REGISTRY_PREFIX, registryRoutes } from './registry.js';
import { SCAN_PROXY_PREFIX, scanProxyRoutes } from './scan-proxy.js';
import { CommandRunner } from './token-standard-commands.js';
import { unservedOperationRoutes } from './unserved-operations.js';
import { updateReadRoutes } from './update-reads.js';
import { updateRoutes } from './updates.js';
import { DEFAULT_USER, UserDirectory } from './users.js';
import { validatorUserRoutes } from './validator-user.js';

export interface DevnetLedgerServerOptions {
  /** The embedded ledger it serves (the caller opens and closes it). */
  readonly ledger: LocalLedger;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 = any free port. */
  readonly port?: number;
  /** HS256 secret for bearer JWTs on /v2 (LocalNet style); null: no auth required. */
  readonly authSecret?: string | null;
  /** Default https://canton.network.global. */
  readonly audience?: string;
  readonly logger?: boolean | object;
  /** The pools the ledger was seeded with, listed at `/devnet/pools`; default none. */
  readonly pools?: readonly DevnetPoolListing[];
}

export interface DevnetLedgerServer {
  /** Base URL, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  /** == url (participant JSON API paths /v2/*). */
  readonly ledgerApiUrl: string;
  /** url + '/api/validator'. */
  readonly scanProxyUrl: string;
  /** Default registry base: Canton Coin's, serving the Amulet admin's instruments. */
  readonly registryUrl: string;
  /** Per-admin registry base. */
  registryUrlOf(admin: string): string;
  /**
   * Makes an external party one hosted on another participant (party-hosting.ts): this one no
   * longer reads its holdings, and a prepare needs them disclosed.
   */
  hostElsewhere(partyId: string): Promise<void>;
  /** The party's holdings as its own participant discloses them (for a party hosted elsewhere). */
  disclosedHoldingsOf(partyId: string): Promise<readonly DevnetDisclosedHolding[]>;
  close(): Promise<void>;
}

/** A holding as a disclosed contract, with the holding it is (for a test or a wallet to pick). */
export interface DevnetDisclosedHolding {
  readonly contractId: string;
  readonly templateId: string;
  readonly createdEventBlob: string;
  readonly synchronizerId: string;
  readonly holding: Holding;
}

/** How often a live update stream reports a checkpoint with the ledger time while idle. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

function logLevelOf(logger: boolean | object | undefined): string {
  if (logger === true) return 'info';
  if (typeof logger === 'object' && logger !== null) {
    const level = (logger as { level?: unknown }).level;
    return typeof level === 'string' ? level : 'info';
  }
  return 'silent';
}

/**
 * What every participant route shares: the ledger, its users, auth, history and commands. The
 * embedded ledger's atomic swaps keep one of their own, served by no route.
 */
export function serverContext(
  options: Pick<DevnetLedgerServerOptions, 'ledger' | 'authSecret' | 'audience'>,
): ServerContext {
  const { ledger } = options;
  return {
    ledger,
    participantId: participantIdOf(ledger.operatorNamespace()),
    users: new UserDirectory(ledger, DEFAULT_USER),
    auth: {
      secret: options.authSecret ?? null,
      audience: options.audience ?? DEFAULT_AUDIENCE,
      defaultUser: DEFAULT_USER,
    },
    history: new ContractHistory(ledger),
    commands: new CommandRunner(ledger),
    preparedHashes: new PreparedHashes(),
    hosting: new PartyHosting(ledger),
    checkpointIntervalMs: CHECKPOINT_INTERVAL_MS,
  };
}

/** The JSON Ledger API (`/v2/...`): authenticated, answering JsCantonErrors, bodies read as JSON. */
async function participantApi(participant: FastifyInstance, ctx: ServerContext): Promise<void> {
  participant.setErrorHandler(answerCantonError);
  readBodiesAsJson(participant);
  participant.addHook('onRequest', async (request) => authenticate(ctx, request));
  await participantRoutes(participant, ctx);
  await contractRoutes(participant, ctx);
  await updateRoutes(participant, ctx);
  await updateReadRoutes(participant, ctx);
  await commandRoutes(participant, ctx);
  await interactiveSubmissionRoutes(participant, ctx);
  await externalPartyRoutes(participant, ctx);
  await packageRoutes(participant, ctx);
  await unservedOperationRoutes(participant);
}

/**
 * The validator's APIs: its scan proxy, its operator's user and the registries, answering
 * `{ error }` bodies.
 */
async function validatorApis(validator: FastifyInstance, ctx: ServerContext): Promise<void> {
  validator.setErrorHandler(answerRegistryError);
  readBodiesAsJson(validator);
  await scanProxyRoutes(validator, ctx.ledger);
  await validatorUserRoutes(validator, ctx.ledger);
  await registryRoutes(validator, { ledger: ctx.ledger, history: ctx.history });
}

/** Listens, or closes the app when it cannot: a half-started server must not hold the ledger. */
async function listen(app: FastifyInstance, options: DevnetLedgerServerOptions): Promise<string> {
  try {
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export async function startDevnetLedgerServer(
  options: DevnetLedgerServerOptions,
): Promise<DevnetLedgerServer> {
  const ctx = serverContext(options);
  const app = createLedgerFastify(logLevelOf(options.logger));
  await app.register(websocket, {
    options: {
      // Canton answers with the marker protocol; the token protocol only carries the JWT.
      handleProtocols: (protocols) => (protocols.has(WS_AUTH_PROTOCOL) ? WS_AUTH_PROTOCOL : false),
    },
  });
  await app.register(async (participant) => participantApi(participant, ctx));
  // Unknown participant paths answer in the participant's error shape too.
  await app.register(async (unknown) => unknown.setNotFoundHandler(answerUnknownParticipantPath), {
    prefix: '/v2',
  });
  await app.register(async (validator) => validatorApis(validator, ctx));
  await app.register(async (devnet) => devnetRoutes(devnet, options.ledger, options.pools ?? []), {
    prefix: '/devnet',
  });
  const url = await listen(app, options);
  return {
    url,
    ledgerApiUrl: url,
    scanProxyUrl: `${url}/api/validator`,
    registryUrl: `${url}${SCAN_PROXY_PREFIX}`,
    registryUrlOf: (admin) => `${url}${PER_ADMIN_REGISTRY_PREFIX}/${encodeURIComponent(admin)}`,
    hostElsewhere: (partyId) => ctx.hosting.hostElsewhere(partyId),
    disclosedHoldingsOf: (partyId) => disclosedHoldingsOf(ctx, partyId),
    close: () => app.close(),
  };
}
