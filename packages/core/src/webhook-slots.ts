/**
 * How many webhook requests a worker may start, and to which endpoints
 * (docs/spec/webhooks.md#delivery): at most `concurrency` in flight in all and `perEndpoint` to
 * one endpoint. A statement that leases deliveries (a fan-out, a record round, a claim) is
 * offered the slots free when it starts, and the worker counts what it leased in flight when it
 * answers; one such statement at a time, so two never spend the same slot.
 */

export interface WebhookSlotLimits {
  readonly concurrency: number;
  readonly perEndpoint: number;
}

/** The slots offered to one statement: in all, and per endpoint it may lease for. */
export interface WebhookSlotsFree {
  readonly total: number;
  readonly perEndpoint: Readonly<Record<string, number>>;
}

/**
 * The slots free for deliveries to `endpointIds`, given what is in flight per endpoint: none
 * for an endpoint at its bound, none at all when the total is reached.
 */
export function webhookSlotsFree(
  limits: WebhookSlotLimits,
  inFlight: ReadonlyMap<string, number>,
  endpointIds: Iterable<string>,
): WebhookSlotsFree {
  let busy = 0;
  for (const count of inFlight.values()) busy += count;
  const total = Math.max(0, limits.concurrency - busy);
  const perEndpoint: Record<string, number> = {};
  if (total === 0) return { total, perEndpoint };
  for (const endpointId of endpointIds) {
    const free = Math.min(total, limits.perEndpoint - (inFlight.get(endpointId) ?? 0));
    if (free > 0) perEndpoint[endpointId] = free;
  }
  return { total, perEndpoint };
}
