/**
 * Webhooks (migration 0017, docs/spec/webhooks.md): a developer's endpoints, the queue of events
 * the triggers fill, and the deliveries with their attempts.
 *
 * Delivery is at least once: a worker claims a delivery with a lease (`lease_until`) before it
 * sends, and records the attempt after; a worker that dies mid-request leaves the lease to run
 * out, and the next claim after it takes the delivery again. A delivery waits (`held`, migration
 * 0020) while an earlier delivery of its subject to the same endpoint is open, so one intent's
 * events arrive in order and one at a time; adding deliveries and ending them release the next.
 */
import { jsonParam, read } from './columns.js';
import type { Database, Queryable, Row } from './database.js';

/** How long an ended delivery and its attempts are kept, for the delivery log and resends. */
export const WEBHOOK_DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export type WebhookDeliveryState = 'pending' | 'delivered' | 'retrying' | 'failed';

export interface WebhookAttemptRecord {
  readonly at: string;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
}

export interface WebhookEndpointRecord {
  readonly endpointId: string;
  readonly developerParty: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly apiKeyIds: readonly string[] | null;
  readonly description: string;
  readonly secret: string;
  readonly previousSecret: string | null;
  readonly previousSecretExpiresAt: Date | null;
  readonly secretRotatedAt: Date | null;
  readonly enabled: boolean;
  readonly disabledReason: string | null;
  readonly disabledAt: Date | null;
  readonly failedInRow: number;
  readonly failingSince: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface WebhookDeliveryRecord {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly subjectId: string;
  readonly body: string;
  readonly state: WebhookDeliveryState;
  readonly attempts: readonly WebhookAttemptRecord[];
  readonly firstAttemptAt: Date | null;
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
}

function textArray(value: unknown): string[] {
  if (!Array.isArray(value)) throw new TypeError('expected a text array');
  return value.map(read.string);
}

function endpointFromRow(row: Row): WebhookEndpointRecord {
  return {
    endpointId: read.string(row.endpoint_id),
    developerParty: read.string(row.developer_party),
    url: read.string(row.url),
    events: textArray(row.events),
    apiKeyIds: row.api_key_ids === null ? null : textArray(row.api_key_ids),
    description: read.string(row.description),
    secret: read.string(row.secret),
    previousSecret: read.stringOrNull(row.previous_secret),
    previousSecretExpiresAt: read.dateOrNull(row.previous_secret_expires_at),
    secretRotatedAt: read.dateOrNull(row.secret_rotated_at),
    enabled: row.enabled === true,
    disabledReason: read.stringOrNull(row.disabled_reason),
    disabledAt: read.dateOrNull(row.disabled_at),
    failedInRow: read.safeInteger(row.failed_in_row),
    failingSince: read.dateOrNull(row.failing_since),
    createdAt: read.date(row.created_at),
    updatedAt: read.date(row.updated_at),
  };
}

function deliveryFromRow(row: Row): WebhookDeliveryRecord {
  const attempts = typeof row.attempts === 'string' ? JSON.parse(row.attempts) : row.attempts;
  return {
    deliveryId: read.string(row.delivery_id),
    endpointId: read.string(row.endpoint_id),
    eventId: read.string(row.event_id),
    eventType: read.string(row.event_type),
    subjectId: read.string(row.subject_id),
    body: read.string(row.body),
    state: read.string(row.state) as WebhookDeliveryState,
    attempts: attempts as WebhookAttemptRecord[],
    firstAttemptAt: read.dateOrNull(row.first_attempt_at),
    nextAttemptAt: read.dateOrNull(row.next_attempt_at),
    createdAt: read.date(row.created_at),
  };
}

// --- endpoints ---------------------------------------------------------------------------------

export interface NewWebhookEndpoint {
  readonly endpointId: string;
  readonly developerParty: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly apiKeyIds: readonly string[] | null;
  readonly description: string;
  readonly secret: string;
  readonly createdAt: Date;
}

/**
 * Creates the endpoint unless its developer already has `max`; null then. The developer's row is
 * locked first, so concurrent creations are counted one after the other.
 */
export async function insertWebhookEndpointWithinCap(
  db: Database,
  endpoint: NewWebhookEndpoint,
  max: number,
): Promise<WebhookEndpointRecord | null> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT party_id FROM developers WHERE party_id = $1 FOR UPDATE', [
      endpoint.developerParty,
    ]);
    const [counted] = await tx.query(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE developer_party = $1',
      [endpoint.developerParty],
    );
    if (read.safeInteger(counted?.n) >= max) return null;
    const rows = await tx.query(
      `INSERT INTO webhook_endpoints (endpoint_id, developer_party, url, events, api_key_ids,
         description, secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
      [
        endpoint.endpointId,
        endpoint.developerParty,
        endpoint.url,
        endpoint.events,
        endpoint.apiKeyIds,
        endpoint.description,
        endpoint.secret,
        endpoint.createdAt,
      ],
    );
    return endpointFromRow(rows[0] as Row);
  });
}

/** The endpoint, whoever's it is; the caller checks the developer. */
export async function getWebhookEndpoint(
  q: Queryable,
  endpointId: string,
): Promise<WebhookEndpointRecord | null> {
  return endpointById(q, endpointId, '');
}

/** One read serves both: the lock is the only difference between a look and a locked read. */
async function endpointById(
  q: Queryable,
  endpointId: string,
  lock: '' | 'FOR UPDATE',
): Promise<WebhookEndpointRecord | null> {
  const rows = await q.query(`SELECT * FROM webhook_endpoints WHERE endpoint_id = $1 ${lock}`, [
    endpointId,
  ]);
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

/** The developer's endpoints, oldest first (a developer holds a bounded number). */
export async function listWebhookEndpoints(
  q: Queryable,
  developerParty: string,
): Promise<WebhookEndpointRecord[]> {
  const rows = await q.query(
    `SELECT * FROM webhook_endpoints WHERE developer_party = $1
     ORDER BY created_at, endpoint_id`,
    [developerParty],
  );
  return rows.map(endpointFromRow);
}

export interface WebhookEndpointChanges {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly apiKeyIds?: readonly string[] | null;
  readonly description?: string;
  /** True re-enables (and forgets the failures that disabled it); false disables. */
  readonly enabled?: boolean;
}

/** Applies the changes given to the developer's endpoint; null when it is not theirs. */
export async function updateWebhookEndpoint(
  q: Queryable,
  input: {
    readonly endpointId: string;
    readonly developerParty: string;
    readonly changes: WebhookEndpointChanges;
    readonly now: Date;
  },
): Promise<WebhookEndpointRecord | null> {
  const { changes } = input;
  const rows = await q.query(
    `UPDATE webhook_endpoints SET
       url = COALESCE($3, url),
       events = CASE WHEN $4::boolean THEN $5::text[] ELSE events END,
       api_key_ids = CASE WHEN $6::boolean THEN $7::text[] ELSE api_key_ids END,
       description = COALESCE($8, description),
       enabled = COALESCE($9::boolean, enabled),
       disabled_reason = CASE WHEN $9::boolean IS NULL THEN disabled_reason
         WHEN $9::boolean THEN NULL ELSE 'disabled by the developer' END,
       disabled_at = CASE WHEN $9::boolean IS NULL THEN disabled_at
         WHEN $9::boolean THEN NULL ELSE COALESCE(disabled_at, $10) END,
       failed_in_row = CASE WHEN $9::boolean THEN 0 ELSE failed_in_row END,
       failing_since = CASE WHEN $9::boolean THEN NULL ELSE failing_since END,
       updated_at = $10
     WHERE endpoint_id = $1 AND developer_party = $2 RETURNING *`,
    [
      input.endpointId,
      input.developerParty,
      changes.url ?? null,
      changes.events !== undefined,
      changes.events ?? [],
      changes.apiKeyIds !== undefined,
      changes.apiKeyIds ?? null,
      changes.description ?? null,
      changes.enabled ?? null,
      input.now,
    ],
  );
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

/** Deletes the developer's endpoint and its deliveries; false when it is not theirs. */
export async function deleteWebhookEndpoint(
  q: Queryable,
  endpointId: string,
  developerParty: string,
): Promise<boolean> {
  const rows = await q.query(
    `DELETE FROM webhook_endpoints WHERE endpoint_id = $1 AND developer_party = $2
     RETURNING endpoint_id`,
    [endpointId, developerParty],
  );
  return rows.length > 0;
}

/**
 * Makes `secret` the endpoint's, the current one signing beside it until `previousExpiresAt`;
 * a previous secret still in its overlap is dropped. Null when the endpoint is not theirs.
 */
export async function rotateWebhookSecret(
  q: Queryable,
  input: {
    readonly endpointId: string;
    readonly developerParty: string;
    readonly secret: string;
    readonly previousExpiresAt: Date;
    readonly now: Date;
  },
): Promise<WebhookEndpointRecord | null> {
  const rows = await q.query(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $4,
       secret = $3, secret_rotated_at = $5, updated_at = $5
     WHERE endpoint_id = $1 AND developer_party = $2 RETURNING *`,
    [input.endpointId, input.developerParty, input.secret, input.previousExpiresAt, input.now],
  );
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

