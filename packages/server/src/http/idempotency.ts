/**
 * Idempotent POSTs (docs/spec/protocol.md#idempotency), the decisions: whose a key is, what "the
 * same request" is, and what a request finds under its key. Pure; idempotent-routes.ts does the
 * I/O.
 *
 * Choices made here:
 * - A key belongs to the principal that sent it: the API key on `/v1`, the developer on
 *   `/api/sdk`. The wallet party, where a wallet token is involved, is part of the request rather
 *   than of the scope, as swap creation always had it: one API key serves many wallets, and a key
 *   sent again by another wallet must not hand it someone else's result, nor quietly run again.
 * - "The same request" is the route, its path parameters and its body as the service read it
 *   (members in any order, defaults filled in); a route may say more precisely what it
 *   understood (swap creation fills in the default slippage tolerance).
 * - Another request under a key is refused whether the first still runs or has finished: the
 *   key is spoken for either way.
 */
import { createHash } from 'node:crypto';
import type { ErrorCode } from '@poolparty/core';
import {
  IDEMPOTENCY_CLAIM_RUNNING_MS,
  type IdempotencyRecord,
  type StoredResponse,
} from '@poolparty/store';

/** Whose keys these are, and who else the request is made for. */
export interface IdempotencyPrincipal {
  /** `api_key:<keyId>` or `developer:<party>`: keys of one scope never meet another's. */
  readonly scope: string;
  /** The wallet party a wallet-authenticated request is made for. */
  readonly party?: string;
}

export function apiKeyScope(keyId: string): string {
  return `api_key:${keyId}`;
}

export function developerScope(party: string): string {
  return `developer:${party}`;
}

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

/**
 * SHA-256 (hex) of the request as the service understood it, for the wallet party it is made
 * for. Swap creation's records from before every POST took keys were hashed the same way.
 */
export function requestHash(understood: unknown, party: string | undefined): string {
  return createHash('sha256')
    .update(canonicalJson({ request: understood, walletParty: party }), 'utf8')
    .digest('hex');
}

/** What a route understood of a request when it says nothing more precise. */
export function routeRequestOf(request: {
  readonly method: string;
  readonly routeUrl: string | undefined;
  readonly params: unknown;
  readonly body: unknown;
}): unknown {
  return {
    route: `${request.method} ${request.routeUrl ?? ''}`,
    params: request.params,
    body: request.body,
  };
}

export type Verdict =
  | { readonly kind: 'run' }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'refuse'; readonly code: ErrorCode; readonly detail: string };

/**
 * What a request does given the record in force under its key after it tried to claim it, at
 * `mine.at`. A claim older than `IDEMPOTENCY_CLAIM_RUNNING_MS` that stored nothing was
 * interrupted: it may have taken effect, so it is never run again under the key.
 */
export function verdictOf(
  record: IdempotencyRecord,
  mine: { readonly claimToken: string; readonly requestHash: string; readonly at: Date },
): Verdict {
  if (record.claimToken === mine.claimToken && record.response === null) return { kind: 'run' };
  if (record.requestHash !== mine.requestHash) {
    return {
      kind: 'refuse',
      code: 'idempotency_key_reused',
      detail:
        'This Idempotency-Key was used for a different request; use a new key for a new request.',
    };
  }
  if (record.response === null) {
    const running = mine.at.getTime() - record.createdAt.getTime() < IDEMPOTENCY_CLAIM_RUNNING_MS;
    return {
      kind: 'refuse',
      code: 'idempotency_key_in_use',
      detail: running
        ? 'A request with this Idempotency-Key is still running; retry after it finished.'
        : 'The request first sent with this Idempotency-Key was interrupted before its answer ' +
          'was kept, and may have taken effect: look the result up before sending it again ' +
          'under a new key.',
    };
  }
  return { kind: 'replay', response: record.response };
}

/** Only a success is kept: a refused request changed nothing, so its retry is judged afresh. */
export function keepsResponse(status: number): boolean {
  return status >= 200 && status <= 299;
}
