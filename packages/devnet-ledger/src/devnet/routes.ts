/**
 * The devnet ledger server's `/devnet` routes: the devnet conveniences (operations.ts) at the
 * service's paths, validated and answered by core's wire schemas, refused with problem documents.
 * Without the service's documentation, rate limit or CORS: this server stands in for a
 * participant on the operator's own machine, and funds whole test clusters from one address. The
 * control routes take no requests from a browser page of another origin than the server's own.
 * Beside them, `GET /devnet/pools` lists the pools the ledger was seeded with.
 */
import {
  DevnetBalancesSchema,
  type DevnetClockAdvance,
  DevnetClockAdvanceSchema,
  DevnetClockSchema,
  type DevnetCreateParty,
  DevnetCreatePartySchema,
  type DevnetFaucetRequest,
  DevnetFaucetRequestSchema,
  DevnetFaucetResultSchema,
  type DevnetFaults,
  DevnetFaultsSchema,
  type DevnetOfferAction,
  DevnetOfferActionResultSchema,
  DevnetOfferActionSchema,
  DevnetOffersSchema,
  type DevnetOracle,
  DevnetOracleSchema,
  DevnetPartySchema,
  type DevnetTransferRequest,
  DevnetTransferRequestSchema,
  DevnetTransferResultSchema,
  type OfferIdParams,
  OfferIdParamsSchema,
  type PartyIdParams,
  PartyIdParamsSchema,
} from '@poolparty/core';
import type { LocalLedger } from '@poolparty/ledger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { arrivedOverTls } from '../http/fastify.js';
import { answerWithProblems, requestTarget, sendProblem } from '../http/problems.js';
import { registerRoutes, routeOf } from '../http/route-table.js';
import { DevnetConveniences, type OfferAction, requireControlOrigin } from './operations.js';
import { type DevnetPoolListing, poolManifest } from './pool-manifest.js';
import { keepRawJsonBodies, signedRequestOf } from './signed-requests.js';

interface DevnetRouteDeps {
  readonly devnet: DevnetConveniences;
  readonly pools: ReturnType<typeof poolManifest>;
}

const devnetRoute = routeOf<DevnetRouteDeps>();

/** The `onRequest` hook of the control routes: no browser page of another origin. */
const controlOnly = () => async (request: FastifyRequest) => {
  const { origin } = request.headers;
  const scheme = arrivedOverTls(request.raw) ? 'https' : request.protocol;
  requireControlOrigin(
    {
      target: requestTarget(request),
      origin: typeof origin === 'string' ? origin : undefined,
      own: `${scheme}://${request.host}`,
    },
    [],
  );
};

const createDevnetParty = devnetRoute<{ Body: DevnetCreateParty }>({
  method: 'POST',
  url: '/parties',
  schema: {
    body: DevnetCreatePartySchema,
    response: { 200: DevnetPartySchema, 201: DevnetPartySchema },
  },
  handler: async ({ devnet }, request, reply) => {
    const { created, party } = await devnet.createParty(request.body);
    reply.code(created ? 201 : 200);
    return party;
  },
});

const mintDevnetTokens = devnetRoute<{ Body: DevnetFaucetRequest }>({
  method: 'POST',
  url: '/faucet',
  schema: { body: DevnetFaucetRequestSchema, response: { 200: DevnetFaucetResultSchema } },
  handler: ({ devnet }, request) => devnet.mint(request.body),
});

const getDevnetHoldings = devnetRoute<{ Params: PartyIdParams }>({
  method: 'GET',
  url: '/parties/:partyId/holdings',
  schema: { params: PartyIdParamsSchema, response: { 200: DevnetBalancesSchema } },
  handler: ({ devnet }, request) => devnet.balances(request.params.partyId),
});

const submitDevnetTransfer = devnetRoute<{ Body: DevnetTransferRequest }>({
  method: 'POST',
  url: '/transfers',
  schema: { body: DevnetTransferRequestSchema, response: { 200: DevnetTransferResultSchema } },
  handler: ({ devnet }, request) => devnet.transfer(request.body, signedRequestOf(request)),
});