/** The secrets that sign a request sent at `now`: the current one, and the previous in overlap. */
export function signingSecrets(endpoint: WebhookEndpointRecord, now: Date): string[] {
  const { previousSecret, previousSecretExpiresAt } = endpoint;
  const overlapping =
    previousSecret !== null && previousSecretExpiresAt !== null && now < previousSecretExpiresAt;
  return overlapping ? [endpoint.secret, previousSecret] : [endpoint.secret];
}

// --- the queue and the fan-out ------------------------------------------------------------------

export interface QueuedWebhookEvent {
  readonly queuedSeq: number;
  readonly eventId: string;
  readonly developerParty: string;
  readonly type: string;
  readonly subjectId: string;
  readonly apiKeyId: string | null;
  readonly outboxSeq: number | null;
  readonly at: Date;
}

/**
 * Fan-outs take turns, across processes, on this lock (its first key "PPWF"; its second, the
 * schema's), held to the end of the fan-out's transaction. Two at once would split the queue:
 * the second taking an intent's later event while the first still holds its earlier one, and
 * committing first, so the later event's delivery would be added, and sent, first.
 */
const FAN_OUT_LOCK = `SELECT pg_advisory_xact_lock(1347442502, hashtext(current_schema()))`;

/**
 * The oldest queued events, at most `limit`, locked for the transaction, once no other fan-out's
 * transaction is open (`FAN_OUT_LOCK`), so events are fanned out in the order they were queued.
 */
