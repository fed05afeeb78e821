/**
 * Swap intents and their events (docs/spec/lifecycle.md). Every state change and its row in
 * `intent_events` (the outbox) are written by one statement, so neither exists without the other,
 * whichever `Queryable` the caller passes. Every state change goes through `intent-states.ts`,
 * which checks it against core's lifecycle and makes it a compare-and-set on the current state.
 */
import type { Amount } from '@poolparty/core';
import {
  BaseError,
  InvariantError,
  LEG_STATES,
  type LegEventName,
  type LegState,
  SWAP_LIFECYCLE,
  type SwapState,
} from '@poolparty/core';
import { amountParam, amountParamOrNull, jsonParamOrNull, read } from './columns.js';
import type { Queryable, Row, SqlParam } from './database.js';
import {
  checkMove,
  intentRow,
  type OutboxReader,
  outboxReader,
  readOutboxesOf,
  type SubjectOutbox,
  stateChangeSql,
  writeIntentStates,
} from './intent-states.js';
import { firstRowOf } from './sql.js';

export interface NewIntent {
  readonly intentId: string;
  readonly poolId: string;
  readonly apiKeyId: string;
  readonly developerParty: string;
  readonly walletParty: string;
  /** The pool's swap party, as quoted (`depositAddress` and `swapAddress`). */
  readonly depositAddress: string;
  readonly depositReference: string;
  readonly inputToken: string;
  readonly inputTokenAdmin: string;
  readonly outputToken: string;
  readonly outputTokenAdmin: string;
  /** Also `totalInputAmount` on the wire. */
  readonly expectedAmount: Amount;
  readonly quotedSwapAmount: Amount;
  /** Also `trafficFeeInInput` on the wire. */
  readonly networkFeeAmount: Amount;
  readonly poolFeeAmount: Amount;
  readonly lpFeeAmount: Amount;
  readonly platformFeeAmount: Amount;
  readonly inputAmountAfterPoolFee: Amount;
  readonly expectedOutput: Amount;
  readonly minOutput: Amount;
  readonly slippageTolerance: number;
  /** The applied discount policies as quoted; null when none applied. */
  readonly networkFeePolicy: unknown;
  readonly platformFeePolicy: unknown;
  readonly outputAddress: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface FailureReason {
  readonly code: string;
  readonly message: string;
}

export interface DepositFacts {
  readonly amount: Amount;
  readonly updateId: string;
  readonly receivedAt: Date;
}

export interface PayoutFacts {
  readonly amount: Amount;
  readonly updateId: string;
}

export interface RefundFacts {
  readonly amount: Amount;
  readonly networkFeeAmount: Amount;
  /** Null while the refund is owed but not yet committed. */
  readonly updateId: string | null;
}

/**
 * A payout or refund that became a two-step offer: the receiver has no transfer
 * pre-approval for the token and must accept it. Null for a leg that committed directly.
 */
export interface LegOffer {
  readonly offerId: string;
  readonly state: LegState;
  /** When the ledger expires the offer unanswered. */
  readonly expiresAt: Date;
  /** The update that last moved the offer: its creation, acceptance, rejection or expiry. */
  readonly updateId: string;
}

export interface IntentRecord extends NewIntent {
  readonly status: SwapState;
  readonly failureReason: FailureReason | null;
  readonly deposit: DepositFacts | null;
  /** Known once the swap executed; the payout carries it once committed. */
  readonly actualOutput: Amount | null;
  readonly payout: PayoutFacts | null;
  readonly refund: RefundFacts | null;
  /** The payout's offer, when it was one. */
  readonly payoutOffer: LegOffer | null;
  /** The refund's offer, when it was one (the latest, should an operator send it again). */
  readonly refundOffer: LegOffer | null;
  readonly matchedAt: Date | null;
  /** When the intent reached a terminal state, whichever. */
  readonly completedAt: Date | null;
  readonly updatedAt: Date;
}

export interface IntentEventRecord {
  readonly seq: number;
  readonly intentId: string;
  /** The state entered; for a leg event, the state the intent was in when it happened. */
  readonly status: SwapState;
  /** Null for a state change; else what happened to a payout or refund offer. */
  readonly legEvent: LegEventName | null;
  readonly at: Date;
  readonly payload: unknown;
}

/** Another create met the active-intent guard: 409 `active_intent_exists`. */
export class ActiveIntentExistsError extends BaseError<'active_intent_exists'> {
  override readonly name = 'ActiveIntentExistsError';
  constructor(readonly intentId: string) {
    super(
      'active_intent_exists',
      `a pending intent already exists for this party, pool and input: ${intentId}`,
    );
  }
}

/** Page size bound of party listings. */
export const INTENT_PAGE_SIZE_MAX = 100;
/** Bound of one expiry sweep. */
export const EXPIRY_BATCH_MAX = 500;
/** Bound of one outbox read. */
export const EVENT_BATCH_MAX = 1000;
/**
 * Insert attempts when the pending intent that blocked an insert is gone by the time it is read
 * (cancelled or expired in between); past this the guard is reported as a plain error.
 */
const ACTIVE_INTENT_RACE_RETRIES_MAX = 3;

export function intentFromRow(row: Row): IntentRecord {
  return {
    intentId: read.string(row.intent_id),
    poolId: read.string(row.pool_id),
    apiKeyId: read.string(row.api_key_id),
    developerParty: read.string(row.developer_party),
    walletParty: read.string(row.wallet_party),
    depositAddress: read.string(row.deposit_address),
    depositReference: read.string(row.deposit_reference),
    inputToken: read.string(row.input_token),
    inputTokenAdmin: read.string(row.input_token_admin),
    outputToken: read.string(row.output_token),
    outputTokenAdmin: read.string(row.output_token_admin),
    expectedAmount: read.amount(row.expected_amount),
    quotedSwapAmount: read.amount(row.quoted_swap_amount),
    networkFeeAmount: read.amount(row.network_fee_amount),
    poolFeeAmount: read.amount(row.pool_fee_amount),
    lpFeeAmount: read.amount(row.lp_fee_amount),
    platformFeeAmount: read.amount(row.platform_fee_amount),
    inputAmountAfterPoolFee: read.amount(row.input_amount_after_pool_fee),
    expectedOutput: read.amount(row.expected_output),
    minOutput: read.amount(row.min_output),
    slippageTolerance: Number(read.string(row.slippage_tolerance)),
    networkFeePolicy: row.network_fee_policy ?? null,
    platformFeePolicy: row.platform_fee_policy ?? null,
    outputAddress: read.string(row.output_address),
    status: read.string(row.status) as SwapState,
    failureReason: failureFromRow(row),
    deposit: depositFromRow(row),
    actualOutput: read.amountOrNull(row.actual_output),
    payout: payoutFromRow(row),
    refund: refundFromRow(row),
    payoutOffer: offerFromRow(row, 'payout'),
    refundOffer: offerFromRow(row, 'refund'),
    createdAt: read.date(row.created_at),
    matchedAt: read.dateOrNull(row.matched_at),
    completedAt: read.dateOrNull(row.completed_at),
    expiresAt: read.date(row.expires_at),
    updatedAt: read.date(row.updated_at),
  };
}

function failureFromRow(row: Row): FailureReason | null {
  const code = read.stringOrNull(row.failure_code);
  return code === null ? null : { code, message: read.stringOrNull(row.failure_message) ?? '' };
}

function depositFromRow(row: Row): DepositFacts | null {
  if (row.deposit_amount === null) return null;
  return {
    amount: read.amount(row.deposit_amount),
    updateId: read.string(row.deposit_update_id),
    receivedAt: read.date(row.deposit_received_at),
  };
}

function payoutFromRow(row: Row): PayoutFacts | null {
  if (row.payout_update_id === null) return null;
  return { amount: read.amount(row.actual_output), updateId: read.string(row.payout_update_id) };
}

function refundFromRow(row: Row): RefundFacts | null {
  if (row.refund_amount === null) return null;
  return {
    amount: read.amount(row.refund_amount),
    networkFeeAmount: read.amount(row.refund_network_fee_amount),
    updateId: read.stringOrNull(row.refund_update_id),
  };
}

function offerFromRow(row: Row, leg: 'payout' | 'refund'): LegOffer | null {
  const offerId = read.stringOrNull(row[`${leg}_offer_id`]);
  if (offerId === null) return null;
  const state = read.string(row[`${leg}_offer_state`]);
  if (!(LEG_STATES as readonly string[]).includes(state)) {
    throw new TypeError(`unknown ${leg} offer state ${state}`);
  }
  return {
    offerId,
    state: state as LegState,
    expiresAt: read.date(row[`${leg}_offer_expires_at`]),
    updateId: read.string(row[`${leg}_offer_update_id`]),
  };
}

function eventFromRow(row: Row): IntentEventRecord {
  return {
    seq: read.safeInteger(row.seq),
    intentId: read.string(row.intent_id),
    status: read.string(row.status) as SwapState,
    legEvent: read.stringOrNull(row.leg_event) as LegEventName | null,
    at: read.date(row.at),
    payload: row.payload,
  };
}

const INSERT_INTENT = `
  WITH created AS (
    INSERT INTO intents (intent_id, pool_id, api_key_id, developer_party, wallet_party,
      deposit_address, deposit_reference, input_token, input_token_admin, output_token,
      output_token_admin, expected_amount, quoted_swap_amount, network_fee_amount,
      pool_fee_amount, lp_fee_amount, platform_fee_amount, input_amount_after_pool_fee,
      expected_output, min_output, slippage_tolerance, network_fee_policy, platform_fee_policy,
      output_address, status, created_at, expires_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
      $19, $20, $21, $22::jsonb, $23::jsonb, $24, 'pending', $25, $26, $25)
    ON CONFLICT (wallet_party, pool_id, input_token, input_token_admin)
      WHERE status = 'pending' DO NOTHING
    RETURNING *
  ), event AS (
    INSERT INTO intent_events (intent_id, status, at)
    SELECT intent_id, status, created_at FROM created
  )
  SELECT * FROM created`;

function insertParams(intent: NewIntent): SqlParam[] {
  if (!Number.isFinite(intent.slippageTolerance)) {
    throw new RangeError(`slippage tolerance must be finite, got ${intent.slippageTolerance}`);
  }
  return [
    intent.intentId,
    intent.poolId,
    intent.apiKeyId,
    intent.developerParty,
    intent.walletParty,
    intent.depositAddress,
    intent.depositReference,
    intent.inputToken,
    intent.inputTokenAdmin,
    intent.outputToken,
    intent.outputTokenAdmin,
    amountParam(intent.expectedAmount),
    amountParam(intent.quotedSwapAmount),
    amountParam(intent.networkFeeAmount),
    amountParam(intent.poolFeeAmount),
    amountParam(intent.lpFeeAmount),
    amountParam(intent.platformFeeAmount),
    amountParam(intent.inputAmountAfterPoolFee),
    amountParam(intent.expectedOutput),
    amountParam(intent.minOutput),
    String(intent.slippageTolerance),
    jsonParamOrNull(intent.networkFeePolicy),
    jsonParamOrNull(intent.platformFeePolicy),
    intent.outputAddress,
    intent.createdAt,
    intent.expiresAt,
  ];
}

/**
 * Creates a pending intent and its first event. Throws `ActiveIntentExistsError` with the
 * existing intent's id when the party already has a pending intent for this pool and input.
 */
export async function insertIntent(q: Queryable, intent: NewIntent): Promise<IntentRecord> {
  const params = insertParams(intent);
  for (let attempt = 0; attempt < ACTIVE_INTENT_RACE_RETRIES_MAX; attempt++) {
    const [created] = await q.query(INSERT_INTENT, params);
    if (created) return intentFromRow(created);
    const existing = await findPendingIntent(q, {
      walletParty: intent.walletParty,
      poolId: intent.poolId,
      inputToken: intent.inputToken,
      inputTokenAdmin: intent.inputTokenAdmin,
    });
    if (existing) throw new ActiveIntentExistsError(existing.intentId);
  }
  throw new InvariantError(`intent ${intent.intentId} kept meeting a vanishing pending intent`);
}

export async function getIntent(q: Queryable, intentId: string): Promise<IntentRecord | null> {
  return intentRow(q, 'swap', intentId, intentFromRow);
}

/** The intent only if it belongs to `walletParty`: others' intents look absent (404, not 403). */
export async function getIntentForParty(
  q: Queryable,
  intentId: string,
  walletParty: string,
): Promise<IntentRecord | null> {
  return intentRow(q, 'swap', intentId, intentFromRow, { owner: walletParty });
}

/**
 * The intent with its events in seq order, only if it belongs to `walletParty`: what a status
 * read answers, in one round trip instead of two (one row per event, the intent's columns on
 * each; an intent without events still gives one row, its event columns null).
 */
export async function getIntentWithEventsForParty(
  q: Queryable,
  intentId: string,
  walletParty: string,
): Promise<{ readonly intent: IntentRecord; readonly events: IntentEventRecord[] } | null> {
  const rows = await q.query(
    `SELECT i.*, e.seq AS event_seq, e.status AS event_status, e.leg_event AS event_leg_event,
       e.at AS event_at, e.payload AS event_payload
     FROM intents i LEFT JOIN intent_events e ON e.intent_id = i.intent_id
     WHERE i.intent_id = $1 AND i.wallet_party = $2
     ORDER BY e.seq`,
    [intentId, walletParty],
  );
  const [first] = rows;
  if (first === undefined) return null;
  const events = rows
    .filter((row) => row.event_seq !== null)
    .map((row) =>
      eventFromRow({
        seq: row.event_seq,
        intent_id: row.intent_id,
        status: row.event_status,
        leg_event: row.event_leg_event,
        at: row.event_at,
        payload: row.event_payload,
      }),
    );
  return { intent: intentFromRow(first), events };
}

export interface PendingIntentKey {
  readonly walletParty: string;
  readonly poolId: string;
  readonly inputToken: string;
  readonly inputTokenAdmin: string;
}

/** The party's single pending intent for a pool and input (attribution by sender). */
export async function findPendingIntent(
  q: Queryable,
  key: PendingIntentKey,
): Promise<IntentRecord | null> {
  return firstRowOf(
    q,
    `SELECT * FROM intents WHERE wallet_party = $1 AND pool_id = $2 AND input_token = $3
       AND input_token_admin = $4 AND status = 'pending'`,
    [key.walletParty, key.poolId, key.inputToken, key.inputTokenAdmin],
    intentFromRow,
  );
}

/**
 * What attribution looks at (docs/spec/lifecycle.md#deposit-attribution), in one round trip: the
 * intent carrying `depositReference` (when given) and the party's single pending intent for the
 * pool and input.
 */
export async function findAttributionCandidates(
  q: Queryable,
  depositReference: string | null,
  key: PendingIntentKey,
): Promise<AttributionCandidateIntents> {
  const rows = await q.query(
    `SELECT * FROM intents
     WHERE ($1::text IS NOT NULL AND deposit_reference = $1::text)
        OR (wallet_party = $2 AND pool_id = $3 AND input_token = $4
            AND input_token_admin = $5 AND status = 'pending')`,
    [depositReference, key.walletParty, key.poolId, key.inputToken, key.inputTokenAdmin],
  );
  return attributionCandidatesAmong(rows.map(intentFromRow), depositReference, key);
}

export interface AttributionCandidateIntents {
  readonly byReference: IntentRecord | null;
  readonly pendingOfSender: IntentRecord | null;
}

/**
 * Every intent attribution may look at for several deposits, in one round trip: those carrying
 * one of `depositReferences` and the pending ones of the `senders`. Each deposit's own candidates
 * are then picked from them with `attributionCandidatesAmong`.
 */
export async function findAttributionCandidatesOfMany(
  q: Queryable,
  depositReferences: readonly string[],
  senders: readonly string[],
): Promise<IntentRecord[]> {
  const rows = await q.query(
    `SELECT * FROM intents
     WHERE deposit_reference = ANY($1::text[])
        OR (wallet_party = ANY($2::text[]) AND status = 'pending')`,
    [depositReferences, senders],
  );
  return rows.map(intentFromRow);
}

/** A deposit's candidates among `intents`, as `findAttributionCandidates` picks them. */
export function attributionCandidatesAmong(
  intents: readonly IntentRecord[],
  depositReference: string | null,
  key: PendingIntentKey,
): AttributionCandidateIntents {
  return {
    byReference:
      depositReference === null
        ? null
        : (intents.find((intent) => intent.depositReference === depositReference) ?? null),
    pendingOfSender: intents.find((intent) => isPendingOf(intent, key)) ?? null,
  };
}

/** Whether `intent` is the party's pending intent for the key's pool and input. */
export function isPendingOf(intent: IntentRecord, key: PendingIntentKey): boolean {
  return (
    intent.walletParty === key.walletParty &&
    intent.poolId === key.poolId &&
    intent.inputToken === key.inputToken &&
    intent.inputTokenAdmin === key.inputTokenAdmin &&
    intent.status === 'pending'
  );
}

/** Position after the last intent of a page; pages run newest first. */
export interface IntentCursor {
  readonly createdAt: Date;
  readonly intentId: string;
}

export function encodeIntentCursor(cursor: IntentCursor): string {
  const text = JSON.stringify([cursor.createdAt.toISOString(), cursor.intentId]);
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Null when the text is not a cursor this store issued. */
export function decodeIntentCursor(text: string): IntentCursor | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [at, intentId] = parsed as unknown[];
    if (typeof at !== 'string' || typeof intentId !== 'string') return null;
    const createdAt = new Date(at);
    return Number.isNaN(createdAt.getTime()) ? null : { createdAt, intentId };
  } catch {
    return null;
  }
}

