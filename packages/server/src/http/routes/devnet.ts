/**
 * The service's devnet endpoints (docs/spec/ledger.md#devnet-endpoints): parties, faucet, signed
 * transfers and offers, the clock, the Amulet price and fault injection. Registered under
 * `/devnet` only in devnet mode with the local ledger. What each one does is the devnet's own
 * (`@poolparty/devnet-ledger`'s devnet/operations.ts, which its server serves too); this module
 * adds the service's side: the documentation, the faucet's rate limit, the origin checks.
 *
 * Calls that act for a party carry `X-Party-Signature`: an Ed25519 signature, by one of the
 * party's registered signing keys, of `METHOD + " " + path + "\n" + rawBody` (core
 * devnet-signing.ts), and their body carries `validUntil`, checked against the ledger clock.
 *
 * The control endpoints (`POST /devnet/clock`, `/oracle`, `/faults`) move the whole devnet for
 * everyone, so a browser page of another site must not drive them: a request with an `Origin`
 * other than the service's own or a configured one is refused 403 `origin_not_allowed`, and their
 * CORS answers name only those origins. Requests without `Origin` (curl, scripts, Node) pass.
 *
 * The faucet is limited per client address (`DEFAULT_RATE_LIMITS.faucetMintsPerMin`, a bucket of
 * its own beside the login attempts' one): it mints out of nothing, and every mint stays in the
 * ledger's journal.
 */
import {
  DevnetBalancesSchema,
  DevnetClockAdvanceSchema,
  DevnetClockSchema,
  DevnetCreatePartySchema,
  DevnetFaucetRequestSchema,
  DevnetFaucetResultSchema,
  DevnetFaultsSchema,
  DevnetOfferActionResultSchema,
  DevnetOfferActionSchema,
  DevnetOffersSchema,
  DevnetOracleSchema,
  DevnetPartySchema,
  DevnetTransferRequestSchema,
  DevnetTransferResultSchema,
  type ErrorCode,
  inline,
  OfferIdParamsSchema,
  PartyIdParamsSchema,
} from '@poolparty/core';
import {
  DevnetConveniences,
  keepRawJsonBodies,
  type OfferAction,
  problemOfLedgerError,
  requireControlOrigin,
  signedRequestOf,
} from '@poolparty/devnet-ledger/devnet';
import { LedgerError, type LocalLedger } from '@poolparty/ledger';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { clientAddressLimitHook, DEFAULT_RATE_LIMITS } from '../authenticate.js';
import type { App } from '../fastify.js';
import {
  DEVNET_CLOCK_ADVANCE_EXAMPLE,
  DEVNET_CLOCK_EXAMPLE,
  DEVNET_CREATE_PARTY_EXAMPLE,
  DEVNET_FAUCET_EXAMPLE,
  DEVNET_FAUCET_RESULT_EXAMPLE,
  DEVNET_FAULTS_EXAMPLE,
  DEVNET_FAULTS_IN_FORCE_EXAMPLE,
  DEVNET_HOLDINGS_EXAMPLE,
  DEVNET_OFFER_ACTION_EXAMPLE,
  DEVNET_OFFER_ACTION_RESULT_EXAMPLE,
  DEVNET_OFFERS_EXAMPLE,
  DEVNET_ORACLE_EXAMPLE,
  DEVNET_PARTY_EXAMPLE,
  DEVNET_TRANSFER_EXAMPLE,
  DEVNET_TRANSFER_RESULT_EXAMPLE,
} from '../openapi-examples.js';
import { ownOrigin } from '../origins.js';
import { requestTarget } from '../problem.js';
import {
  BODY_PROBLEMS,
  errorResponses,
  type ProblemNotes,
  SECURITY,
  TAG,
  withExamples,
} from '../route-docs.js';
import { type RouteHooks, registerRoutes, routeOf } from '../route-table.js';
import type { BucketStore } from '../token-bucket.js';

