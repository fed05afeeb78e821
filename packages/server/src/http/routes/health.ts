/**
 * Operational endpoints: liveness (the process answers), readiness (store and ledger reachable,
 * so a load balancer stops sending traffic to an instance that cannot serve it) and Prometheus
 * metrics.
 */
import { pingStore } from '@poolparty/store';
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../context.js';
import type { App } from '../fastify.js';
import {
  HEALTH_EXAMPLE,
  METRICS_EXAMPLE,
  NOT_READY_EXAMPLE,
  READY_EXAMPLE,
} from '../openapi-examples.js';
import { errorResponses, SECURITY, TAG, withExamples } from '../route-docs.js';
import { registerRoutes, routeOf } from '../route-table.js';

/** A dependency that does not answer within this is reported as not ready. */
const READINESS_CHECK_TIMEOUT_MS = 2_000;

const HealthSchema = Type.Object(
  { status: Type.Literal('ok') },
  { description: 'The process answers.' },
);
const ReadinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
    checks: Type.Object(
      {
        store: Type.Boolean({ description: 'The store answered a query.' }),
        ledger: Type.Boolean({ description: 'The ledger reported its end offset.' }),
      },
      { description: 'Each dependency, reachable or not.' },
    ),
  },
  { description: 'Whether this instance can serve traffic.' },
);
const MetricsSchema = Type.String({ description: 'Prometheus text exposition format.' });

/** What the operational endpoints read: the store and the ledger they probe, and the metrics. */
export type HealthContext = Pick<ServiceContext, 'db' | 'ledger' | 'metrics'>;

const healthRoute = routeOf<HealthContext>();

/** `GET /healthz`: the process answers. */
const getLiveness = healthRoute({
  method: 'GET',
  url: '/healthz',
  schema: {
    operationId: 'getLiveness',
    summary: 'Liveness',
    description: 'Answers while the process runs; it checks no dependency.',
    tags: [TAG.operations],
    security: SECURITY.none,
    response: { 200: withExamples(HealthSchema, HEALTH_EXAMPLE) },
    problems: errorResponses([]),
  },
  handler: async () => ({ status: 'ok' as const }),
});

/** `GET /readyz`: the store and the ledger both answer. */
const getReadiness = healthRoute({
  method: 'GET',
  url: '/readyz',
  schema: {
    operationId: 'getReadiness',
    summary: 'Readiness',
    description: `Ready when the store and the ledger both answer within ${READINESS_CHECK_TIMEOUT_MS} ms; a load balancer should send no traffic to an instance that is not.`,
    tags: [TAG.operations],
    security: SECURITY.none,
    response: {
      200: withExamples(ReadinessSchema, READY_EXAMPLE),
      503: withExamples(
        { ...ReadinessSchema, description: 'A dependency did not answer.' },
        NOT_READY_EXAMPLE,
      ),
    },
    problems: errorResponses([]),
  },
  handler: async (ctx, _request, reply) => {
    const [store, ledger] = await Promise.all([
      answers(() => pingStore(ctx.db)),
      answers(() => ctx.ledger.ledgerEnd()),
    ]);
    const ready = store && ledger;
    reply.code(ready ? 200 : 503);
    return {
      status: ready ? ('ready' as const) : ('not_ready' as const),
      checks: { store, ledger },
    };
  },
});

/** `GET /metrics`: the Prometheus text of this process. */
const getMetrics = healthRoute({
  method: 'GET',
  url: '/metrics',
  schema: {
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description: 'HTTP, settlement and process metrics of this process, for scraping.',
    tags: [TAG.operations],
    security: SECURITY.none,
    response: {
      200: {
        description: 'The metrics.',
        content: { 'text/plain': { schema: MetricsSchema, example: METRICS_EXAMPLE } },
      },
    },
    problems: errorResponses([]),
  },
  handler: async (ctx, _request, reply) => {
    reply.type(ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  },
});

const HEALTH_ROUTES = [getLiveness, getReadiness, getMetrics];

/** The operational endpoints, a plugin registered with `HealthContext`. */
export async function healthRoutes(app: App, ctx: HealthContext): Promise<void> {
  registerRoutes(app, ctx, HEALTH_ROUTES);
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