/** The states of a swap queued for execution: its deposit is in (migration 0013's index). */
export const QUEUED_STATES = ['deposit_received', 'forwarded'] as const satisfies SwapState[];

/** `QUEUED_STATES` as SQL: constants of this module, never input. */
const QUEUED_STATES_SQL = QUEUED_STATES.map((state) => `'${state}'`).join(', ');

/** The flag of a swap whose execution kept failing and was set aside. */
export const EXECUTION_SET_ASIDE = 'execution_set_aside';

/**
 * The swaps queued for execution, least recently changed first. The states are written into
 * the statement, not passed, so that the planner uses the queue's own partial index
 * (`intents_queued`) rather than scan every intent.
 */
export async function listQueuedIntents(q: Queryable, limit: number): Promise<IntentRecord[]> {
  // A swap set aside after its execution kept failing waits for an operator: it is queued again
  // once its flag is resolved. Open flags are few, so the anti-join reads a small index.
  const rows = await q.query(
    `SELECT * FROM intents i WHERE status IN (${QUEUED_STATES_SQL})
       AND NOT EXISTS (SELECT 1 FROM operator_flags f WHERE f.resolved_at IS NULL
                         AND f.kind = '${EXECUTION_SET_ASIDE}' AND f.intent_id = i.intent_id)
     ORDER BY updated_at, intent_id LIMIT $1`,
    [limit],
  );
  return rows.map(intentFromRow);
}

