/**
 * What a developer reads of their own objects: an API key as listed, and a collection. The portal
 * answers them, and the webhooks of `api_key.revoked` and `collection.paid` carry them.
 */
import type { ApiKeyListEntry, Collection } from '@poolparty/core';
import { type ApiKeyRecord, apiKeyEndsAt, type CollectionRecord } from '@poolparty/store';

export function listingOf(key: ApiKeyRecord): ApiKeyListEntry {
  return {
    keyId: key.keyId,
    name: key.name === '' ? null : key.name,
    prefix: key.prefix,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: apiKeyEndsAt(key)?.toISOString() ?? null,
    requestCount: key.requestCount,
  };
}

export function collectionOf(record: CollectionRecord): Collection {
  return {
    collectionId: record.collectionId,
    poolId: record.poolId,
    token: record.instrument.id,
    tokenAdmin: record.instrument.admin,
    amount: record.amount.toString(),
    status: record.status,
    receiverParty: record.developerParty,
    updateId: record.updateId,
    offerId: record.offerId,
    offerExpiresAt: record.offerExpiresAt?.toISOString() ?? null,
    createdAt: record.createdAt.toISOString(),
    settledAt: record.settledAt?.toISOString() ?? null,
    error: record.error,
  };
}
