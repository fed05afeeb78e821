/** The HTTP series of the service's metrics (metrics.ts), recorded as every answer goes out. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceMetrics } from '../metrics.js';

/**
 * An `onResponse` hook counting and timing every answer by method and route template. The
 * labelled series are looked up once per method, route and status (a small, fixed set), not built
 * anew on every response.
 */
export function httpMetricsHook(metrics: ServiceMetrics) {
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(seconds: number): void }>();
  return function recordHttpResponse(
    request: FastifyRequest,
    reply: FastifyReply,
    done: () => void,
  ): void {
    const { method } = request;
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const series = `${method} ${route}`;
    const counted = `${series} ${status}`;
    let counter = counters.get(counted);
    if (counter === undefined) {
      counter = metrics.httpRequests.labels({ method, route, status });
      counters.set(counted, counter);
    }
    let timer = timers.get(series);
    if (timer === undefined) {
      timer = metrics.httpDuration.labels({ method, route });
      timers.set(series, timer);
    }
    counter.inc();
    timer.observe(reply.elapsedTime / 1000);
    done();
  };
}