export interface IntentTransition {
  readonly intentId: string;
  /** The state(s) the intent must be in; anything else leaves it untouched. */
  readonly from: SwapState | readonly SwapState[];
  readonly to: SwapState;
  readonly at: Date;
  readonly failureReason?: FailureReason;
  readonly deposit?: DepositFacts;
  readonly actualOutput?: Amount;
  readonly payoutUpdateId?: string;
  readonly refund?: RefundFacts;
  /** Stored on the event; defaults to `{failureReason}` when one is given. */
  readonly payload?: unknown;
}

/** The facts a swap's move sets, in the columns' text form. */
function swapFacts(facts: {
  readonly failureReason?: FailureReason | undefined;
  readonly deposit?: DepositFacts | undefined;
  readonly actualOutput?: Amount | undefined;
  readonly payoutUpdateId?: string | undefined;
  readonly refund?: RefundFacts | undefined;
}): Record<string, string | null> {
  const { failureReason, deposit, refund } = facts;
  return {
    failure_code: failureReason?.code ?? null,
    failure_message: failureReason?.message ?? null,
    deposit_amount: amountParamOrNull(deposit?.amount),
    deposit_update_id: deposit?.updateId ?? null,
    deposit_received_at: deposit?.receivedAt.toISOString() ?? null,
    actual_output: amountParamOrNull(facts.actualOutput),
    payout_update_id: facts.payoutUpdateId ?? null,
    refund_amount: amountParamOrNull(refund?.amount),
    refund_network_fee_amount: amountParamOrNull(refund?.networkFeeAmount),
    refund_update_id: refund?.updateId ?? null,
  };
}