const listDevnetOffers = devnetRoute<{ Params: PartyIdParams }>({
  method: 'GET',
  url: '/parties/:partyId/offers',
  schema: { params: PartyIdParamsSchema, response: { 200: DevnetOffersSchema } },
  handler: ({ devnet }, request) => devnet.offersTo(request.params.partyId),
});

/** `POST /offers/{offerId}/accept` or `/reject`, signed by the receiver. */
const offerActionRoute = (action: OfferAction) =>
  devnetRoute<{ Params: OfferIdParams; Body: DevnetOfferAction }>({
    method: 'POST',
    url: `/offers/:offerId/${action}`,
    schema: {
      params: OfferIdParamsSchema,
      body: DevnetOfferActionSchema,
      response: { 200: DevnetOfferActionResultSchema },
    },
    handler: ({ devnet }, request) =>
      devnet.actOnOffer(action, request.params.offerId, request.body, signedRequestOf(request)),
  });

const getDevnetClock = devnetRoute({
  method: 'GET',
  url: '/clock',
  schema: { response: { 200: DevnetClockSchema } },
  handler: ({ devnet }) => devnet.clock(),
});

const advanceDevnetClock = devnetRoute<{ Body: DevnetClockAdvance }>({
  method: 'POST',
  url: '/clock',
  onRequest: controlOnly,
  schema: { body: DevnetClockAdvanceSchema, response: { 200: DevnetClockSchema } },
  handler: ({ devnet }, request) => devnet.advanceClock(request.body),
});

const setDevnetAmuletPrice = devnetRoute<{ Body: DevnetOracle }>({
  method: 'POST',
  url: '/oracle',
  onRequest: controlOnly,
  schema: { body: DevnetOracleSchema, response: { 200: DevnetOracleSchema } },
  handler: ({ devnet }, request) => devnet.setAmuletPrice(request.body),
});

const setDevnetFaults = devnetRoute<{ Body: DevnetFaults }>({
  method: 'POST',
  url: '/faults',
  onRequest: controlOnly,
  schema: { body: DevnetFaultsSchema, response: { 200: DevnetFaultsSchema } },
  handler: ({ devnet }, request) => devnet.setFaults(request.body),
});

const listDevnetPools = devnetRoute({
  method: 'GET',
  url: '/pools',
  handler: async ({ pools }) => pools,
});

const DEVNET_ROUTES = [
  createDevnetParty,
  mintDevnetTokens,
  getDevnetHoldings,
  submitDevnetTransfer,
  listDevnetOffers,
  offerActionRoute('accept'),
  offerActionRoute('reject'),
  getDevnetClock,
  advanceDevnetClock,
  setDevnetAmuletPrice,
  setDevnetFaults,
  listDevnetPools,
];

/**
 * Refuses a number member that validation let through as ±Infinity: Ajv coerces the strings
 * `"Infinity"` and `"1e400"` to it and then skips the range checks of a non-finite value.
 */
function refuseNonFiniteNumbers(request: FastifyRequest, reply: FastifyReply, done: () => void) {
  const schema = request.routeOptions.schema ?? {};
  for (const part of ['querystring', 'params', 'body'] as const) {
    const members = (schema[part] as { properties?: object } | undefined)?.properties ?? {};
    const values = (part === 'querystring' ? request.query : request[part]) as
      | Record<string, unknown>
      | undefined;
    for (const name of Object.keys(members)) {
      const raw = values?.[name];
      if (
        (Array.isArray(raw) ? raw : [raw]).some((v) => typeof v === 'number' && !Number.isFinite(v))
      ) {
        const path = `/${part}/${name}`;
        sendProblem(request, reply, 'validation_error', `${path} must be a finite number`, {
          errors: [{ path, message: 'must be a finite number' }],
        });
        return;
      }
    }
  }
  done();
}

/** Registers the `/devnet` routes on `scope` (prefixed `/devnet`), with their problem answers. */
export function devnetRoutes(
  scope: FastifyInstance,
  ledger: LocalLedger,
  pools: readonly DevnetPoolListing[],
): void {
  answerWithProblems(scope);
  keepRawJsonBodies(scope);
  scope.addHook('preHandler', refuseNonFiniteNumbers);
  const deps = { devnet: new DevnetConveniences(ledger), pools: poolManifest(pools) };
  registerRoutes(scope, deps, DEVNET_ROUTES);
}