export async function lockQueuedWebhookEvents(
  tx: Queryable,
  limit: number,
): Promise<QueuedWebhookEvent[]> {
  await tx.query(FAN_OUT_LOCK);
  const rows = await tx.query(
    'SELECT * FROM webhook_events ORDER BY queued_seq LIMIT $1 FOR UPDATE SKIP LOCKED',
    [limit],
  );
  return rows.map((row) => ({
    queuedSeq: read.safeInteger(row.queued_seq),
    eventId: read.string(row.event_id),
    developerParty: read.string(row.developer_party),
    type: read.string(row.type),
    subjectId: read.string(row.subject_id),
    apiKeyId: read.stringOrNull(row.api_key_id),
    outboxSeq: row.outbox_seq === null ? null : read.safeInteger(row.outbox_seq),
    at: read.date(row.at),
  }));
}

/** The enabled endpoints of these developers. */
export async function enabledWebhookEndpointsOf(
  q: Queryable,
  developerParties: readonly string[],
): Promise<WebhookEndpointRecord[]> {
  const rows = await q.query(
    `SELECT * FROM webhook_endpoints WHERE developer_party = ANY($1::text[]) AND enabled
     ORDER BY created_at, endpoint_id`,
    [developerParties],
  );
  return rows.map(endpointFromRow);
}

export interface NewWebhookDelivery {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly subjectId: string;
  readonly body: string;
  readonly createdAt: Date;
  /** The delivery this one sends again; absent for the fan-out's and test events. */
  readonly resendOf?: string;
}

/** Deliveries one statement adds or records at most: one bounded parameter and plan. */
export const WEBHOOK_ROWS_PER_STATEMENT = 500;

/** The chains (endpoint, subject) named, as the two arrays `release_webhook_chains` takes. */
function chainArrays(
  chains: Iterable<{ readonly endpointId: string; readonly subjectId: string }>,
): [string[], string[]] {
  const endpoints: string[] = [];
  const subjects: string[] = [];
  for (const chain of chains) {
    endpoints.push(chain.endpointId);
    subjects.push(chain.subjectId);
  }
  return [endpoints, subjects];
}

/** Workers listen here (migration 0020): queued events and added deliveries wake them at commit. */
export const WEBHOOK_WORK_CHANNEL = 'webhook_work';

/** What a notification on `WEBHOOK_WORK_CHANNEL` announces: a fan-out due, or a claim due. */
export type WebhookWork = 'events' | 'deliveries';

/**
 * Lets the first open delivery of each chain go when it is held (migration 0020): after
 * deliveries were added behind others, or some ended. Locks the chains for the transaction.
 */
