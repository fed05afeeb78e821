/**
 * The HTTP service: every route module registered on one Fastify instance, with the client API
 * under `/v1` behind the API-key hook, the developer portal under `/api/sdk`, the devnet
 * endpoints under `/devnet` (devnet mode only), and the operational endpoints at the root.
 */
import cors from '@fastify/cors';
import type { LocalLedger } from '@poolparty/ledger';
import { atomicSwapPortOf } from '@poolparty/settlement';
import type { onRequestHookHandler } from 'fastify';
import { ApiKeyDirectory } from '../auth/api-key-directory.js';
import { devnetEnabled } from '../config.js';
import { narrowed, type ServiceContext } from '../context.js';
import { apiKeyHook } from './authenticate.js';
import type { HttpDeps } from './deps.js';
import { devnetCorsDelegator } from './devnet-cors.js';
import { type App, createFastify, httpOptionsOf } from './fastify.js';
import { useIdempotencyKeys } from './idempotent-routes.js';
import { httpMetricsHook } from './metrics.js';
import { registerOpenApi } from './openapi.js';
import { sendProblem } from './problem.js';
import { atomicSwapRoutes } from './routes/atomic-swaps.js';
import { devnetRoutes } from './routes/devnet.js';
import { healthRoutes } from './routes/health.js';
import { liquidityRoutes } from './routes/liquidity.js';
import { marketRoutes } from './routes/market.js';
import { portalRoutes } from './routes/portal.js';
import { retiredRoutes } from './routes/retired.js';
import { swapRoutes } from './routes/swaps.js';
import { walletAuthRoutes } from './routes/wallet-auth.js';
import { withdrawalRoutes } from './routes/withdrawals.js';
import { StreamCaps } from './stream-caps.js';
import { BucketStore } from './token-bucket.js';
import { type WebAppConfig, webAppRoutes } from './web-app.js';

/** CORS for browser apps on the configured origins, exposing what a client needs to read. */
function corsOptions(ctx: ServiceContext, requestHeaders: readonly string[]) {
  return {
    origin: ctx.settings.corsOrigins.includes('*') ? true : [...ctx.settings.corsOrigins],
    // Joined once here rather than by the plugin on every response.
    exposedHeaders: [
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'Idempotent-Replayed',
    ].join(', '),
    allowedHeaders: ['Content-Type', 'X-Request-Id', ...requestHeaders],
    maxAge: 600,
  };
}

/**
 * Refuses an `OPTIONS` request that is no CORS preflight (no `Origin` or no
 * `Access-Control-Request-Method`) as a problem; registered before the CORS plugin, whose own
 * refusal is a bare text 400. A preflight from an origin that is not allowed is still answered
 * by the plugin, without CORS headers, which is how a browser is told no.
 */
const refuseMalformedPreflight: onRequestHookHandler = (request, reply, done) => {
  const { origin } = request.headers;
  if (
    request.method === 'OPTIONS' &&
    (!origin || !request.headers['access-control-request-method'])
  ) {
    sendProblem(
      request,
      reply,
      'validation_error',
      'A CORS preflight request needs the Origin and Access-Control-Request-Method headers.',
    );
    return;
  }
  done();
};

export interface BuildAppOptions {
  /** The developer key the web pages call `/v1` with; null: the pages cannot call it. */
  readonly webAppApiKey?: string | null;
  /** Where the built web app is; the workspace's `packages/app/dist` by default. */
  readonly webAppDist?: string;
  /** The event-stream slots; new ones capped by the settings by default (a test watches its own). */
  readonly streamCaps?: StreamCaps;
}

function httpDepsOf(ctx: ServiceContext, app: App, options: BuildAppOptions): HttpDeps {
  return {
    apiKeys: new ApiKeyDirectory(ctx.db, (error) => app.log.warn({ err: error }, 'usage flush')),
    buckets: new BucketStore(),
    streamCaps:
      options.streamCaps ??
      new StreamCaps({
        perParty: ctx.settings.streamsPerPartyMax,
        perKey: ctx.settings.streamsPerKeyMax,
      }),
  };
}

