/**
 * Operational endpoints: liveness (the process answers), readiness (store and ledger reachable,
 * so a load balancer stops sending traffic to an instance that cannot serve it) and Prometheus
 * metrics.
 */
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../context.js';
import type { App } from '../fastify.js';

/** A dependency that does not answer within this is reported as not ready. */
export const READINESS_CHECK_TIMEOUT_MS = 2_000;

const HealthSchema = Type.Object({ status: Type.Literal('ok') });
const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  checks: Type.Object({ store: Type.Boolean(), ledger: Type.Boolean() }),
});

export async function healthRoutes(app: App, ctx: ServiceContext): Promise<void> {
  app.get('/healthz', { schema: { hide: true, response: { 200: HealthSchema } } }, async () => ({
    status: 'ok' as const,
  }));

  app.get(
    '/readyz',
    { schema: { hide: true, response: { 200: ReadinessSchema, 503: ReadinessSchema } } },
    async (_request, reply) => {
      const [store, ledger] = await Promise.all([
        answers(() => ctx.db.query('SELECT 1')),
        answers(() => ctx.ledger.ledgerEnd()),
      ]);
      const ready = store && ledger;
      reply.code(ready ? 200 : 503);
      return {
        status: ready ? ('ready' as const) : ('not_ready' as const),
        checks: { store, ledger },
      };
    },
  );

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
}

async function answers(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