export async function releaseWebhookChains(
  q: Queryable,
  chains: Iterable<{ readonly endpointId: string; readonly subjectId: string }>,
): Promise<number> {
  const [endpoints, subjects] = chainArrays(chains);
  if (endpoints.length === 0) return 0;
  const [row] = await q.query('SELECT release_webhook_chains($1::text[], $2::text[]) AS n', [
    endpoints,
    subjects,
  ]);
  return read.safeInteger(row?.n);
}

/**
 * Releases the chains of deliveries just added and, when that let one go, wakes the workers at
 * commit: the insert's own notification (migration 0026) counts only deliveries added claimable.
 */
async function releaseAddedChains(
  q: Queryable,
  chains: Iterable<{ readonly endpointId: string; readonly subjectId: string }>,
): Promise<void> {
  if ((await releaseWebhookChains(q, chains)) === 0) return;
  await q.query('SELECT pg_notify($1, $2)', [WEBHOOK_WORK_CHANNEL, 'deliveries']);
}

/**
 * Held, when adding a delivery: an open one of its chain is there already, or an earlier one of
 * the same statement. The chains' release after the insert corrects a guess a concurrent end
 * made wrong.
 */
const HELD_ON_INSERT = `EXISTS (SELECT 1 FROM webhook_deliveries e
         WHERE e.endpoint_id = d.endpoint_id AND e.subject_id = d.subject_id
           AND e.state IN ('pending', 'retrying'))
       OR row_number() OVER (PARTITION BY d.endpoint_id, d.subject_id ORDER BY d.n) > 1`;

/**
 * Adds the deliveries, due at once, in the order given (their `ord`); a fan-out's delivery of an
 * event an endpoint already has is skipped. Each waits behind the open deliveries of its subject
 * to its endpoint. One transaction, so the chains' release commits with the deliveries.
 */
export async function insertWebhookDeliveries(
  db: Database,
  deliveries: readonly NewWebhookDelivery[],
): Promise<WebhookDeliveryRecord[]> {
  if (deliveries.length === 0) return [];
  return db.transaction(async (tx) => {
    // A resend or a test event takes its turn with the fan-outs: added beside an open fan-out's
    // delivery of the same chain, neither would see the other and both would be sendable.
    await tx.query(FAN_OUT_LOCK);
    return insertDeliveries(tx, deliveries);
  });
}

async function insertDeliveries(
  q: Queryable,
  deliveries: readonly NewWebhookDelivery[],
): Promise<WebhookDeliveryRecord[]> {
  if (deliveries.length > WEBHOOK_ROWS_PER_STATEMENT) {
    throw new RangeError(`at most ${WEBHOOK_ROWS_PER_STATEMENT} deliveries per statement`);
  }
  const rows = await q.query(
    `INSERT INTO webhook_deliveries (delivery_id, endpoint_id, event_id, event_type, subject_id,
       body, state, next_attempt_at, created_at, resend_of, held)
     SELECT d.delivery_id, d.endpoint_id, d.event_id, d.event_type, d.subject_id, d.body,
       'pending', d.created_at, d.created_at, d.resend_of, ${HELD_ON_INSERT}
     FROM jsonb_to_recordset($1::jsonb) AS d(delivery_id text, endpoint_id text,
       event_id text, event_type text, subject_id text, body text, created_at timestamptz,
       resend_of text, n bigint)
     ORDER BY d.n
     ON CONFLICT (endpoint_id, event_id) WHERE resend_of IS NULL DO NOTHING
     RETURNING *`,
    [
      jsonParam(
        deliveries.map((d, n) => ({
          n,
          delivery_id: d.deliveryId,
          endpoint_id: d.endpointId,
          event_id: d.eventId,
          event_type: d.eventType,
          subject_id: d.subjectId,
          body: d.body,
          created_at: d.createdAt.toISOString(),
          resend_of: d.resendOf ?? null,
        })),
      ),
    ],
  );
  const added = rows.map(deliveryFromRow);
  await releaseAddedChains(q, added);
  return added;
}

/** An event fanned out: its body, and the endpoints it goes to with each delivery's id. */
export interface FannedOutWebhookEvent {
  readonly eventId: string;
  readonly type: string;
  readonly subjectId: string;
  readonly body: string;
  readonly recipients: readonly { readonly endpointId: string; readonly deliveryId: string }[];
}

/**
 * The slots a worker offers a statement that adds or releases deliveries: it leases to `owner`
 * what it can send at once, at most `total` and `perEndpoint[endpoint]` of an endpoint (none of
 * one not named), oldest first. The worker counts them in flight when the statement answers.
 */
