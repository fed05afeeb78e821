/**
 * The developer portal's earnings, usage and collections (`/api/sdk/…`, session-authenticated).
 * Earnings are half of each charged platform fee of the developer's swaps
 * (docs/spec/portal.md#earnings), in the fee's token: the swap's input token. They count as accrued
 * once the swap completed; a collection takes everything accrued of one pool and token to the
 * developer's party.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ApiKeyIdSchema } from './auth.js';
import {
  amountField,
  DecimalStringSchema,
  enumOf,
  inline,
  nullable,
  PartyIdSchema,
  PoolIdSchema,
  TimestampSchema,
  TokenSymbolSchema,
  timestampField,
  UpdateIdSchema,
} from './common.js';

const PORTAL_PERIODS = ['24h', '7d', '30d', 'all'] as const;
export type PortalPeriod = (typeof PORTAL_PERIODS)[number];

const PORTAL_BUCKETS = ['hour', 'day', 'month'] as const;
export type PortalBucket = (typeof PORTAL_BUCKETS)[number];

const COLLECTION_STATUSES = ['pending', 'offered', 'collected', 'returned'] as const;

const period = enumOf(PORTAL_PERIODS, {
  description: 'The period: the last 24 hours, 7 days, 30 days, or all time.',
});
const bucket = enumOf(PORTAL_BUCKETS, {
  description:
    'The length of one point of the series: hours for 24 h, days for 7 and 30 d, months for all time.',
});
const token = {
  poolId: inline(PoolIdSchema),
  token: inline(TokenSymbolSchema, { description: "The fee's token: the swaps' input token." }),
  tokenAdmin: inline(PartyIdSchema, { description: "The token's admin party." }),
};

export const PortalQuerySchema = Type.Object(
  {
    period: Type.Optional(period),
    keyId: Type.Optional(
      inline(ApiKeyIdSchema, { description: 'Only the swaps made with this key of yours.' }),
    ),
  },
  {
    $id: 'PortalQuery',
    description: 'Query of the earnings and usage reports; the period is `30d` unless given.',
    additionalProperties: false,
  },
);
export type PortalQuery = Static<typeof PortalQuerySchema>;

const EarningsLineSchema = Type.Object(
  {
    ...token,
    earned: amountField('Earnings of completed swaps in the period.'),
    unsettled: amountField(
      'Earnings of swaps in the period still sending their output; they count once completed.',
    ),
    swapCount: Type.Integer({ minimum: 0, description: 'Swaps executed in the period.' }),
    collected: amountField('Collected in the period: arrived at your party.'),
    collecting: amountField('Collections on their way now (recorded or offered, not confirmed).'),
    collectable: amountField(
      'What a collection takes now: all earnings of completed swaps less every collection.',
    ),
  },
  {
    $id: 'EarningsLine',
    description: "A developer's earnings in one pool and token.",
  },
);
export type EarningsLine = Static<typeof EarningsLineSchema>;

const EarningsPointSchema = Type.Object(
  {
    start: timestampField('Start of the bucket.'),
    ...token,
    earned: amountField('Earnings of completed swaps executed in the bucket.'),
  },
  { $id: 'EarningsPoint', description: 'Earnings of one pool and token in one time bucket.' },
);
export type EarningsPoint = Static<typeof EarningsPointSchema>;

export const EarningsSchema = Type.Object(
  {
    period,
    bucket,
    from: nullable(TimestampSchema, { description: 'Start of the period; null for all time.' }),
    to: timestampField('End of the period: now.'),
    receiverParty: inline(PartyIdSchema, { description: 'Where collections are paid: you.' }),
    lines: Type.Array(inline(EarningsLineSchema), {
      description: 'Per pool and token with earnings, collections or something to collect.',
    }),
    series: Type.Array(inline(EarningsPointSchema), {
      description: 'Earnings over time, per pool and token; buckets without earnings are left out.',
    }),
  },
  { $id: 'Earnings', description: "The developer's earnings report (`GET /api/sdk/earnings`)." },
);
export type Earnings = Static<typeof EarningsSchema>;

const UsagePointSchema = Type.Object(
  {
    start: timestampField('Start of the bucket.'),
    swaps: Type.Integer({ minimum: 0, description: 'Swaps executed.' }),
    failures: Type.Integer({
      minimum: 0,
      description: 'Swaps that ended failed (refunded, or parked for an operator).',
    }),
    volumeUsd: inline(DecimalStringSchema, {
      description: 'USD value of the swaps executed; swaps without a USD-priced token add nothing.',
    }),
  },
  { $id: 'UsagePoint', description: 'Usage in one time bucket.' },
);
export type UsagePoint = Static<typeof UsagePointSchema>;

const KeyUsageSchema = Type.Object(
  {
    keyId: inline(ApiKeyIdSchema),
    name: Type.Union([Type.String(), Type.Null()], { description: 'The label; null when none.' }),
    prefix: Type.String({ description: 'The first 12 characters of the key.' }),
    requestCount: Type.Integer({ minimum: 0, description: 'Requests made with the key, ever.' }),
    lastUsedAt: nullable(TimestampSchema, { description: 'Last authenticated request.' }),
    revokedAt: nullable(TimestampSchema, { description: 'When the key stops (or stopped).' }),
    working: Type.Boolean({
      description: "Whether the key authenticates now, on the service's clock.",
    }),
  },
  { $id: 'KeyUsage', description: 'Requests made with one of your keys.' },
);
export type KeyUsage = Static<typeof KeyUsageSchema>;

export const UsageSchema = Type.Object(
  {
    period,
    bucket,
    from: timestampField('Start of the first bucket.'),
    to: timestampField('End of the period: now.'),
    series: Type.Array(inline(UsagePointSchema), {
      description: 'Every bucket of the period, oldest first; empty ones as zeros.',
    }),
    keys: Type.Array(inline(KeyUsageSchema), {
      description: 'Request counts per key (the key asked for, or all of yours).',
    }),
  },
  { $id: 'Usage', description: "The developer's usage report (`GET /api/sdk/usage`)." },
);
export type Usage = Static<typeof UsageSchema>;

export const CollectionIdSchema = Type.String({
  $id: 'CollectionId',
  description: 'The id of a collection of earnings.',
  pattern: '^[A-Za-z0-9_-]{1,64}$',
});

export const CollectionCreateSchema = Type.Object(
  {
    poolId: inline(PoolIdSchema),
    token: inline(TokenSymbolSchema, { description: 'The token whose earnings to collect.' }),
    tokenAdmin: inline(PartyIdSchema, { description: "The token's admin party." }),
  },
  {
    $id: 'CollectionCreate',
    description:
      'Body of `POST /api/sdk/collections`: collect everything accrued in one pool and token.',
    additionalProperties: false,
  },
);

export const CollectionSchema = Type.Object(
  {
    collectionId: inline(CollectionIdSchema),
    ...token,
    amount: amountField('The amount collected: everything accrued when it was requested.'),
    status: enumOf(COLLECTION_STATUSES, {
      description:
        '`pending`: sent, not yet confirmed by the ledger; `offered`: a transfer offer to accept ' +
        'in your wallet; `collected`: arrived at your party; `returned`: it could not be paid and ' +
        'is collectable again.',
    }),
    receiverParty: inline(PartyIdSchema, { description: 'Your party, which receives it.' }),
    updateId: nullable(UpdateIdSchema, {
      description: 'The ledger update that paid it, once collected.',
    }),
    offerId: Type.Union([Type.String(), Type.Null()], {
      description: 'The transfer offer to accept, while offered.',
    }),
    offerExpiresAt: nullable(TimestampSchema, {
      description: 'The offer must be accepted by then.',
    }),
    createdAt: timestampField('When it was requested.'),
    settledAt: nullable(TimestampSchema, { description: 'When it was collected or returned.' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why it was returned.' }),
  },
  { $id: 'Collection', description: 'A collection of earnings to your party.' },
);
export type Collection = Static<typeof CollectionSchema>;

export const CollectionListSchema = Type.Object(
  { collections: Type.Array(inline(CollectionSchema), { description: 'Newest first.' }) },
  { $id: 'CollectionList', description: 'Your collections, newest first (at most 200).' },
);
export type CollectionList = Static<typeof CollectionListSchema>;

export const SignedOutSchema = Type.Object(
  {
    partyId: inline(PartyIdSchema, { description: 'The developer whose session ended.' }),
    signedOut: Type.Literal(true),
  },
  {
    $id: 'SignedOut',
    description: 'Answer of `DELETE /api/sdk/session`: the session no longer signs anything in.',
  },
);
export type SignedOut = Static<typeof SignedOutSchema>;

export const PortalSessionStateSchema = Type.Object(
  {
    signedIn: Type.Boolean({ description: 'Whether the request carries a live session.' }),
    partyId: nullable(PartyIdSchema, { description: 'The signed-in developer; null if none.' }),
  },
  {
    $id: 'PortalSessionState',
    description:
      'Answer of `GET /api/sdk/session`: who the session presented signs in, if anyone. A ' +
      'request without a live session is answered too (`signedIn` false), not refused.',
  },
);
export type PortalSessionState = Static<typeof PortalSessionStateSchema>;

export const PORTAL_SCHEMAS = [
  SignedOutSchema,
  PortalSessionStateSchema,
  PortalQuerySchema,
  EarningsLineSchema,
  EarningsPointSchema,
  EarningsSchema,
  UsagePointSchema,
  KeyUsageSchema,
  UsageSchema,
  CollectionIdSchema,
  CollectionCreateSchema,
  CollectionSchema,
  CollectionListSchema,
] as const;
