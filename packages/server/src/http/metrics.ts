/**
 * Prometheus metrics, one registry per service instance so tests that start several instances
 * in one process do not share counters.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface ServiceMetrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
}

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'poolparty_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'poolparty_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'poolparty_http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

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