export interface WebhookLeaseOffer {
  readonly owner: string;
  readonly now: Date;
  readonly leaseUntil: Date;
  readonly total: number;
  readonly perEndpoint: Readonly<Record<string, number>>;
}

/** A delivery a fan-out added and leased to the offer's owner: the caller has its body. */
export interface LeasedFannedOutDelivery {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly eventId: string;
}

export interface FanOutWritten {
  /** Deliveries added. */
  readonly added: number;
  /** Those added leased to the offer's owner, in the order given. */
  readonly leased: readonly LeasedFannedOutDelivery[];
  /** Those added neither leased nor held: a claim's (after the fan-out commits). */
  readonly claimable: number;
}

/**
 * Whether an added delivery fits its endpoint's free slots: not held, and among the first
 * `perEndpoint[endpoint]` not held of its endpoint in the order added. `h` is the deliveries with
 * `held` decided; `$4` the offer as JSON (`{total, perEndpoint}`), null for none (nothing fits).
 */
const FITS_ON_INSERT = `NOT h.held AND row_number() OVER (PARTITION BY h.endpoint_id, h.held ORDER BY h.n)
         <= COALESCE(($4::jsonb -> 'perEndpoint' ->> h.endpoint_id)::int, 0)`;

/** Which added deliveries the offer leases: those that fit, in the order added, up to its total. */
const LEASED_ON_INSERT = `k.fits
         AND count(*) FILTER (WHERE k.fits) OVER (ORDER BY k.n) <= ($4::jsonb ->> 'total')::int`;

/**
 * The fan-out's write (in its transaction): every event's deliveries, one per recipient, due at
 * `now`, in the order given (events, then recipients), and the queued rows `dequeue` off the
 * queue, in one statement; then the chains' release. An endpoint that has the event already is
 * skipped. With `lease`, the deliveries it can take are leased in the same statement, so no
 * claim has to find them: they are the caller's to send once the transaction commits.
 */
export async function insertFannedOutWebhookEvents(
  tx: Queryable,
  input: {
    readonly events: readonly FannedOutWebhookEvent[];
    readonly dequeue: readonly number[];
    readonly now: Date;
    readonly lease?: WebhookLeaseOffer | null;
  },
): Promise<FanOutWritten> {
  const { lease } = input;
  const rows = await tx.query(
    `WITH dequeued AS (
       DELETE FROM webhook_events WHERE queued_seq = ANY($2::bigint[])
     ), d AS (
       SELECT r.delivery_id, r.endpoint_id, e.event_id, e.type, e.subject_id, e.body,
         row_number() OVER (ORDER BY e.n, r.k) AS n
       FROM jsonb_to_recordset($1::jsonb) AS e(n bigint, event_id text, type text,
         subject_id text, body text, endpoint_ids text[], delivery_ids text[])
       CROSS JOIN LATERAL unnest(e.endpoint_ids, e.delivery_ids) WITH ORDINALITY
         AS r(endpoint_id, delivery_id, k)
     ), h AS (
       SELECT d.*, ${HELD_ON_INSERT} AS held FROM d
     ), k AS (
       SELECT h.*, ${FITS_ON_INSERT} AS fits FROM h
     ), l AS (
       SELECT k.*, ${LEASED_ON_INSERT} AS leased FROM k
     )
     INSERT INTO webhook_deliveries (delivery_id, endpoint_id, event_id, event_type, subject_id,
       body, state, next_attempt_at, created_at, held, lease_owner, lease_until)
     SELECT l.delivery_id, l.endpoint_id, l.event_id, l.type, l.subject_id, l.body,
       'pending', $3, $3, l.held, CASE WHEN l.leased THEN $5::text END,
       CASE WHEN l.leased THEN $6::timestamptz END
     FROM l ORDER BY l.n
     ON CONFLICT (endpoint_id, event_id) WHERE resend_of IS NULL DO NOTHING
     RETURNING delivery_id, endpoint_id, subject_id, event_id, held, lease_owner IS NOT NULL AS leased`,
    [
      jsonParam(
        input.events.map((event, n) => ({
          n,
          event_id: event.eventId,
          type: event.type,
          subject_id: event.subjectId,
          body: event.body,
          endpoint_ids: event.recipients.map((r) => r.endpointId),
          delivery_ids: event.recipients.map((r) => r.deliveryId),
        })),
      ),
      input.dequeue.map(String),
      input.now,
      lease ? jsonParam({ total: lease.total, perEndpoint: lease.perEndpoint }) : null,
      lease?.owner ?? null,
      lease?.leaseUntil ?? null,
    ],
  );
  await releaseAddedChains(
    tx,
    rows.map((row) => ({
      endpointId: read.string(row.endpoint_id),
      subjectId: read.string(row.subject_id),
    })),
  );
  return fanOutWritten(rows);
}