/**
 * Moves the intent from one of `from` to `to`, records the given facts, and writes the event.
 * Null when the intent is not in a `from` state (someone else moved it first). Throws
 * `IllegalPathError` before any statement when `from → to` is not an edge of the lifecycle.
 */
export async function transitionIntent(
  q: Queryable,
  transition: IntentTransition,
): Promise<IntentRecord | null> {
  const from: readonly SwapState[] =
    typeof transition.from === 'string' ? [transition.from] : transition.from;
  const { failureReason } = transition;
  const payload = transition.payload ?? (failureReason ? { failureReason } : {});
  const [row] = await writeIntentStates(
    q,
    'swap',
    [
      {
        id: transition.intentId,
        from,
        through: [transition.to],
        facts: swapFacts(transition),
        payloads: [payload],
      },
    ],
    transition.at,
  );
  return row ? intentFromRow(row) : null;
}

/** A one-step deposit an intent takes at intake: its facts, and how it was attributed. */
export interface DepositClaim {
  readonly intentId: string;
  readonly depositId: string;
  readonly by: 'reference' | 'sender';
  readonly deposit: DepositFacts;
}

/**
 * One intent's path through several states in one step of a batch: its row ends in the last
 * state, and every state on the way gets its event row, in order.
 */
export interface IntentPath {
  readonly intentId: string;
  /** The state the intent must be in; anything else leaves it untouched. */
  readonly from: SwapState;
  /** The states entered, in order; the last is where the intent ends. */
  readonly through: readonly SwapState[];
  readonly failureReason?: FailureReason;
  readonly actualOutput?: Amount;
  readonly payoutUpdateId?: string;
  readonly refund?: RefundFacts;
}