export interface DevnetDeps {
  readonly ledger: LocalLedger;
  /**
   * Per-client-address buckets that limit the faucet to `DEFAULT_RATE_LIMITS.faucetMintsPerMin`.
   * Absent: not limited.
   */
  readonly buckets?: BucketStore;
  /** Browser origins besides the service's own that may call the control endpoints. */
  readonly controlOrigins: readonly string[];
  /** Lets the service clock follow the ledger clock after `POST /devnet/clock`. */
  readonly onClockAdvanced?: () => Promise<void>;
}

/** The header of the calls that act for a party (verified by the operations). */
const SignedHeadersSchema = Type.Object({
  'x-party-signature': Type.Optional(
    Type.String({
      description:
        "Base64 Ed25519 signature, by the acting party's key, of `METHOD + ' ' + path + '\\n' + rawBody`.",
    }),
  ),
});

/** A party asked for again: only a given key can name an existing party, so no private key. */
const { privateKey: _generatedOnly, ...EXISTING_PARTY_EXAMPLE } = DEVNET_PARTY_EXAMPLE;

/** Every devnet operation: public (devnet only), in the devnet tag. */
const DEVNET = { tags: [TAG.devnet], security: SECURITY.none } as const;

/** How the ledger's refusals read in the devnet operations' problem responses. */
const LEDGER_NOTES: ProblemNotes = {
  validation_error:
    'a malformed request, or one the ledger refuses (insufficient holdings, a transfer to oneself, an ambiguous token symbol: `admins` lists its admins)',
  not_found: 'no such party (or offer)',
  token_not_found: 'no such token under this admin',
  ledger_unavailable:
    'the ledger refused or timed out (fault injection); retry with the same command',
  gone: 'the offer expired',
  invalid_party_signature:
    '`X-Party-Signature` is missing, or not a signature of this method, path and body by a key of the acting party',
  signature_expired: '`validUntil` has passed on the ledger clock; sign the request again',
  origin_not_allowed:
    "a browser page of another origin (only the service's own and `POOLPARTY_DEVNET_CONTROL_ORIGINS` may)",
  rate_limited: 'too many mints from this client address',
};

const devnetErrors = (codes: readonly ErrorCode[]) => errorResponses(codes, LEDGER_NOTES);

/** Answered inline, as it always was: not a component of the document. */
const HoldingBalancesSchema = inline(DevnetBalancesSchema);

const PendingOffersSchema = inline(DevnetOffersSchema, {
  description: 'Offers pending to the party (it is the receiver).',
});

/** What the devnet routes share: the module's dependencies and the operations on the ledger. */
interface DevnetRouteDeps extends DevnetDeps {
  readonly devnet: DevnetConveniences;
}

const devnetRoute = routeOf<DevnetRouteDeps>();
const FAUCET_MINTS_PER_MIN = DEFAULT_RATE_LIMITS.faucetMintsPerMin;

/** The hooks of the control endpoints: only allowed browser origins may call them. */
const controlOnly = ({ controlOrigins }: DevnetRouteDeps): RouteHooks => ({
  onRequest: async (request: FastifyRequest) =>
    requireControlOrigin(
      {
        target: requestTarget(request),
        origin: typeof request.headers.origin === 'string' ? request.headers.origin : undefined,
        own: ownOrigin(request),
      },
      controlOrigins,
    ),
});

const createDevnetParty = devnetRoute({
  method: 'POST',
  url: '/parties',
  schema: {
    operationId: 'createDevnetParty',
    summary: 'Create a party',
    description:
      'A new external party with an Ed25519 key: the given public key, or a generated pair ' +
      'whose private key is in this answer only. It pre-approves incoming transfers unless ' +
      '`preapproval` is false. 201 when this request created the party; 200, with the same ' +
      'body, when the party of this hint and key exists already (a retried request), and ' +
      'then as it was created: `preapproval` is not changed.',
    ...DEVNET,
    body: withExamples(DevnetCreatePartySchema, DEVNET_CREATE_PARTY_EXAMPLE),
    response: {
      200: withExamples(
        inline(DevnetPartySchema, {
          description: 'The party existed already: the same hint and public key.',
        }),
        EXISTING_PARTY_EXAMPLE,
      ),
      201: withExamples(DevnetPartySchema, DEVNET_PARTY_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'ledger_unavailable']),
  },
  handler: async ({ devnet }, request, reply) => {
    const { created, party } = await devnet.createParty(request.body);
    reply.code(created ? 201 : 200);
    return party;
  },
});