export async function buildApp(ctx: ServiceContext, options: BuildAppOptions = {}): Promise<App> {
  const app = createFastify(httpOptionsOf(ctx.settings));
  const deps = httpDepsOf(ctx, app, options);
  // Key limits changed by an operator, and keys stopped early by any process, apply at once, not
  // after the look-up cache's TTL.
  const stopHearingAdmin = ctx.adminChanges.subscribe(() => deps.apiKeys.invalidate());
  const stopHearingKeys = await deps.apiKeys.hearKeyChanges(ctx.db, {
    onListenerProblem: (error, retryInMs) =>
      app.log.warn({ err: error, retryInMs }, 'API key change listener lost; listening again'),
  });
  app.addHook('onClose', async () => {
    stopHearingAdmin();
    await stopHearingKeys();
    await deps.apiKeys.close();
  });
  app.decorateRequest('apiKey', null);
  app.decorateRequest('walletParty', null);
  useIdempotencyKeys(app, ctx);
  app.addHook('onResponse', httpMetricsHook(ctx.metrics));

  await registerOpenApi(app);
  await app.register(healthRoutes, narrowed(ctx, 'db', 'ledger', 'metrics'));
  await app.register(retiredRoutes);
  await app.register(webAppRoutes, {
    config: webAppConfigOf(ctx, options),
    ...(options.webAppDist !== undefined && { dist: options.webAppDist }),
  });
  await app.register(portalRoutes, {
    ctx: narrowed(ctx, 'db', 'clock', 'ledger', 'settings'),
    apiKeys: deps.apiKeys,
    buckets: deps.buckets,
    prefix: '/api/sdk',
  });
  await app.register(async (v1) => clientApi(v1, ctx, deps), { prefix: '/v1' });
  if (devnetEnabled(ctx.settings) && ctx.devnetLedger !== null) {
    const ledger = ctx.devnetLedger;
    await app.register(async (scope) => devnetApi(scope, ctx, deps, ledger), {
      prefix: '/devnet',
    });
  }
  return app;
}

/** What the web pages are told about the service they run against. */
function webAppConfigOf(ctx: ServiceContext, options: BuildAppOptions): WebAppConfig {
  return {
    environment: ctx.settings.environment,
    apiKey: options.webAppApiKey ?? null,
    devnet: devnetEnabled(ctx.settings) && ctx.devnetLedger !== null,
    atomicSwaps: atomicSwapPortOf(ctx.ledger) !== null,
    cantonRegistries: {
      defaultUrl: ctx.settings.cantonRegistryUrl,
      byAdmin: ctx.settings.cantonRegistryUrls,
    },
  };
}

/** The client API under `/v1`: CORS for browser apps, then the API key on every route. */
async function clientApi(v1: App, ctx: ServiceContext, deps: HttpDeps): Promise<void> {
  v1.addHook('onRequest', refuseMalformedPreflight);
  await v1.register(
    cors,
    corsOptions(ctx, ['X-API-Key', 'Authorization', 'Idempotency-Key', 'Last-Event-ID']),
  );
  v1.addHook('onRequest', apiKeyHook(ctx, deps.apiKeys, deps.buckets));
  await v1.register(walletAuthRoutes, {
    ctx: narrowed(ctx, 'db', 'settings', 'clock', 'ledger', 'walletTokens'),
    buckets: deps.buckets,
  });
  await v1.register(marketRoutes, narrowed(ctx, 'db', 'ledger', 'clock', 'quoter'));
  const { streamCaps } = deps;
  await v1.register(swapRoutes, {
    ctx: narrowed(ctx, 'db', 'clock', 'walletTokens', 'quoter'),
    events: ctx.intentEvents,
    streamCaps,
  });
  await v1.register(atomicSwapRoutes, {
    ctx: narrowed(ctx, 'db', 'clock', 'walletTokens', 'quoter', 'ledger'),
    events: ctx.atomicSwapEvents,
    streamCaps,
  });
  await v1.register(liquidityRoutes, {
    ctx: narrowed(ctx, 'db', 'clock', 'walletTokens', 'ledger'),
    events: ctx.liquidityEvents,
    streamCaps,
  });
  await v1.register(withdrawalRoutes, {
    ctx: narrowed(ctx, 'db', 'clock', 'walletTokens'),
    events: ctx.withdrawalEvents,
    streamCaps,
  });
}

/** The devnet endpoints under `/devnet`, in devnet mode with the local ledger only. */
async function devnetApi(
  scope: App,
  ctx: ServiceContext,
  deps: HttpDeps,
  ledger: LocalLedger,
): Promise<void> {
  // Browser demos on devnet make their deposits through these endpoints too; the control
  // endpoints answer only their own origins (devnet-cors.ts).
  scope.addHook('onRequest', refuseMalformedPreflight);
  await scope.register(cors, {
    delegator: devnetCorsDelegator({
      general: corsOptions(ctx, ['X-Party-Signature']),
      controlOrigins: ctx.settings.devnetControlOrigins,
    }),
  });
  await scope.register(devnetRoutes, {
    ledger,
    buckets: deps.buckets,
    controlOrigins: ctx.settings.devnetControlOrigins,
    onClockAdvanced: async () => {
      await ctx.clock.sync?.();
    },
  });
}