/**
 * Moves every intent along its path in one statement, each a compare-and-set on its `from`
 * state, with its event rows (payload `{failureReason}` on the state that carries one, else
 * `{}`) written in path order, intent after intent. Returns the ids of the intents moved.
 */
export async function moveIntentsAlong(
  q: Queryable,
  paths: readonly IntentPath[],
  at: Date,
): Promise<string[]> {
  const moves = paths.map((path) => {
    const last = path.through.at(-1);
    const { failureReason } = path;
    return {
      id: path.intentId,
      from: [path.from],
      through: path.through,
      facts: swapFacts(path),
      payloads: path.through.map((status) =>
        status === last && failureReason ? { failureReason } : {},
      ),
    };
  });
  const rows = await writeIntentStates(q, 'swap', moves, at);
  return rows.map((row) => read.string(row.intent_id));
}

/** Intents among `intentIds` that are in one of `statuses`. */
export async function getIntentsInStatus(
  q: Queryable,
  intentIds: readonly string[],
  statuses: readonly SwapState[],
): Promise<IntentRecord[]> {
  const rows = await q.query(
    'SELECT * FROM intents WHERE intent_id = ANY($1::text[]) AND status = ANY($2::text[])',
    [intentIds, statuses],
  );
  return rows.map(intentFromRow);
}

