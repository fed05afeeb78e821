/**
 * `poolparty devnet-ledger`: the embedded local ledger served at the paths a Canton participant
 * and its validator serve, in Canton's shapes — the JSON Ledger API (`/v2/...`, HTTP and
 * WebSocket), Token Standard registries (`.../registry/...`), the validator's scan proxy
 * (`/api/validator/v0/scan-proxy/...`) — plus the devnet conveniences (`/devnet/...`). The
 * `canton` ledger adapter runs against this server exactly as against a real participant.
 */
import websocket from '@fastify/websocket';
import type { LocalLedger } from '@poolparty/ledger';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createFastify } from '../http/fastify.js';
import { registerProblemHandlers } from '../http/problem.js';
import { devnetRoutes } from '../http/routes/devnet.js';
import { DEFAULT_AUDIENCE, WS_AUTH_PROTOCOL } from './auth.js';
import { asCantonError, CantonApiError, invalidArgument, RegistryError } from './canton-errors.js';
import { commandRoutes } from './command-routes.js';
import { authenticate, type ServerContext } from './context.js';
import { ContractHistory } from './contract-history.js';
import { contractRoutes } from './contracts.js';
import { interactiveSubmissionRoutes } from './interactive-submission.js';
import { participantRoutes } from './participant-routes.js';
import { type DevnetPoolListing, poolManifestRoutes } from './pool-manifest.js';
import { PER_ADMIN_REGISTRY_PREFIX, registryRoutes } from './registry.js';
import { SCAN_PROXY_PREFIX, scanProxyRoutes } from './scan-proxy.js';
import { CommandRunner } from './token-standard-commands.js';
import { updateRoutes } from './updates.js';
import { DEFAULT_USER, UserDirectory } from './users.js';

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
  /** Default registry base (serves every admin's instruments). */
  readonly registryUrl: string;
  /** Per-admin registry base. */
  registryUrlOf(admin: string): string;
  close(): Promise<void>;
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

/** The JsCantonError answer of any failure on a participant path. */
function answerCantonError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const canton =
    asCantonError(error) ??
    (isClientError(error) ? invalidArgument(error.message) : null) ??
    new CantonApiError(
      'INTERNAL_ERROR',
      'SystemInternalAssumptionViolated',
      'An error occurred. Please contact the operator and inquire about the request',
    );
  if (canton.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'unhandled error');
  return reply.status(canton.status).send(canton.body(request.id));
}

/** The `{ error }` answer of the registry and scan-proxy paths. */
function answerRegistryError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof RegistryError)
    return reply.status(error.status).send({ error: error.message });
  const canton = asCantonError(error);
  if (canton !== null) {
    return reply.status(canton.status >= 500 ? canton.status : 400).send({ error: canton.cause_ });
  }
  if (isClientError(error)) return reply.status(400).send({ error: error.message });
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send({ error: 'internal error' });
}

function isClientError(error: unknown): error is FastifyError {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Reads a request body as JSON whatever its Content-Type says, as a participant and a validator
 * do: Canton's own TypeScript client (core-ledger-client 1.8.0) sends its POST bodies with no
 * Content-Type at all (its token-adding fetch wrapper replaces the request's headers).
 */
function readBodiesAsJson(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    '*',
    { parseAs: 'string' },
    scope.getDefaultJsonParser('error', 'error'),
  );
}

export async function startDevnetLedgerServer(
  options: DevnetLedgerServerOptions,
): Promise<DevnetLedgerServer> {
  const { ledger } = options;
  const ctx: ServerContext = {
    ledger,
    users: new UserDirectory(ledger, DEFAULT_USER),
    auth: {
      secret: options.authSecret ?? null,
      audience: options.audience ?? DEFAULT_AUDIENCE,
      defaultUser: DEFAULT_USER,
    },
    history: new ContractHistory(ledger),
    commands: new CommandRunner(ledger),
    checkpointIntervalMs: CHECKPOINT_INTERVAL_MS,
  };
  const app = createFastify({ logLevel: logLevelOf(options.logger), logFormat: 'json' });
  await app.register(websocket, {
    options: {
      // Canton answers with the marker protocol; the token protocol only carries the JWT.
      handleProtocols: (protocols) => (protocols.has(WS_AUTH_PROTOCOL) ? WS_AUTH_PROTOCOL : false),
    },
  });
  await app.register(async (participant: FastifyInstance) => {
    participant.setErrorHandler(answerCantonError);
    readBodiesAsJson(participant);
    participant.addHook('onRequest', async (request) => authenticate(ctx, request));
    await participantRoutes(participant, ctx);
    await contractRoutes(participant, ctx);
    await updateRoutes(participant, ctx);
    await commandRoutes(participant, ctx);
    await interactiveSubmissionRoutes(participant, ctx);
  });
  // Unknown participant paths answer in the participant's error shape too.
  await app.register(
    async (unknown: FastifyInstance) => {
      unknown.setNotFoundHandler((request, reply) => {
        const error = new CantonApiError(
          'NOT_FOUND',
          'InvalidGivenCurrentSystemStateResourceMissing',
          `No endpoint ${request.method} ${request.url.split('?')[0]}`,
        );
        return reply.status(error.status).send(error.body(request.id));
      });
    },
    { prefix: '/v2' },
  );
  await app.register(async (validator: FastifyInstance) => {
    validator.setErrorHandler(answerRegistryError);
    readBodiesAsJson(validator);
    await scanProxyRoutes(validator, ledger);
    await registryRoutes(validator, { ledger, history: ctx.history });
  });
  await app.register(
    async (devnet) => {
      registerProblemHandlers(devnet);
      // devnetRoutes sets its own error handler, which hands problems to this scope's.
      await devnet.register(async (routes) => devnetRoutes(routes, { ledger, controlOrigins: [] }));
      await poolManifestRoutes(devnet, options.pools ?? []);
    },
    { prefix: '/devnet' },
  );
  try {
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  } catch (error) {
    // A port in use must not leave a half-started server holding the ledger's listeners.
    await app.close();
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    ledgerApiUrl: url,
    scanProxyUrl: `${url}/api/validator`,
    registryUrl: `${url}${SCAN_PROXY_PREFIX}`,
    registryUrlOf: (admin) => `${url}${PER_ADMIN_REGISTRY_PREFIX}/${encodeURIComponent(admin)}`,
    close: () => app.close(),
  };
}
