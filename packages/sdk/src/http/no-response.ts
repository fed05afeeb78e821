/**
 * The errors for a request that got no response, worded so that their message alone says what
 * was tried and why it failed. Node's `fetch` rejects with a bare "fetch failed" and keeps the
 * reason (`connect ECONNREFUSED 127.0.0.1:8787`) in a nested `cause` that a one-line log never
 * shows; an app pointed at the wrong port should read the address and the reason at once.
 */
import { NetworkError, TimeoutError } from '../errors.js';

/** Bounds the walk down a chain of causes, which could loop. */
const CAUSE_DEPTH_MAX = 8;

/** The most specific reason in `thrown`'s chain of causes, as one line. */
export function reasonOf(thrown: unknown): string {
  let reason = String(thrown);
  let current = thrown as { message?: unknown; code?: unknown; errors?: unknown; cause?: unknown };
  for (let depth = 0; depth < CAUSE_DEPTH_MAX && current instanceof Object; depth += 1) {
    // An AggregateError (every address of a host refused) has an empty message of its own.
    const first = Array.isArray(current.errors) ? current.errors[0] : undefined;
    const text = current.message || (first as Error | undefined)?.message || current.code;
    if (typeof text === 'string' && text) reason = text;
    current = current.cause as typeof current;
  }
  return reason.replace(/\s+/g, ' ');
}

/** `GET http://host:port/path`: the query is left out, it only makes the line longer. */
function target(method: string, url: string): string {
  return `${method} ${url.split('?')[0]}`;
}

/** No response because the network or the service failed: names the request and the reason. */
export function noResponse(method: string, url: string, thrown: unknown): NetworkError {
  return new NetworkError(`No response from ${target(method, url)}: ${reasonOf(thrown)}`, {
    code: 'network_error',
    cause: thrown,
  });
}

/** No response within the timeout. */
export function timedOut(method: string, url: string, ms: number, thrown: unknown): TimeoutError {
  return new TimeoutError(`No response from ${target(method, url)} within ${ms} ms`, {
    code: 'timeout',
    cause: thrown,
  });
}