/** Cancels the party's intent if it is still pending; null otherwise. */
export async function cancelIntent(
  q: Queryable,
  input: { readonly intentId: string; readonly walletParty: string; readonly now: Date },
): Promise<IntentRecord | null> {
  const owned = await getIntentForParty(q, input.intentId, input.walletParty);
  if (!owned) return null;
  return transitionIntent(q, {
    intentId: input.intentId,
    from: 'pending',
    to: 'cancelled',
    at: input.now,
  });
}

/** The path of an expiring intent, checked against the lifecycle once. */
const EXPIRY_MOVE = { from: ['pending'], through: ['expired'] } as const;
checkMove(SWAP_LIFECYCLE, { id: 'expiry', ...EXPIRY_MOVE });

const EXPIRE_DUE_INTENTS = `
  WITH due AS (
    SELECT intent_id FROM intents WHERE status = 'pending' AND expires_at <= $1
    ORDER BY expires_at, intent_id LIMIT $2
    FOR UPDATE SKIP LOCKED
  ), moves AS (
    SELECT row_number() OVER (ORDER BY intent_id) AS ord, intent_id AS id,
      ARRAY['${EXPIRY_MOVE.from.join("', '")}'] AS from_states,
      ARRAY['${EXPIRY_MOVE.through.join("', '")}'] AS through,
      '${EXPIRY_MOVE.through.at(-1)}' AS to_status, true AS terminal,
      '[{"status": "expired", "payload": {}}]'::jsonb AS events
    FROM due
  ), ${stateChangeSql('swap', { source: 'moves', at: '$1::timestamptz', facts: [] })}
  SELECT * FROM changed ORDER BY expires_at, intent_id`;

