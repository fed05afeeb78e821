/**
 * The devnet ledger server's `/devnet` routes: the devnet endpoints (endpoints.ts) at the
 * service's paths, validated and answered by core's wire schemas, refused with problem documents.
 * Without the service's documentation, rate limit or CORS: this server stands in for a
 * participant on the operator's own machine, and funds whole test clusters from one address. The
 * control routes take no requests from a browser page of another origin than the server's own.
 * Beside them, `GET /devnet/pools` lists the pools the ledger was seeded with.
 */
import type { LocalLedger } from '@poolparty/ledger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { arrivedOverTls } from '../http/fastify.js';
import { answerWithProblems, requestTarget, sendProblem } from '../http/problems.js';
import { type Route, registerRoutes, routeOf } from '../http/route-table.js';
import { DEVNET_ENDPOINTS, type DevnetEndpoint } from './endpoints.js';
import { DevnetConveniences, requireControlOrigin } from './operations.js';
import { type DevnetPoolListing, poolManifest } from './pool-manifest.js';
import { keepRawJsonBodies } from './signed-requests.js';

interface DevnetRouteDeps {
  readonly devnet: DevnetConveniences;
  readonly pools: ReturnType<typeof poolManifest>;
}

const devnetRoute = routeOf<DevnetRouteDeps>();

/** The `onRequest` hook of the control routes: no browser page of another origin. */
const controlOnly = () => async (request: FastifyRequest) => {
  const { origin } = request.headers;
  const scheme = arrivedOverTls(request.raw) ? 'https' : request.protocol;
  requireControlOrigin(
    {
      target: requestTarget(request),
      origin: typeof origin === 'string' ? origin : undefined,
      own: `${scheme}://${request.host}`,
    },
    [],
  );
};

/** An endpoint as this server serves it: as defined, the control ones for its own pages only. */
function served({ method, url, control, schema, handler }: DevnetEndpoint): Route<DevnetRouteDeps> {
  return { method, url, schema, ...(control && { onRequest: controlOnly }), handler };
}

const listDevnetPools = devnetRoute({
  method: 'GET',
  url: '/pools',
  handler: async ({ pools }) => pools,
});

const DEVNET_ROUTES = [...DEVNET_ENDPOINTS.map(served), listDevnetPools];

/**
 * Refuses a number member that validation let through as ±Infinity: Ajv coerces the strings
 * `"Infinity"` and `"1e400"` to it and then skips the range checks of a non-finite value.
 */
function refuseNonFiniteNumbers(request: FastifyRequest, reply: FastifyReply, done: () => void) {
  const schema = request.routeOptions.schema ?? {};
  for (const part of ['querystring', 'params', 'body'] as const) {
    const members = (schema[part] as { properties?: object } | undefined)?.properties ?? {};
    const values = (part === 'querystring' ? request.query : request[part]) as
      | Record<string, unknown>
      | undefined;
    for (const name of Object.keys(members)) {
      const raw = values?.[name];
      if (
        (Array.isArray(raw) ? raw : [raw]).some((v) => typeof v === 'number' && !Number.isFinite(v))
      ) {
        const path = `/${part}/${name}`;
        sendProblem(request, reply, 'validation_error', `${path} must be a finite number`, {
          errors: [{ path, message: 'must be a finite number' }],
        });
        return;
      }
    }
  }
  done();
}

/** Registers the `/devnet` routes on `scope` (prefixed `/devnet`), with their problem answers. */
export function devnetRoutes(
  scope: FastifyInstance,
  ledger: LocalLedger,
  pools: readonly DevnetPoolListing[],
): void {
  answerWithProblems(scope);
  keepRawJsonBodies(scope);
  scope.addHook('preHandler', refuseNonFiniteNumbers);
  const deps = { devnet: new DevnetConveniences(ledger), pools: poolManifest(pools) };
  registerRoutes(scope, deps, DEVNET_ROUTES);
}