function fanOutWritten(rows: readonly Row[]): FanOutWritten {
  const leased: LeasedFannedOutDelivery[] = [];
  let claimable = 0;
  for (const row of rows) {
    if (row.leased === true) {
      leased.push({
        deliveryId: read.string(row.delivery_id),
        endpointId: read.string(row.endpoint_id),
        eventId: read.string(row.event_id),
      });
    } else if (row.held !== true) claimable += 1;
  }
  return { added: rows.length, leased, claimable };
}

/** Takes fanned-out events off the queue (in the fan-out's transaction). */
export async function dequeueWebhookEvents(
  tx: Queryable,
  queuedSeqs: readonly number[],
): Promise<void> {
  if (queuedSeqs.length === 0) return;
  await tx.query('DELETE FROM webhook_events WHERE queued_seq = ANY($1::bigint[])', [
    queuedSeqs.map(String),
  ]);
}

// --- claims and attempts -------------------------------------------------------------------------

export interface WebhookClaim {
  readonly owner: string;
  readonly now: Date;
  readonly leaseUntil: Date;
  readonly limit: number;
  /** In flight per endpoint at most, counting `busy`. */
  readonly perEndpoint: number;
  /** Deliveries this worker has in flight, by endpoint. */
  readonly busy: Readonly<Record<string, number>>;
  /** Due deliveries looked at per claim at most. */
  readonly scanMax: number;
}

export interface ClaimedWebhookDelivery extends WebhookDeliveryRecord {
  readonly endpoint: WebhookEndpointRecord;
  readonly attemptCount: number;
}

/**
 * Leases due deliveries to `owner` until `leaseUntil`: open, due, not leased (or the lease ran
 * out), of an enabled endpoint, not held behind an earlier open delivery of their subject to
 * their endpoint, and at most `perEndpoint` in flight per endpoint, oldest due first. Rows
 * another claim holds are skipped. One statement, however many it takes: the walk follows the
 * index of claimable deliveries in the claim's order and stops after `scanMax`.
 */
export async function claimWebhookDeliveries(
  q: Queryable,
  claim: WebhookClaim,
): Promise<ClaimedWebhookDelivery[]> {
  const rows = await q.query(
    `WITH due AS (
       SELECT d.delivery_id, d.endpoint_id, d.next_attempt_at, d.ord FROM webhook_deliveries d
       WHERE d.state IN ('pending', 'retrying') AND NOT d.held AND d.next_attempt_at <= $2
         AND (d.lease_until IS NULL OR d.lease_until <= $2)
         AND EXISTS (SELECT 1 FROM webhook_endpoints w
           WHERE w.endpoint_id = d.endpoint_id AND w.enabled)
       ORDER BY d.next_attempt_at, d.ord LIMIT $7
     ), ranked AS (
       SELECT due.*, row_number() OVER (PARTITION BY due.endpoint_id
         ORDER BY due.next_attempt_at, due.ord) AS n FROM due
     ), picked AS (
       SELECT d.delivery_id FROM webhook_deliveries d JOIN ranked r USING (delivery_id)
       WHERE r.n <= $5 - COALESCE(($6::jsonb ->> r.endpoint_id)::int, 0)
       ORDER BY r.next_attempt_at, r.ord LIMIT $4
       FOR UPDATE OF d SKIP LOCKED
     ), leased AS (
       UPDATE webhook_deliveries d SET lease_owner = $1, lease_until = $3
       FROM picked p WHERE d.delivery_id = p.delivery_id
         AND (d.lease_until IS NULL OR d.lease_until <= $2) AND d.state IN ('pending', 'retrying')
       RETURNING d.*
     )
     SELECT l.*, to_jsonb(w) AS endpoint FROM leased l
     JOIN webhook_endpoints w ON w.endpoint_id = l.endpoint_id
     ORDER BY l.next_attempt_at, l.ord`,
    [
      claim.owner,
      claim.now,
      claim.leaseUntil,
      claim.limit,
      claim.perEndpoint,
      jsonParam(claim.busy),
      claim.scanMax,
    ],
  );
  return rows.map(claimedFromRow);
}

