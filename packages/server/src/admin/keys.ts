/**
 * `poolparty admin keys`: a developer key's rate limits (docs/spec/protocol.md#rate-limits). A
 * key's own limits override the service defaults; `default` removes the override. The API-key
 * directory of every running process re-reads the key when told of the change
 * (admin/change-feed.ts).
 */

import type { Database, Queryable } from '@poolparty/store';
import {
  type ApiKeyRecord,
  findApiKeysByIdOrPrefix,
  listAllApiKeys,
  recordAdminAction,
  setApiKeyRateLimits,
} from '@poolparty/store';
import { DEFAULT_RATE_LIMITS } from '../auth/rate-limits.js';
import { AdminError } from './admin-error.js';
import type { Attribution } from './discounts.js';

const KEYS_LIST_MAX = 1_000;

/** New limits; an absent field stays as it is, null restores the service default. */
export interface LimitChange {
  readonly readsPerMin?: number | null;
  readonly swapsPerMin?: number | null;
}

/** The one key `text` names (key id, display prefix or the whole key). */
export async function findKey(q: Queryable, text: string): Promise<ApiKeyRecord> {
  const [key, other] = await findApiKeysByIdOrPrefix(q, text, 2);
  if (key === undefined) throw new AdminError('not_found', `no API key ${text}`);
  if (other !== undefined)
    throw new AdminError('validation_error', `${text} names several API keys; give the key id`);
  return key;
}

export async function changeKeyLimits(
  db: Database,
  text: string,
  change: LimitChange,
  by: Attribution,
): Promise<ApiKeyRecord> {
  return db.transaction(async (tx) => {
    const before = await findKey(tx, text);
    const after = await setApiKeyRateLimits(tx, before.keyId, {
      readsPerMin: change.readsPerMin === undefined ? before.readsPerMin : change.readsPerMin,
      swapsPerMin: change.swapsPerMin === undefined ? before.swapsPerMin : change.swapsPerMin,
    });
    if (after === null) throw new AdminError('not_found', `no API key ${text}`);
    await recordAdminAction(tx, {
      actor: by.actor,
      action: 'keys.limits',
      subject: after.keyId,
      details: {
        before: { readsPerMin: before.readsPerMin, swapsPerMin: before.swapsPerMin },
        after: { readsPerMin: after.readsPerMin, swapsPerMin: after.swapsPerMin },
      },
      at: by.now,
    });
    return after;
  });
}

export function listKeys(db: Database): Promise<ApiKeyRecord[]> {
  return listAllApiKeys(db, KEYS_LIST_MAX);
}

function limitText(own: number | null, fallback: number): string {
  return own === null ? `${fallback}/min (default)` : `${own}/min`;
}

/** "reads 1200/min (default), creates 60/min (default)". */
export function describeLimits(key: ApiKeyRecord): string {
  return `reads ${limitText(key.readsPerMin, DEFAULT_RATE_LIMITS.readsPerMin)}, creates ${limitText(key.swapsPerMin, DEFAULT_RATE_LIMITS.swapsPerMin)}`;
}

export function describeKey(key: ApiKeyRecord, now: Date): string {
  // A rotated key's grace ends after 24 hours, or earlier when a rotation at the cap ended it.
  const state =
    key.revokedAt !== null && key.revokedAt <= now
      ? 'revoked'
      : key.revokesAt === null
        ? 'active'
        : key.revokesAt <= now
          ? `rotated, stopped at ${key.revokesAt.toISOString()}`
          : `rotated, works until ${key.revokesAt.toISOString()}`;
  return [
    key.keyId,
    `${key.prefix}…`,
    key.environment,
    key.developerParty,
    state,
    describeLimits(key),
  ].join('\t');
}
