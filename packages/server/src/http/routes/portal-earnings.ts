/**
 * The developer portal's earnings, usage and collections (docs/spec/portal.md), under `/api/sdk`
 * beside the key routes and behind the same session.
 *
 * Choices made here:
 * - periods are `24h`, `7d`, `30d` (the default) and `all`, bucketed by hour, day, day and month;
 * - `keyId` narrows earnings and usage to one of the developer's keys; another developer's key
 *   answers 404 like a key that does not exist. Collections are the developer's, not a key's:
 *   `collected`, `collecting` and `collectable` are always developer-wide;
 * - a collection takes everything accrued in one pool and token (no partial amounts), so a
 *   retried request finds nothing left (409 `nothing_to_collect`) instead of paying again;
 * - `POST /collections` with the session cookie is a write like the key routes': it must come
 *   from a page of the service's own origin or of `POOLPARTY_PORTAL_ORIGINS` (portal.ts).
 */
import {
  Amount,
  apiKeyWorks,
  CollectionCreateSchema,
  CollectionIdSchema,
  CollectionListSchema,
  CollectionSchema,
  type Earnings,
  type EarningsLine,
  EarningsSchema,
  inline,
  type PortalBucket,
  type PortalPeriod,
  type PortalQuery,
  PortalQuerySchema,
  type Usage,
  UsageSchema,
} from '@poolparty/core';
import { recordCollection } from '@poolparty/settlement';
import type { PoolSide } from '@poolparty/store';
import {
  apiKeyEndsAt,
  collectableEarnings,
  collectedSince,
  type EarningsScope,
  earningsSeries,
  earningsSince,
  firstActivityAt,
  getApiKey,
  getCollection,
  listApiKeys,
  listCollections,
  listPools,
  type PoolRecord,
  usageSeries,
} from '@poolparty/store';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ApiKeyDirectory } from '../../auth/api-key-directory.js';
import type { ServiceContext } from '../../context.js';
import { collectionOf } from '../../views/portal.js';
import { DEVELOPER_IDEMPOTENCY } from '../idempotent-routes.js';
import {
  COLLECTION_COLLECTED_EXAMPLE,
  COLLECTION_CREATE_EXAMPLE,
  COLLECTION_LIST_EXAMPLE,
  COLLECTION_PENDING_EXAMPLE,
  EARNINGS_EXAMPLE,
  PORTAL_QUERY_EXAMPLE,
  USAGE_EXAMPLE,
} from '../openapi-examples.js';
import { ApiError } from '../problem.js';
import {
  BODY_PROBLEMS,
  PORTAL_SESSION,
  sessionResponses,
  sessionWriteResponses,
  withExamples,
} from '../route-docs.js';
import { routeOf } from '../route-table.js';

/** Collections listed at most. */
const COLLECTIONS_LISTED_MAX = 200;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** What the portal uses: the store, the clock, the wallet challenges' ledger and the settings. */
export type PortalContext = Pick<ServiceContext, 'db' | 'clock' | 'ledger' | 'settings'>;

/** What the portal's routes share (portal.ts makes it). */
export interface PortalDeps {
  readonly ctx: PortalContext;
  readonly apiKeys: ApiKeyDirectory;
  /** `onRequest` hook: refuses a request without a live developer session. */
  readonly requireSession: (request: FastifyRequest) => Promise<void>;
  /** The signed-in developer of a request that passed `requireSession`. */
  readonly developerOf: (request: FastifyRequest) => string;
}

const portalRoute = routeOf<PortalDeps>();

/** The hooks of a route behind the developer session. */
export const sessionOnly = ({ requireSession }: PortalDeps) => ({ onRequest: requireSession });

/**
 * The hooks of a session route whose body may be left out: a bare POST is taken as `{}`, so it
 * asks for the defaults the way an empty object does instead of failing validation.
 */
export const sessionOnlyBodyOptional = (deps: PortalDeps) => ({
  ...sessionOnly(deps),
  preValidation: async (request: FastifyRequest) => {
    request.body ??= {};
  },
});

const CollectionIdParamsSchema = Type.Object(
  { collectionId: inline(CollectionIdSchema) },
  { description: 'Path parameters naming a collection.', additionalProperties: false },
);

export interface PeriodWindow {
  readonly period: PortalPeriod;
  /** Null for all time. */
  readonly since: Date | null;
  readonly bucket: PortalBucket;
}

/** What a period covers, ending `now`, and the bucket its series is drawn in. */
function periodWindow(period: PortalPeriod, now: Date): PeriodWindow {
  const back = (ms: number) => new Date(now.getTime() - ms);
  switch (period) {
    case '24h':
      return { period, since: back(DAY_MS), bucket: 'hour' };
    case '7d':
      return { period, since: back(7 * DAY_MS), bucket: 'day' };
    case '30d':
      return { period, since: back(30 * DAY_MS), bucket: 'day' };
    case 'all':
      return { period, since: null, bucket: 'month' };
  }
}