const mintDevnetTokens = devnetRoute({
  method: 'POST',
  url: '/faucet',
  hooks: ({ buckets }) =>
    buckets ? { onRequest: clientAddressLimitHook(buckets, FAUCET_MINTS_PER_MIN, 'faucet') } : {},
  schema: {
    operationId: 'mintDevnetTokens',
    summary: 'Mint tokens to a party (faucet)',
    description: `Limited per client address: ${FAUCET_MINTS_PER_MIN} mints at once, then one every ${60 / FAUCET_MINTS_PER_MIN} s.`,
    ...DEVNET,
    body: withExamples(DevnetFaucetRequestSchema, DEVNET_FAUCET_EXAMPLE),
    response: {
      200: withExamples(DevnetFaucetResultSchema, DEVNET_FAUCET_RESULT_EXAMPLE),
    },
    problems: devnetErrors([
      ...BODY_PROBLEMS,
      'not_found',
      'token_not_found',
      'rate_limited',
      'ledger_unavailable',
    ]),
  },
  handler: ({ devnet }, request) => devnet.mint(request.body),
});

const getDevnetHoldings = devnetRoute({
  method: 'GET',
  url: '/parties/:partyId/holdings',
  schema: {
    operationId: 'getDevnetHoldings',
    summary: "Get a party's balances",
    ...DEVNET,
    params: PartyIdParamsSchema,
    response: {
      200: withExamples(HoldingBalancesSchema, DEVNET_HOLDINGS_EXAMPLE),
    },
    problems: devnetErrors(['validation_error', 'not_found', 'ledger_unavailable']),
  },
  handler: ({ devnet }, request) => devnet.balances(request.params.partyId),
});

const submitDevnetTransfer = devnetRoute({
  method: 'POST',
  url: '/transfers',
  schema: {
    operationId: 'submitDevnetTransfer',
    summary: 'Transfer tokens, signed by the sender',
    description:
      'A token-standard transfer: `direct` when the receiver pre-approved the token, else an ' +
      'offer the receiver accepts or rejects. `commandId` deduplicates retries.',
    ...DEVNET,
    body: withExamples(DevnetTransferRequestSchema, DEVNET_TRANSFER_EXAMPLE),
    headers: SignedHeadersSchema,
    response: {
      200: withExamples(DevnetTransferResultSchema, DEVNET_TRANSFER_RESULT_EXAMPLE),
    },
    problems: devnetErrors([
      ...BODY_PROBLEMS,
      'invalid_party_signature',
      'signature_expired',
      'not_found',
      'token_not_found',
      'ledger_unavailable',
    ]),
  },
  handler: ({ devnet }, request) => devnet.transfer(request.body, signedRequestOf(request)),
});

const listDevnetOffers = devnetRoute({
  method: 'GET',
  url: '/parties/:partyId/offers',
  schema: {
    operationId: 'listDevnetOffers',
    summary: 'List the offers pending to a party',
    ...DEVNET,
    params: PartyIdParamsSchema,
    response: {
      200: withExamples(PendingOffersSchema, DEVNET_OFFERS_EXAMPLE),
    },
    problems: devnetErrors(['validation_error', 'not_found', 'ledger_unavailable']),
  },
  handler: ({ devnet }, request) => devnet.offersTo(request.params.partyId),
});

