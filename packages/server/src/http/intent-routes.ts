/**
 * What the routes of every kind of intent (swaps, liquidity) share: the API key and a wallet token
 * on each, the wallet party's own intent — another party's answers 404 like an unknown id, so ids
 * cannot be probed —, the route streaming its events, and the plugin that serves a kind's route
 * table. A kind says how to find one of its intents and what its outbox is (views/outbox.ts),
 * and brings its routes; a new kind of intent adds only those.
 */
import type { ErrorCode } from '@poolparty/core';
import type { Database } from '@poolparty/store';
import { type TObject, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import type { WakeUpSource } from '../events/intent-snapshots.js';
import { OutboxEventStream } from '../events/outbox-event-stream.js';
import { OutboxSnapshots } from '../events/outbox-snapshot.js';
import { strictValidatorCompiler } from '../swaps/strict-validation.js';
import type { OutboxEvent, OutboxKind } from '../views/outbox.js';
import { walletPartyOf, walletTokenHook } from './authenticate.js';
import {
  EventsHeadersSchema,
  EventsQuerySchema,
  lastEventIdOf,
  streamSubject,
} from './event-stream-route.js';
import type { App } from './fastify.js';
import { errorResponses, INTENT_PROBLEMS, SECURITY, type Tag } from './route-docs.js';
import { type Route, registerRoutes, routeOf } from './route-table.js';
import type { StreamCaps } from './stream-caps.js';

/** Where the client API is mounted (app.ts): the paths a client polls start with it. */
const CLIENT_API_PREFIX = '/v1';

/** What the intent routes use of the service: the store and the clock, and the wallet tokens. */
export type WalletRouteContext = Pick<ServiceContext, 'db' | 'clock' | 'walletTokens'>;

/** A kind of intent as its routes serve it. */
export interface IntentKind<R, E extends OutboxEvent, T> {
  /** As problems and the OpenAPI document name it: `swap`, `liquidity intent`. */
  readonly noun: string;
  /** The route of one intent, its id the one path parameter: `/swaps/:intentId`. */
  readonly path: `/${string}/:${string}`;
  /** The schema of that path parameter. */
  readonly params: TObject;
  readonly tag: Tag;
  readonly outbox: OutboxKind<E, T>;
  /** The wallet party's intent; null for an unknown id and for another party's alike. */
  findOwn(db: Database, id: string, walletParty: string): Promise<R | null>;
  /** What a request for an intent the wallet party does not have answers (404). */
  notFound(id: string): Error;
}

/** What each route of a kind's table is given. */
export interface IntentRouteDeps<C extends WalletRouteContext, R, E extends OutboxEvent, T> {
  readonly ctx: C;
  readonly kind: IntentKind<R, E, T>;
  /** Checks the wallet token of every route here. */
  readonly authenticateWallet: ReturnType<typeof walletTokenHook>;
  /** The event streams each wallet party and API key may hold, over every kind alike. */
  readonly streamCaps: StreamCaps;
  /** One store read per intent per change, whatever the number of streams following it. */
  readonly snapshots: OutboxSnapshots<E, T>;
  /**
   * The streams open now, which end when the service stops; each holds one of the process's
   * `EVENT_SUBSCRIBERS_MAX` subscriptions, so there are never more.
   */
  readonly openStreams: Set<OutboxEventStream<E, T>>;
  /** The wallet party's intent `id`; anyone else's, like an unknown id, is the kind's 404. */
  ownIntent(request: FastifyRequest, id: string): Promise<R>;
}

/** What a kind's route plugin is registered with. */
export interface IntentRoutesOptions<C extends WalletRouteContext> {
  readonly ctx: C;
  /** Wake-ups of the kind's outbox: its event hub. */
  readonly events: WakeUpSource;
  readonly streamCaps: StreamCaps;
}

/** What the OpenAPI document says of a kind's event stream beyond what every kind shares. */
export interface EventsRouteDocs {
  readonly operationId: string;
  readonly description: string;
  /** What each event's `data` is: `SwapStatus`, `LiquidityIntent`. */
  readonly data: string;
  readonly example: string;
  /** Who has no intent of that id, as `not_found` explains it. */
  readonly notFoundNote: string;
}

/** A kind's route table as it is written: its routes, its event stream, and the plugin. */
export interface IntentRoutes<C extends WalletRouteContext, R, E extends OutboxEvent, T> {
  /** The operations' group in the OpenAPI document: the kind's tag. */
  readonly tags: readonly Tag[];
  /** What the kind's routes take: the API key and the wallet token. */
  readonly security: typeof SECURITY.apiKeyAndWalletToken;
  /** Types one route of the table (route-table.ts). */
  readonly route: ReturnType<typeof routeOf<IntentRouteDeps<C, R, E, T>>>;
  /** `GET {path}/events`: the intent's events as Server-Sent Events. */
  events(docs: EventsRouteDocs): Route<IntentRouteDeps<C, R, E, T>>;
  /** The Fastify plugin serving `routes`, in their order (the OpenAPI document keeps it). */
  plugin(
    routes: readonly Route<IntentRouteDeps<C, R, E, T>>[],
  ): (app: App, options: IntentRoutesOptions<C>) => Promise<void>;
}

/** The routes of `kind`, whose handlers are given a context `C` (`intentRoutesOf<C>()(kind)`). */
export function intentRoutesOf<C extends WalletRouteContext>() {
  return <R, E extends OutboxEvent, T>(kind: IntentKind<R, E, T>): IntentRoutes<C, R, E, T> => ({
    tags: [kind.tag],
    security: SECURITY.apiKeyAndWalletToken,
    route: routeOf<IntentRouteDeps<C, R, E, T>>(),
    events: (docs) => eventsRoute<C, R, E, T>(kind, docs),
    plugin: (routes) => async (app, options) => serve(app, kind, routes, options),
  });
}

type WalletHooked = { readonly authenticateWallet: ReturnType<typeof walletTokenHook> };

/** A route's own hooks: the wallet token. */
export const walletTokenOnly = ({ authenticateWallet }: WalletHooked) => ({
  preHandler: authenticateWallet,
});

/** The wallet token, and exact JSON types in the body: an amount is a string, no coercion. */
export const strictBody = (deps: WalletHooked) => ({
  ...walletTokenOnly(deps),
  validatorCompiler: strictValidatorCompiler,
});

function serve<C extends WalletRouteContext, R, E extends OutboxEvent, T>(
  app: App,
  kind: IntentKind<R, E, T>,
  routes: readonly Route<IntentRouteDeps<C, R, E, T>>[],
  { ctx, events, streamCaps }: IntentRoutesOptions<C>,
): void {
  const deps: IntentRouteDeps<C, R, E, T> = {
    ctx,
    kind,
    authenticateWallet: walletTokenHook(ctx),
    streamCaps,
    snapshots: new OutboxSnapshots(ctx.db, events, kind.outbox),
    openStreams: new Set(),
    ownIntent: async (request, id) => {
      const intent = await kind.findOwn(ctx.db, id, walletPartyOf(request));
      if (intent === null) throw kind.notFound(id);
      return intent;
    },
  };
  // Before the server closes, not on close: it then cuts every connection still open, and a
  // stream ended here instead finishes its response as a client expects of a server going away.
  app.addHook('preClose', async () => {
    for (const stream of deps.openStreams) stream.end();
  });
  registerRoutes(app, deps, routes);
}

/** The parameter name of `path` and where a client polls, in the document and for an id. */
function statusPathsOf(path: IntentKind<unknown, OutboxEvent, unknown>['path']) {
  const [base, param] = path.split('/:') as [string, string];
  return {
    param,
    documented: `${CLIENT_API_PREFIX}${base}/{${param}}`,
    of: (id: string) => `${CLIENT_API_PREFIX}${base}/${id}`,
  };
}

function eventsRoute<C extends WalletRouteContext, R, E extends OutboxEvent, T>(
  kind: IntentKind<R, E, T>,
  docs: EventsRouteDocs,
): Route<IntentRouteDeps<C, R, E, T>> {
  const status = statusPathsOf(kind.path);
  const problems: readonly ErrorCode[] = INTENT_PROBLEMS;
  return routeOf<IntentRouteDeps<C, R, E, T>>()({
    method: 'GET',
    url: `${kind.path}/events`,
    hooks: walletTokenOnly,
    schema: {
      operationId: docs.operationId,
      summary: `Stream the state changes of a ${kind.noun} (Server-Sent Events)`,
      description: docs.description,
      tags: [kind.tag],
      security: SECURITY.apiKeyAndWalletToken,
      params: kind.params,
      headers: EventsHeadersSchema,
      querystring: EventsQuerySchema,
      response: {
        200: {
          description: 'The event stream.',
          content: {
            'text/event-stream': {
              schema: Type.String({
                description: `Server-Sent Events: \`event: <state>\`, \`id: <sequence number>\`, \`data: <${docs.data} JSON>\`.`,
              }),
              example: docs.example,
            },
          },
        },
      },
      problems: errorResponses(problems, {
        validation_error: `\`Last-Event-ID\` is not an event id of this ${kind.noun}`,
        not_found: docs.notFoundNote,
        rate_limited:
          'the API key is over its rate limit, the wallet party or the API key holds as many ' +
          'streams as it may (`limit` names which, `max` its number), or this server has no ' +
          `event stream left (poll \`GET ${status.documented}\` meanwhile)`,
      }),
    },
    handler: async (deps, request, reply) => {
      const id = String(request.params[status.param]);
      await deps.ownIntent(request, id);
      const after = lastEventIdOf(request.headers['last-event-id'], request.query.lastEventId);
      const subject = { noun: kind.noun, pollPath: status.of(id) };
      await streamSubject(request, reply, deps, subject, () =>
        OutboxEventStream.open(
          {
            snapshots: deps.snapshots,
            onReadError: (error) =>
              request.log.warn({ err: error }, `${kind.noun} event stream ended`),
          },
          id,
          after,
        ),
      );
    },
  });
}