/** Expires pending intents whose `expiresAt` is at or before `now`; returns them. */
export async function expireDueIntents(
  q: Queryable,
  now: Date,
  limit: number = EXPIRY_BATCH_MAX,
): Promise<IntentRecord[]> {
  const rows = await q.query(EXPIRE_DUE_INTENTS, [now, Math.min(limit, EXPIRY_BATCH_MAX)]);
  return rows.map(intentFromRow);
}

/**
 * The intent's events in order, after `afterSeq` (SSE `Last-Event-ID`) when given: its state
 * changes and its leg events (`legEvent` set), in one sequence.
 */
export const listIntentEvents: OutboxReader<IntentEventRecord> = outboxReader('swap', eventFromRow);

/** Many swaps' outboxes and intents, in two statements (`readOutboxesOf`). */
export function readIntentOutboxes(
  q: Queryable,
  intentIds: readonly string[],
): Promise<Map<string, SubjectOutbox<IntentEventRecord, IntentRecord>>> {
  return readOutboxesOf(q, 'swap', intentIds, { event: eventFromRow, subject: intentFromRow });
}

/**
 * Records the facts of a refund that committed after the intent ended `refund_failed` (an
 * operator's attempt); the state stays. False when the intent is elsewhere or already has them.
 */
export async function recordLateRefund(
  tx: Queryable,
  input: {
    readonly intentId: string;
    readonly amount: Amount;
    readonly networkFeeAmount: Amount;
    readonly updateId: string;
    readonly now: Date;
  },
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE intents SET refund_amount = $2, refund_network_fee_amount = $3, refund_update_id = $4,
       updated_at = $5
     WHERE intent_id = $1 AND status = 'refund_failed' AND refund_update_id IS NULL
     RETURNING intent_id`,
    [
      input.intentId,
      amountParam(input.amount),
      amountParam(input.networkFeeAmount),
      input.updateId,
      input.now,
    ],
  );
  return rows.length > 0;
}

/**
 * Completed swaps that may lack their payout update id, actual output or fee event: those
 * migration 0014's index holds (no fee event when they completed, or a fact missing), each
 * looked at again. The first condition is the index's own, so the count reads only them.
 */
const INCOMPLETE_COMPLETED = `
  i.status = 'completed'
  AND (i.payout_update_id IS NULL OR i.actual_output IS NULL OR i.fee_event_at_completion IS NOT TRUE)
  AND (i.payout_update_id IS NULL OR i.actual_output IS NULL
       OR NOT EXISTS (SELECT 1 FROM fee_events f WHERE f.intent_id = i.intent_id))`;

/** Completed swaps of the pool whose payout update id, actual output or fee event is missing. */
export async function countIncompleteCompletedSwaps(q: Queryable, poolId: string): Promise<number> {
  const rows = await q.query(
    `SELECT count(*) AS n FROM intents i WHERE i.pool_id = $1 AND ${INCOMPLETE_COMPLETED}`,
    [poolId],
  );
  return read.safeInteger(rows[0]?.n ?? '0');
}

/** `countIncompleteCompletedSwaps` of each of `poolIds` in one statement; pools with none are absent. */
export async function countIncompleteCompletedSwapsByPool(
  q: Queryable,
  poolIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await q.query(
    `SELECT i.pool_id, count(*) AS n FROM intents i
     WHERE i.pool_id = ANY($1::text[]) AND ${INCOMPLETE_COMPLETED}
     GROUP BY i.pool_id`,
    [poolIds],
  );
  return new Map(rows.map((row) => [read.string(row.pool_id), read.safeInteger(row.n)]));
}
