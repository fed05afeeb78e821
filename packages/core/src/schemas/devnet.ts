/**
 * The devnet endpoints of the local ledger (docs/spec/ledger.md#devnet-endpoints), for demos and
 * end-to-end tests.
 *
 * Fault settings mirror `LedgerFaults` of the local ledger. A request replaces the whole set (an
 * absent setting is off); the answer is the set now in force. Rates are probabilities (0 to 1).
 */
import { type Static, Type } from '@sinclair/typebox';
import { PublicKeySchema, SignatureSchema } from './auth.js';
import {
  AmountStringSchema,
  inline,
  PartyHintSchema,
  PartyIdSchema,
  TimestampSchema,
  TokenSymbolSchema,
  UpdateIdSchema,
} from './common.js';

/** A year of ledger time: more than any demo needs, small enough to catch a unit mistake. */
const CLOCK_ADVANCE_MS_MAX = 365 * 24 * 60 * 60 * 1000;
const FAULT_LATENCY_MS_MAX = 60_000;

const closed = (id: string, description: string) =>
  ({ $id: id, description, additionalProperties: false }) as const;
const admin = (description: string) => inline(PartyIdSchema, { description });
const offerId = Type.String({ pattern: '^[A-Za-z0-9:_-]{1,255}$', description: 'An offer id.' });
/** Bounds replay of a signed body: refused once past, or when more than 1 h ahead. */
const validUntil = inline(TimestampSchema, {
  description:
    'Until when this signed request may be used, on the ledger clock: not past, at most 1 h ahead.',
});
const rate = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

export const DevnetCreatePartySchema = Type.Object(
  {
    partyHint: inline(PartyHintSchema),
    publicKey: Type.Optional(inline(PublicKeySchema, { description: 'Omit to get a new pair.' })),
    preapproval: Type.Optional(
      Type.Boolean({ default: true, description: 'Pre-approve incoming transfers of all tokens.' }),
    ),
  },
  closed('DevnetCreateParty', 'Body of `POST /devnet/parties`.'),
);
export type DevnetCreateParty = Static<typeof DevnetCreatePartySchema>;

export const DevnetPartySchema = Type.Object(
  {
    partyId: inline(PartyIdSchema),
    publicKey: Type.String({ description: 'Base64 of the raw 32-byte Ed25519 key.' }),
    privateKey: Type.Optional(
      Type.String({ description: 'Base64 of the 32-byte seed; only when it was generated.' }),
    ),
  },
  { $id: 'DevnetParty', description: 'A devnet party.' },
);
export type DevnetParty = Static<typeof DevnetPartySchema>;

export const DevnetFaucetRequestSchema = Type.Object(
  {
    partyId: inline(PartyIdSchema),
    token: inline(TokenSymbolSchema),
    admin: Type.Optional(admin('Needed when the symbol exists under several admins.')),
    amount: inline(AmountStringSchema),
  },
  closed('DevnetFaucetRequest', 'Body of `POST /devnet/faucet`: mint a holding.'),
);
export type DevnetFaucetRequest = Static<typeof DevnetFaucetRequestSchema>;

export const DevnetFaucetResultSchema = Type.Object(
  {
    holdingId: Type.String({ description: 'The new holding.' }),
    amount: inline(AmountStringSchema),
  },
  { $id: 'DevnetFaucetResult', description: 'The minted holding.' },
);
export type DevnetFaucetResult = Static<typeof DevnetFaucetResultSchema>;

const DevnetHoldingSchema = Type.Object(
  {
    token: inline(TokenSymbolSchema),
    admin: admin("The token's admin."),
    amount: inline(AmountStringSchema),
  },
  { $id: 'DevnetHolding', description: "A party's balance of one instrument." },
);

export const DevnetHoldingsSchema = Type.Object(
  { holdings: Type.Array(inline(DevnetHoldingSchema)) },
  { $id: 'DevnetHoldings', description: 'Balances of a party, per instrument.' },
);

/** A party's balances as the devnet answers them: per instrument, spendable and locked apart. */
export const DevnetBalancesSchema = Type.Object(
  {
    holdings: Type.Array(
      Type.Object({
        ...DevnetHoldingSchema.properties,
        amount: inline(AmountStringSchema, { description: 'Spendable: not locked.' }),
        locked: inline(AmountStringSchema, { description: "Locked for the party's offers." }),
      }),
    ),
  },
  { $id: 'DevnetBalances', description: 'Balances of a party, per instrument.' },
);
export type DevnetBalances = Static<typeof DevnetBalancesSchema>;

export const DevnetTransferRequestSchema = Type.Object(
  {
    sender: inline(PartyIdSchema),
    receiver: inline(PartyIdSchema),
    token: inline(TokenSymbolSchema),
    admin: Type.Optional(admin('Needed when the symbol exists under several admins.')),
    amount: inline(AmountStringSchema),
    reason: Type.Optional(Type.String({ maxLength: 8192, description: 'The transfer reason.' })),
    commandId: Type.String({ minLength: 1, maxLength: 255, description: 'Deduplication key.' }),
    validUntil,
  },
  closed('DevnetTransferRequest', 'Body of `POST /devnet/transfers`, signed by the sender.'),
);
export type DevnetTransferRequest = Static<typeof DevnetTransferRequestSchema>;