const KEY_PROBLEMS = sessionResponses(['validation_error', 'not_found'], {
  not_found: 'no key with this `keyId` among yours',
});

const getDeveloperEarnings = portalRoute({
  method: 'GET',
  url: '/earnings',
  hooks: sessionOnly,
  schema: {
    operationId: 'getDeveloperEarnings',
    summary: "Report the developer's earnings per pool and token",
    description:
      'Half of the platform fee each of your swaps was charged, in its input token, per pool ' +
      'and token over the period, with a series for charts; what was collected, what is on ' +
      'its way, and what a collection would take now.',
    ...PORTAL_SESSION,
    querystring: withExamples(PortalQuerySchema, PORTAL_QUERY_EXAMPLE),
    response: { 200: withExamples(EarningsSchema, EARNINGS_EXAMPLE) },
    problems: KEY_PROBLEMS,
  },
  handler: async ({ ctx, developerOf }, request) => {
    const developer = developerOf(request);
    const scope = await scopeOf(ctx, developer, request.query);
    return earningsReport(ctx, scope, periodWindow(request.query.period ?? '30d', now(ctx)));
  },
});

const getDeveloperUsage = portalRoute({
  method: 'GET',
  url: '/usage',
  hooks: sessionOnly,
  schema: {
    operationId: 'getDeveloperUsage',
    summary: "Report the developer's swaps, volume and failures over time",
    description:
      'Swaps executed, failed swaps and USD volume per hour, day or month of the period ' +
      '(every bucket, empty ones as zeros), and the request count of each of your keys.',
    ...PORTAL_SESSION,
    querystring: withExamples(PortalQuerySchema, PORTAL_QUERY_EXAMPLE),
    response: { 200: withExamples(UsageSchema, USAGE_EXAMPLE) },
    problems: KEY_PROBLEMS,
  },
  handler: async ({ ctx, apiKeys, developerOf }, request) => {
    const developer = developerOf(request);
    const scope = await scopeOf(ctx, developer, request.query);
    // Counts still buffered in this process would otherwise show up only seconds later.
    await apiKeys.flushUsage();
    return usageReport(ctx, scope, periodWindow(request.query.period ?? '30d', now(ctx)));
  },
});

const listCollectionsRoute = portalRoute({
  method: 'GET',
  url: '/collections',
  hooks: sessionOnly,
  schema: {
    operationId: 'listCollections',
    summary: "List the developer's collections of earnings",
    description: `Newest first, at most ${COLLECTIONS_LISTED_MAX}.`,
    ...PORTAL_SESSION,
    response: { 200: withExamples(CollectionListSchema, COLLECTION_LIST_EXAMPLE) },
    problems: sessionResponses(),
  },
  handler: async ({ ctx, developerOf }, request) => {
    const found = await listCollections(ctx.db, developerOf(request), COLLECTIONS_LISTED_MAX);
    return { collections: found.map(collectionOf) };
  },
});

const collectEarnings = portalRoute({
  method: 'POST',
  url: '/collections',
  hooks: sessionOnly,
  idempotency: DEVELOPER_IDEMPOTENCY,
  schema: {
    operationId: 'collectEarnings',
    summary: 'Collect the accrued earnings of one pool and token to your party',
    description:
      'Takes everything accrued (earnings of completed swaps less earlier collections) as one ' +
      'transfer from the pool to your party, exactly once: answered `pending` once recorded; ' +
      'it is `collected`, with the ledger update id, once the ledger confirms it. A second ' +
      'request finds nothing left to collect.',
    ...PORTAL_SESSION,
    body: withExamples(CollectionCreateSchema, COLLECTION_CREATE_EXAMPLE),
    response: { 201: withExamples(CollectionSchema, COLLECTION_PENDING_EXAMPLE) },
    problems: sessionWriteResponses(
      [
        ...BODY_PROBLEMS,
        'pool_not_found',
        'token_not_found',
        'nothing_to_collect',
        'collection_unavailable',
      ],
      {
        token_not_found: 'the pool does not trade this token',
        nothing_to_collect: 'no earnings of this pool and token are left to collect',
        collection_unavailable:
          "the fees the pool set aside cannot pay it now (the pool's books need an operator)",
      },
    ),
  },
  handler: async ({ ctx, developerOf }, request, reply) => {
    const { poolId, token, tokenAdmin } = request.body;
    // A refusal is core's DomainError (pool or token unknown, nothing left, fees short).
    const recorded = await recordCollection(ctx.db, {
      developerParty: developerOf(request),
      poolId,
      instrument: { id: token, admin: tokenAdmin },
      now: now(ctx),
    });
    reply.code(201);
    return collectionOf(recorded);
  },
});

