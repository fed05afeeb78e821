/**
 * Prometheus metrics, one registry per service instance so tests that start several instances
 * in one process do not share counters. The HTTP layer records its series (http/metrics.ts);
 * `/metrics` answers the whole registry.
 */
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