/** Header names are lower case as servers see them; other headers pass, so this stays open. */
const DevnetSignedHeadersSchema = Type.Object(
  {
    'x-party-signature': inline(SignatureSchema, {
      description:
        "Base64 Ed25519 signature, by the acting party's key, of `METHOD + ' ' + path + '\\n' + rawBody`.",
    }),
  },
  { $id: 'DevnetSignedHeaders', description: 'Headers of devnet calls that act for a party.' },
);

export const DevnetTransferResultSchema = Type.Object(
  {
    updateId: inline(UpdateIdSchema),
    kind: Type.Union([Type.Literal('direct'), Type.Literal('offer')], {
      description: "`direct` with the receiver's pre-approval, else an offer to accept.",
    }),
    offerId: Type.Optional(inline(offerId, { description: 'With `kind: offer`.' })),
  },
  { $id: 'DevnetTransferResult', description: 'Outcome of a devnet transfer.' },
);
export type DevnetTransferResult = Static<typeof DevnetTransferResultSchema>;

const DevnetOfferSchema = Type.Object(
  {
    offerId,
    sender: inline(PartyIdSchema),
    receiver: inline(PartyIdSchema),
    token: inline(TokenSymbolSchema),
    admin: admin("The token's admin."),
    amount: inline(AmountStringSchema),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Null when none.' }),
    expiresAt: inline(TimestampSchema),
  },
  { $id: 'DevnetOffer', description: 'A pending two-step transfer offer.' },
);
export type DevnetOffer = Static<typeof DevnetOfferSchema>;

export const DevnetOffersSchema = Type.Object(
  { offers: Type.Array(inline(DevnetOfferSchema)) },
  { $id: 'DevnetOffers', description: 'Offers pending to a party.' },
);
export type DevnetOffers = Static<typeof DevnetOffersSchema>;

export const OfferIdParamsSchema = Type.Object(
  { offerId },
  closed('OfferIdParams', 'Path parameters naming a transfer offer.'),
);
export type OfferIdParams = Static<typeof OfferIdParamsSchema>;

export const DevnetOfferActionSchema = Type.Object(
  {
    partyId: inline(PartyIdSchema, { description: 'The receiver acting on the offer.' }),
    validUntil,
  },
  closed('DevnetOfferAction', 'Body of `POST /devnet/offers/{offerId}/accept` or `/reject`.'),
);
export type DevnetOfferAction = Static<typeof DevnetOfferActionSchema>;

export const DevnetOfferActionResultSchema = Type.Object(
  { offerId, updateId: inline(UpdateIdSchema) },
  { $id: 'DevnetOfferActionResult', description: 'The ledger update that settled the offer.' },
);
export type DevnetOfferActionResult = Static<typeof DevnetOfferActionResultSchema>;

export const DevnetClockAdvanceSchema = Type.Object(
  { advanceMs: Type.Integer({ minimum: 0, maximum: CLOCK_ADVANCE_MS_MAX }) },
  closed('DevnetClockAdvance', 'Body of `POST /devnet/clock`: move ledger time forward.'),
);
export type DevnetClockAdvance = Static<typeof DevnetClockAdvanceSchema>;

export const DevnetClockSchema = Type.Object(
  { now: inline(TimestampSchema, { description: 'Ledger time after the move.' }) },
  { $id: 'DevnetClock', description: 'The ledger clock.' },
);
export type DevnetClock = Static<typeof DevnetClockSchema>;

export const DevnetOracleSchema = Type.Object(
  { amuletPriceUsd: inline(AmountStringSchema, { description: 'USD per Amulet, e.g. `0.145`.' }) },
  closed('DevnetOracle', 'Body and answer of `POST /devnet/oracle`: the Amulet USD price.'),
);
export type DevnetOracle = Static<typeof DevnetOracleSchema>;

export const DevnetFaultsSchema = Type.Object(
  {
    latencyMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: FAULT_LATENCY_MS_MAX,
        description: 'Delay before every submission and every delivered update.',
      }),
    ),
    rejectRate: Type.Optional(rate('Submissions refused before commit.')),
    timeoutAfterCommitRate: Type.Optional(rate('Submissions that commit but time out.')),
    dropStreamRate: Type.Optional(rate('Delivered updates after which the stream drops.')),
    duplicateDeliveryRate: Type.Optional(rate('Updates delivered twice.')),
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 0xffff_ffff,
        description: 'Seed of the fault generator, for reproducible faults.',
      }),
    ),
  },
  closed('DevnetFaults', 'Body and answer of `POST /devnet/faults`: fault injection.'),
);
export type DevnetFaults = Static<typeof DevnetFaultsSchema>;

export const DEVNET_SCHEMAS = [
  DevnetCreatePartySchema,
  DevnetPartySchema,
  DevnetFaucetRequestSchema,
  DevnetFaucetResultSchema,
  DevnetHoldingSchema,
  DevnetHoldingsSchema,
  DevnetBalancesSchema,
  DevnetTransferRequestSchema,
  DevnetSignedHeadersSchema,
  DevnetTransferResultSchema,
  DevnetOfferSchema,
  DevnetOffersSchema,
  OfferIdParamsSchema,
  DevnetOfferActionSchema,
  DevnetOfferActionResultSchema,
  DevnetClockAdvanceSchema,
  DevnetClockSchema,
  DevnetOracleSchema,
  DevnetFaultsSchema,
] as const;
