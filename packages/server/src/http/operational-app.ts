/**
 * The HTTP surface of a `worker` process (SPEC §11): only the operational endpoints (`/healthz`,
 * `/readyz`, `/metrics`), so an orchestrator can probe it and scrape its metrics. Workers settle;
 * the client API, the portal and the devnet endpoints are served by `api` (or `all`) processes.
 */
import type { ServiceContext } from '../context.js';
import { type App, createFastify } from './fastify.js';
import { healthRoutes } from './routes/health.js';

export async function buildOperationalApp(ctx: ServiceContext): Promise<App> {
  const app = createFastify({ logLevel: ctx.settings.logLevel });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    ctx.metrics.httpRequests.inc({ method: request.method, route, status: reply.statusCode });
    ctx.metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
  await app.register(async (scope) => healthRoutes(scope, ctx));
  return app;
}