function claimedFromRow(row: Row): ClaimedWebhookDelivery {
  return {
    ...deliveryFromRow(row),
    attemptCount: read.safeInteger(row.attempt_count),
    endpoint: endpointFromJson(row.endpoint),
  };
}

/** An endpoint row as `to_jsonb` gives it: timestamps as text. */
function endpointFromJson(value: unknown): WebhookEndpointRecord {
  const row = (typeof value === 'string' ? JSON.parse(value) : value) as Row;
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(read.string(v)));
  return endpointFromRow({
    ...row,
    previous_secret_expires_at: date(row.previous_secret_expires_at),
    secret_rotated_at: date(row.secret_rotated_at),
    disabled_at: date(row.disabled_at),
    failing_since: date(row.failing_since),
    created_at: date(row.created_at),
    updated_at: date(row.updated_at),
  });
}

export interface WebhookAttemptResult {
  readonly deliveryId: string;
  readonly owner: string;
  readonly attempt: WebhookAttemptRecord;
  /** What the delivery is after the attempt: delivered, retrying (at `nextAttemptAt`), failed. */
  readonly state: 'delivered' | 'retrying' | 'failed';
  readonly nextAttemptAt: Date | null;
  readonly now: Date;
}

/** What a batch of attempts recorded: the deliveries whose lease was still the owner's. */
export interface RecordedWebhookAttempt {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly subjectId: string;
  readonly state: 'delivered' | 'retrying' | 'failed';
}

/**
 * Records attempts and each delivery's state after it, and ends the leases, at most
 * `WEBHOOK_ROWS_PER_STATEMENT` a statement; the deliveries held behind those that ended are
 * released in the same statement (`record_webhook_attempts`, migration 0020), so an end never
 * commits without its release. Answers those recorded: a delivery no longer its owner's open
 * lease (its lease ran out and another worker took it, or it was recorded already) is left out,
 * its attempt not recorded, and the other worker's counts.
 */
export async function recordWebhookAttempts(
  q: Queryable,
  results: readonly WebhookAttemptResult[],
): Promise<RecordedWebhookAttempt[]> {
  const recorded: RecordedWebhookAttempt[] = [];
  for (let from = 0; from < results.length; from += WEBHOOK_ROWS_PER_STATEMENT) {
    const batch = results.slice(from, from + WEBHOOK_ROWS_PER_STATEMENT);
    recorded.push(...(await recordBatch(q, batch)));
  }
  return recorded;
}

async function recordBatch(
  q: Queryable,
  results: readonly WebhookAttemptResult[],
): Promise<RecordedWebhookAttempt[]> {
  const rows = await q.query('SELECT * FROM record_webhook_attempts($1::jsonb)', [
    attemptsParam(results),
  ]);
  return rows.map(recordedFromRow);
}

function attemptsParam(results: readonly WebhookAttemptResult[]): string {
  return jsonParam(
    results.map((result) => ({
      delivery_id: result.deliveryId,
      owner: result.owner,
      attempt: [result.attempt],
      state: result.state,
      next_attempt_at: result.nextAttemptAt?.toISOString() ?? null,
      now: result.now.toISOString(),
    })),
  );
}

function recordedFromRow(row: Row): RecordedWebhookAttempt {
  return {
    deliveryId: read.string(row.delivery_id),
    endpointId: read.string(row.endpoint_id),
    subjectId: read.string(row.subject_id),
    state: read.string(row.state) as RecordedWebhookAttempt['state'],
  };
}

/** What a record round wrote: the attempts recorded, and the next deliveries their ends let go. */
export interface RecordedAndLeased {
  readonly recorded: readonly RecordedWebhookAttempt[];
  /** Released and leased to the offer's owner: the caller sends them now. */
  readonly leased: readonly ClaimedWebhookDelivery[];
  /** Released without a lease (no slot was free for them): a claim's. */
  readonly claimable: number;
}

/**
 * Records attempts as `recordWebhookAttempts` does and leases the deliveries their ends release
 * within the offer (`record_webhook_attempts_leasing`, migration 0026), in one statement per
 * `WEBHOOK_ROWS_PER_STATEMENT` attempts, each statement offered what the ones before left.
 */
