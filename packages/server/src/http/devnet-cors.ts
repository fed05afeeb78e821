/**
 * CORS for `/devnet`: browser demos make deposits and accept offers there, so those answer the
 * configured `POOLPARTY_CORS_ORIGINS` like `/v1`. The control endpoints (`POST /devnet/clock`,
 * `/oracle`, `/faults`) move the devnet for everyone: their CORS answers name only the service's
 * own origin and `POOLPARTY_DEVNET_CONTROL_ORIGINS`, never `*` (the routes also refuse other
 * origins with 403, since a simple cross-site POST needs no preflight).
 */

import { controlOriginAllowed } from '@poolparty/devnet-ledger/devnet';
import type { FastifyRequest } from 'fastify';
import { ownOrigin } from './origins.js';
import { requestPath } from './problem.js';

/** Paths under `/devnet` whose POST controls the devnet itself. */
const CONTROL_PATHS: readonly string[] = ['/devnet/clock', '/devnet/oracle', '/devnet/faults'];

/** Whether the request is a control call, or the preflight of one. */
function isControlRequest(request: FastifyRequest): boolean {
  if (!CONTROL_PATHS.includes(requestPath(request))) return false;
  const method =
    request.method === 'OPTIONS'
      ? request.headers['access-control-request-method']
      : request.method;
  return typeof method === 'string' && method.toUpperCase() === 'POST';
}

export interface DevnetCorsSettings {
  /** The plugin options of every other `/devnet` route. */
  readonly general: Record<string, unknown> & { readonly origin: boolean | readonly string[] };
  readonly controlOrigins: readonly string[];
}

/** A `@fastify/cors` delegator choosing the options per request. */
export function devnetCorsDelegator({ general, controlOrigins }: DevnetCorsSettings) {
  return (
    request: FastifyRequest,
    callback: (error: Error | null, options: Record<string, unknown>) => void,
  ): void => {
    if (!isControlRequest(request)) {
      callback(null, general);
      return;
    }
    const origin = request.headers.origin;
    const allowed = controlOriginAllowed(origin, ownOrigin(request), controlOrigins);
    // A reflected origin rather than `*`, and only for origins that may call.
    callback(null, { ...general, origin: allowed && origin !== undefined ? origin : false });
  };
}
