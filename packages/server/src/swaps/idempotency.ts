/**
 * Idempotent swap creation (docs/spec/protocol.md#idempotency): a retry with the same
 * `Idempotency-Key` and the same request gets the first response again; the same key with another
 * request is refused.
 *
 * Choices made here:
 * - "The same request" is the body as the server understands it — keys in any order, the default
 *   slippage tolerance filled in — and the wallet party it is made for. One API key serves many
 *   wallets; a key reused by another wallet must not hand it someone else's intent.
 * - Only a created intent (201) is kept. A refused create changed nothing, so a retry is judged
 *   afresh (the pool may have recovered, the pending intent may have been cancelled).
 * - A retry that arrives while the first request with its key is still running is answered 409
 *   `idempotency_key_in_use` at once rather than waiting: the SDK retries with backoff, and a
 *   held connection per duplicate is what a retry storm must not cost. Across processes the
 *   record and the intent are written in one transaction, so the slower duplicate rolls back and
 *   replays the first one's response.
 */

import { createHash } from 'node:crypto';
import { DomainError } from '@poolparty/core';
import type { IdempotencyRecord } from '@poolparty/store';

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 (hex) of the request as the server understands it, for the wallet it is made for. */
export function requestHash(request: object, walletParty: string): string {
  return createHash('sha256').update(canonicalJson({ request, walletParty }), 'utf8').digest('hex');
}

export interface Replay {
  readonly status: number;
  readonly body: unknown;
}

/** The stored response for a request with this hash; 422 when the key served another request. */
export function replayOf(record: IdempotencyRecord, hash: string): Replay {
  if (record.requestHash !== hash) {
    throw new DomainError(
      'idempotency_key_reused',
      'This Idempotency-Key was used for a different request; use a new key for a new request.',
    );
  }
  return { status: record.responseStatus, body: record.responseBody };
}

/**
 * Keys whose first request is running in this process. `claim` answers the release function, or
 * refuses with 409 when the key is already claimed.
 */
export class InFlightKeys {
  private readonly running = new Set<string>();

  claim(apiKeyId: string, key: string): () => void {
    const slot = `${apiKeyId}\u0000${key}`;
    if (this.running.has(slot)) {
      throw new DomainError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still running; retry after it finished.',
      );
    }
    this.running.add(slot);
    return () => {
      this.running.delete(slot);
    };
  }
}