export async function recordWebhookAttemptsLeasing(
  q: Queryable,
  results: readonly WebhookAttemptResult[],
  lease: WebhookLeaseOffer,
): Promise<RecordedAndLeased> {
  const recorded: RecordedWebhookAttempt[] = [];
  const leased: ClaimedWebhookDelivery[] = [];
  let claimable = 0;
  const left = { total: lease.total, perEndpoint: { ...lease.perEndpoint } };
  for (let from = 0; from < results.length; from += WEBHOOK_ROWS_PER_STATEMENT) {
    const batch = results.slice(from, from + WEBHOOK_ROWS_PER_STATEMENT);
    const rows = await q.query(
      'SELECT * FROM record_webhook_attempts_leasing($1::jsonb, $2, $3, $4, $5, $6::jsonb)',
      [
        attemptsParam(batch),
        lease.owner,
        lease.leaseUntil,
        lease.now,
        left.total,
        jsonParam(left.perEndpoint),
      ],
    );
    for (const row of rows) {
      if (row.leased === false) recorded.push(recordedFromRow(row));
      else if (row.leased === null) claimable += read.safeInteger(row.attempt_count);
      else {
        const delivery = claimedFromRow(row);
        leased.push(delivery);
        left.total -= 1;
        left.perEndpoint[delivery.endpointId] = (left.perEndpoint[delivery.endpointId] ?? 1) - 1;
      }
    }
  }
  return { recorded, leased, claimable };
}

/** One attempt, as `recordWebhookAttempts` records them; false when it was not recorded. */
export async function recordWebhookAttempt(
  q: Queryable,
  result: WebhookAttemptResult,
): Promise<boolean> {
  return (await recordWebhookAttempts(q, [result])).length > 0;
}

/** The endpoint's failure run, locked for the transaction that updates it. */
export async function lockWebhookEndpoint(
  tx: Queryable,
  endpointId: string,
): Promise<WebhookEndpointRecord | null> {
  return endpointById(tx, endpointId, 'FOR UPDATE');
}

/** Writes the endpoint's failure run; with `disabledReason`, turns it off at `now`. */
export async function writeWebhookEndpointHealth(
  tx: Queryable,
  input: {
    readonly endpointId: string;
    readonly failedInRow: number;
    readonly failingSince: Date | null;
    readonly disabledReason: string | null;
    readonly now: Date;
  },
): Promise<void> {
  await tx.query(
    `UPDATE webhook_endpoints SET failed_in_row = $2, failing_since = $3,
       enabled = enabled AND $4::text IS NULL,
       disabled_reason = COALESCE($4, disabled_reason),
       disabled_at = CASE WHEN $4::text IS NULL THEN disabled_at ELSE $5 END
     WHERE endpoint_id = $1`,
    [input.endpointId, input.failedInRow, input.failingSince, input.disabledReason, input.now],
  );
}

// --- the delivery log ----------------------------------------------------------------------------

export async function getWebhookDelivery(
  q: Queryable,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRecord | null> {
  const rows = await q.query(
    'SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND delivery_id = $2',
    [endpointId, deliveryId],
  );
  return rows[0] ? deliveryFromRow(rows[0]) : null;
}

/**
 * The endpoint's deliveries, newest first, at most `limit`; with `before` (a delivery id of the
 * endpoint), those listed after it. Null when `before` is not one of the endpoint's.
 */
export async function listWebhookDeliveries(
  q: Queryable,
  input: { readonly endpointId: string; readonly limit: number; readonly before: string | null },
): Promise<WebhookDeliveryRecord[] | null> {
  if (input.before !== null) {
    const anchor = await getWebhookDelivery(q, input.endpointId, input.before);
    if (anchor === null) return null;
  }
  const rows = await q.query(
    `SELECT d.* FROM webhook_deliveries d
     WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR (d.created_at, d.delivery_id) <
       (SELECT a.created_at, a.delivery_id FROM webhook_deliveries a WHERE a.delivery_id = $2))
     ORDER BY d.created_at DESC, d.delivery_id DESC LIMIT $3`,
    [input.endpointId, input.before, input.limit],
  );
  return rows.map(deliveryFromRow);
}

/** Deletes deliveries ended longer than the retention ago, at most `limit`; answers how many. */
export async function purgeWebhookDeliveries(
  q: Queryable,
  now: Date,
  limit: number,
): Promise<number> {
  const rows = await q.query(
    `DELETE FROM webhook_deliveries WHERE delivery_id IN (
       SELECT delivery_id FROM webhook_deliveries WHERE ended_at <= $1
       ORDER BY ended_at LIMIT $2
     ) RETURNING delivery_id`,
    [new Date(now.getTime() - WEBHOOK_DELIVERY_RETENTION_MS), limit],
  );
  return rows.length;
}