const getCollectionRoute = portalRoute({
  method: 'GET',
  url: '/collections/:collectionId',
  hooks: sessionOnly,
  schema: {
    operationId: 'getCollection',
    summary: 'Follow one collection',
    description: "Another developer's collection answers 404, like one that does not exist.",
    ...PORTAL_SESSION,
    params: CollectionIdParamsSchema,
    response: { 200: withExamples(CollectionSchema, COLLECTION_COLLECTED_EXAMPLE) },
    problems: sessionResponses(['validation_error', 'not_found'], {
      not_found: 'no collection with this id among yours',
    }),
  },
  handler: async ({ ctx, developerOf }, request) => {
    const found = await getCollection(ctx.db, request.params.collectionId);
    if (found === null || found.developerParty !== developerOf(request)) {
      throw new ApiError('not_found', `No collection ${request.params.collectionId}.`);
    }
    return collectionOf(found);
  },
});

/** The earnings, usage and collection routes, behind the developer session. */
export const EARNINGS_ROUTES = [
  getDeveloperEarnings,
  getDeveloperUsage,
  listCollectionsRoute,
  collectEarnings,
  getCollectionRoute,
];

function now(ctx: PortalContext): Date {
  return ctx.clock.now();
}

async function scopeOf(
  ctx: PortalContext,
  developer: string,
  query: PortalQuery,
): Promise<EarningsScope> {
  if (query.keyId !== undefined) {
    const key = await getApiKey(ctx.db, query.keyId);
    if (key === null || key.developerParty !== developer) {
      throw new ApiError('not_found', `No API key ${query.keyId}.`);
    }
  }
  return { developerParty: developer, keyId: query.keyId ?? null };
}

type PoolSides = ReadonlyMap<string, PoolRecord>;

function tokenOf(pools: PoolSides, poolId: string, side: PoolSide) {
  const pool = pools.get(poolId);
  if (pool === undefined) throw new Error(`fee events name unknown pool ${poolId}`);
  const instrument = side === 'a' ? pool.tokenA : pool.tokenB;
  return { poolId, token: instrument.id, tokenAdmin: instrument.admin };
}

async function earningsReport(
  ctx: PortalContext,
  scope: EarningsScope,
  window: PeriodWindow,
): Promise<Earnings> {
  const { db } = ctx;
  const developer = scope.developerParty;
  const pools: PoolSides = new Map((await listPools(db)).map((pool) => [pool.poolId, pool]));
  const [inPeriod, ever, collected, series] = await Promise.all([
    earningsSince(db, scope, window.since),
    earningsSince(db, { developerParty: developer, keyId: null }, null),
    collectedSince(db, developer, window.since),
    earningsSeries(db, scope, window.bucket, window.since),
  ]);
  const key = (line: { poolId: string; side: PoolSide }) => `${line.poolId}|${line.side}`;
  const places = new Map<string, { poolId: string; side: PoolSide }>();
  for (const line of [...ever, ...collected]) places.set(key(line), line);
  const lines: EarningsLine[] = [];
  for (const [placeKey, place] of [...places].sort(([a], [b]) => a.localeCompare(b))) {
    const earned = inPeriod.find((line) => key(line) === placeKey);
    const taken = collected.find((line) => key(line) === placeKey);
    lines.push({
      ...tokenOf(pools, place.poolId, place.side),
      earned: (earned?.earned ?? Amount.ZERO).toString(),
      unsettled: (earned?.unsettled ?? Amount.ZERO).toString(),
      swapCount: earned?.swapCount ?? 0,
      collected: (taken?.collected ?? Amount.ZERO).toString(),
      collecting: (taken?.collecting ?? Amount.ZERO).toString(),
      collectable: (await collectableEarnings(db, developer, place.poolId, place.side)).toString(),
    });
  }
  return {
    period: window.period,
    bucket: window.bucket,
    from: window.since?.toISOString() ?? null,
    to: now(ctx).toISOString(),
    receiverParty: developer,
    lines,
    series: series.map((point) => ({
      start: point.start.toISOString(),
      ...tokenOf(pools, point.poolId, point.side),
      earned: point.earned.toString(),
    })),
  };
}

async function usageReport(
  ctx: PortalContext,
  scope: EarningsScope,
  window: PeriodWindow,
): Promise<Usage> {
  const to = now(ctx);
  const from = window.since ?? (await firstActivityAt(ctx.db, scope.developerParty)) ?? to;
  const [series, keys] = await Promise.all([
    usageSeries(ctx.db, scope, window.bucket, from, to),
    listApiKeys(ctx.db, scope.developerParty),
  ]);
  return {
    period: window.period,
    bucket: window.bucket,
    from: (series[0]?.start ?? from).toISOString(),
    to: to.toISOString(),
    series: series.map((point) => ({
      ...point,
      start: point.start.toISOString(),
      volumeUsd: point.volumeUsd.toString(),
    })),
    keys: keys
      .filter((key) => scope.keyId === null || key.keyId === scope.keyId)
      .map((key) => {
        const endsAt = apiKeyEndsAt(key);
        return {
          keyId: key.keyId,
          name: key.name === '' ? null : key.name,
          prefix: key.prefix,
          requestCount: key.requestCount,
          lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
          revokedAt: endsAt?.toISOString() ?? null,
          working: apiKeyWorks(endsAt, to),
        };
      }),
  };
}
