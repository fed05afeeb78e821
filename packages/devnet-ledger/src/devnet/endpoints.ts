/**
 * The `/devnet` endpoints, each once: its method, path, wire schemas (core's) and handler over the
 * devnet conveniences. The devnet ledger server serves them as they are (routes.ts); the service
 * in devnet mode serves the same ones with what it adds (its documentation, the faucet's rate
 * limit, the origins its control endpoints take), so the two cannot drift apart.
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
import type { FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { DevnetConveniences, OfferAction } from './operations.js';
import { SignedHeadersSchema, signedRequestOf } from './signed-requests.js';

/** What the endpoints' handlers share. */
export interface DevnetEndpointDeps {
  readonly devnet: DevnetConveniences;
  /** Called once `POST /devnet/clock` has moved the ledger clock, before it answers. */
  readonly onClockAdvanced?: () => Promise<void>;
}

/** The wire schemas of an endpoint: what validates its request and serializes its answers. */
export interface DevnetEndpointSchema {
  readonly params?: object;
  readonly body?: object;
  readonly headers?: object;
  /** By status. */
  readonly response: Readonly<Record<number, object>>;
}

/** One `/devnet` endpoint; `G` types its params and body. */
export interface DevnetEndpoint<
  N extends string = string,
  G extends RouteGenericInterface = RouteGenericInterface,
> {
  /** Its operation's name, e.g. `createDevnetParty`. */
  readonly name: N;
  readonly method: 'GET' | 'POST';
  /** Under `/devnet`. */
  readonly url: string;
  /**
   * It moves the whole devnet for everyone (the clock, the Amulet price, faults): a server lets
   * no browser page of an origin it does not allow call it.
   */
  readonly control?: true;
  readonly schema: DevnetEndpointSchema;
  /** A method, so that an endpoint of any request type fits the list. */
  handler(
    deps: DevnetEndpointDeps,
    request: FastifyRequest<G>,
    reply: FastifyReply,
  ): Promise<unknown>;
}

/** An endpoint, its name kept as a literal and its request typed by its handler. */
const endpoint = <const N extends string, G extends RouteGenericInterface>(
  definition: DevnetEndpoint<N, G>,
): DevnetEndpoint<N, G> => definition;

type WithBody<B> = FastifyRequest<{ Body: B }>;
type WithParams<P> = FastifyRequest<{ Params: P }>;

const createDevnetParty = endpoint({
  name: 'createDevnetParty',
  method: 'POST',
  url: '/parties',
  schema: {
    body: DevnetCreatePartySchema,
    response: { 200: DevnetPartySchema, 201: DevnetPartySchema },
  },
  handler: async ({ devnet }, request: WithBody<DevnetCreateParty>, reply) => {
    const { created, party } = await devnet.createParty(request.body);
    reply.code(created ? 201 : 200);
    return party;
  },
});

const mintDevnetTokens = endpoint({
  name: 'mintDevnetTokens',
  method: 'POST',
  url: '/faucet',
  schema: { body: DevnetFaucetRequestSchema, response: { 200: DevnetFaucetResultSchema } },
  handler: ({ devnet }, request: WithBody<DevnetFaucetRequest>) => devnet.mint(request.body),
});

const getDevnetHoldings = endpoint({
  name: 'getDevnetHoldings',
  method: 'GET',
  url: '/parties/:partyId/holdings',
  schema: { params: PartyIdParamsSchema, response: { 200: DevnetBalancesSchema } },
  handler: ({ devnet }, request: WithParams<PartyIdParams>) =>
    devnet.balances(request.params.partyId),
});

const submitDevnetTransfer = endpoint({
  name: 'submitDevnetTransfer',
  method: 'POST',
  url: '/transfers',
  schema: {
    body: DevnetTransferRequestSchema,
    headers: SignedHeadersSchema,
    response: { 200: DevnetTransferResultSchema },
  },
  handler: ({ devnet }, request: WithBody<DevnetTransferRequest>) =>
    devnet.transfer(request.body, signedRequestOf(request)),
});

const listDevnetOffers = endpoint({
  name: 'listDevnetOffers',
  method: 'GET',
  url: '/parties/:partyId/offers',
  schema: { params: PartyIdParamsSchema, response: { 200: DevnetOffersSchema } },
  handler: ({ devnet }, request: WithParams<PartyIdParams>) =>
    devnet.offersTo(request.params.partyId),
});

/** `POST /offers/{offerId}/accept` or `/reject`, signed by the receiver. */
const offerAction = <const A extends OfferAction>(action: A) =>
  endpoint({
    name: `${action}DevnetOffer` as const,
    method: 'POST',
    url: `/offers/:offerId/${action}`,
    schema: {
      params: OfferIdParamsSchema,
      body: DevnetOfferActionSchema,
      headers: SignedHeadersSchema,
      response: { 200: DevnetOfferActionResultSchema },
    },
    handler: (
      { devnet },
      request: FastifyRequest<{ Params: OfferIdParams; Body: DevnetOfferAction }>,
    ) => devnet.actOnOffer(action, request.params.offerId, request.body, signedRequestOf(request)),
  });

const getDevnetClock = endpoint({
  name: 'getDevnetClock',
  method: 'GET',
  url: '/clock',
  schema: { response: { 200: DevnetClockSchema } },
  handler: ({ devnet }) => devnet.clock(),
});

const advanceDevnetClock = endpoint({
  name: 'advanceDevnetClock',
  method: 'POST',
  url: '/clock',
  control: true,
  schema: { body: DevnetClockAdvanceSchema, response: { 200: DevnetClockSchema } },
  handler: async ({ devnet, onClockAdvanced }, request: WithBody<DevnetClockAdvance>) => {
    const moved = await devnet.advanceClock(request.body);
    await onClockAdvanced?.();
    return moved;
  },
});

const setDevnetAmuletPrice = endpoint({
  name: 'setDevnetAmuletPrice',
  method: 'POST',
  url: '/oracle',
  control: true,
  schema: { body: DevnetOracleSchema, response: { 200: DevnetOracleSchema } },
  handler: ({ devnet }, request: WithBody<DevnetOracle>) => devnet.setAmuletPrice(request.body),
});

const setDevnetFaults = endpoint({
  name: 'setDevnetFaults',
  method: 'POST',
  url: '/faults',
  control: true,
  schema: { body: DevnetFaultsSchema, response: { 200: DevnetFaultsSchema } },
  handler: ({ devnet }, request: WithBody<DevnetFaults>) => devnet.setFaults(request.body),
});

/** Every `/devnet` endpoint, in the order servers register (and the service documents) them. */
export const DEVNET_ENDPOINTS = [
  createDevnetParty,
  mintDevnetTokens,
  getDevnetHoldings,
  submitDevnetTransfer,
  listDevnetOffers,
  offerAction('accept'),
  offerAction('reject'),
  getDevnetClock,
  advanceDevnetClock,
  setDevnetAmuletPrice,
  setDevnetFaults,
] as const;

export type DevnetEndpointName = (typeof DEVNET_ENDPOINTS)[number]['name'];