/** `POST /offers/{offerId}/accept` or `/reject`, signed by the receiver. */
function offerActionRoute(action: OfferAction) {
  return devnetRoute({
    method: 'POST',
    url: `/offers/:offerId/${action}`,
    schema: {
      operationId: `${action}DevnetOffer`,
      summary: `${action === 'accept' ? 'Accept' : 'Reject'} a transfer offer, signed by the receiver`,
      ...DEVNET,
      params: OfferIdParamsSchema,
      body: withExamples(DevnetOfferActionSchema, DEVNET_OFFER_ACTION_EXAMPLE),
      headers: SignedHeadersSchema,
      response: {
        200: withExamples(DevnetOfferActionResultSchema, DEVNET_OFFER_ACTION_RESULT_EXAMPLE),
      },
      problems: devnetErrors([
        ...BODY_PROBLEMS,
        'invalid_party_signature',
        'signature_expired',
        'not_found',
        'gone',
        'ledger_unavailable',
      ]),
    },
    handler: ({ devnet }, request) =>
      devnet.actOnOffer(action, request.params.offerId, request.body, signedRequestOf(request)),
  });
}

const getDevnetClock = devnetRoute({
  method: 'GET',
  url: '/clock',
  schema: {
    operationId: 'getDevnetClock',
    summary: 'Read the ledger clock',
    description:
      'Signed requests set `validUntil` from this time: at most 1 h ahead of it. It differs ' +
      'from real time once the clock has been moved.',
    ...DEVNET,
    response: {
      200: withExamples(
        inline(DevnetClockSchema, { description: 'The ledger clock now.' }),
        DEVNET_CLOCK_EXAMPLE,
      ),
    },
    problems: devnetErrors(['ledger_unavailable']),
  },
  handler: ({ devnet }) => devnet.clock(),
});

const advanceDevnetClock = devnetRoute({
  method: 'POST',
  url: '/clock',
  hooks: controlOnly,
  schema: {
    operationId: 'advanceDevnetClock',
    summary: 'Move the ledger clock forward',
    description: 'Mining rounds advance with it; the service clock follows.',
    ...DEVNET,
    body: withExamples(DevnetClockAdvanceSchema, DEVNET_CLOCK_ADVANCE_EXAMPLE),
    response: {
      200: withExamples(DevnetClockSchema, DEVNET_CLOCK_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'origin_not_allowed', 'ledger_unavailable']),
  },
  handler: async ({ devnet, onClockAdvanced }, request) => {
    const moved = await devnet.advanceClock(request.body);
    await onClockAdvanced?.();
    return moved;
  },
});

const setDevnetAmuletPrice = devnetRoute({
  method: 'POST',
  url: '/oracle',
  hooks: controlOnly,
  schema: {
    operationId: 'setDevnetAmuletPrice',
    summary: 'Set the Amulet USD price',
    description: 'The price the next mining rounds carry; it must be positive.',
    ...DEVNET,
    body: withExamples(DevnetOracleSchema, DEVNET_ORACLE_EXAMPLE),
    response: {
      200: withExamples(DevnetOracleSchema, DEVNET_ORACLE_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'origin_not_allowed', 'ledger_unavailable']),
  },
  handler: ({ devnet }, request) => devnet.setAmuletPrice(request.body),
});

const setDevnetFaults = devnetRoute({
  method: 'POST',
  url: '/faults',
  hooks: controlOnly,
  schema: {
    operationId: 'setDevnetFaults',
    summary: 'Set fault injection',
    description:
      'Changes the settings named in the body and keeps the others; answers the settings now ' +
      'in force.',
    ...DEVNET,
    body: withExamples(DevnetFaultsSchema, DEVNET_FAULTS_EXAMPLE),
    response: {
      200: withExamples(DevnetFaultsSchema, DEVNET_FAULTS_IN_FORCE_EXAMPLE),
    },
    problems: devnetErrors([...BODY_PROBLEMS, 'origin_not_allowed']),
  },
  handler: ({ devnet }, request) => devnet.setFaults(request.body),
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
];

export async function devnetRoutes(app: App, deps: DevnetDeps): Promise<void> {
  keepRawJsonBodies(app);
  // The operations answer ledger refusals as problems; the service clock's follow-up reads the
  // ledger too, and its refusals read the same. The parent handler then answers them.
  app.setErrorHandler((error) => {
    throw error instanceof LedgerError ? problemOfLedgerError(error) : error;
  });
  registerRoutes(app, { ...deps, devnet: new DevnetConveniences(deps.ledger) }, DEVNET_ROUTES);
}
