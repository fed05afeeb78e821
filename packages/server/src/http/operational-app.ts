/**
 * The HTTP surface of a `worker` process (docs/spec/running.md#roles-and-scale-out): only the
 * operational endpoints (`/healthz`, `/readyz`, `/metrics`), so an orchestrator can probe it and
 * scrape its metrics. Workers settle; the client API, the portal and the devnet endpoints are
 * served by `api` (or `all`) processes.
 */
import { narrowed, type ServiceContext } from '../context.js';
import { type App, createFastify, httpOptionsOf } from './fastify.js';
import { httpMetricsHook } from './metrics.js';
import { healthRoutes } from './routes/health.js';

export async function buildOperationalApp(ctx: ServiceContext): Promise<App> {
  // The same timeouts and connection caps as the API: a worker's port is as reachable.
  const app = createFastify(httpOptionsOf(ctx.settings));
  app.addHook('onResponse', httpMetricsHook(ctx.metrics));
  await app.register(healthRoutes, narrowed(ctx, 'db', 'ledger', 'metrics'));
  return app;
}
