/**
 * Pending legs (docs/spec/lifecycle.md#payout-and-refund-legs): a payout or refund the ledger
 * turned into a two-step offer, and what became of it. Each change is one statement that updates
 * the intent's row and writes its leg event to the outbox (`intent_events.leg_event`), so the
 * status and the event stream can never disagree, whichever `Queryable` the caller passes; callers
 * lock the pool row first, as for every intent write.
 *
 * - An offer is recorded once per offer id: a repeated delivery changes nothing. A different
 *   offer id replaces the leg's offer (an operator's new attempt at a refund).
 * - An outcome applies only to the leg's current offer while it is `offered`
 *   (`canTakeOfferOutcome`): a second delivery, or the outcome of an older offer, is ignored.
 * - No leg event is written once the intent is terminal: its event stream has ended.
 *   The status still shows the leg, e.g. an operator's refund offer after `refund_failed`.
 * - The event's payload is the leg as of the event, without the amount (the intent's), so a
 *   replayed event shows the offer as it was then, not as it is now.
 */
import {
  type Amount,
  LEG_STATE_AFTER,
  legEventName,
  type OfferOutcome,
  type SwapLeg,
  TERMINAL_STATES,
} from '@poolparty/core';
import { amountParamOrNull } from './columns.js';
import type { Queryable, SqlParam } from './database.js';
import { type IntentRecord, intentFromRow } from './intents.js';

/** What a leg event's payload carries: the leg as of the event. */
export interface LegSnapshot {
  readonly leg: SwapLeg;
  readonly state: string;
  readonly offerId: string;
  readonly updateId: string;
  readonly expiresAt: string;
}

/** Column names per leg; never built from input. */
const COLUMNS = {
  payout: {
    id: 'payout_offer_id',
    state: 'payout_offer_state',
    expiresAt: 'payout_offer_expires_at',
    updateId: 'payout_offer_update_id',
  },
  refund: {
    id: 'refund_offer_id',
    state: 'refund_offer_state',
    expiresAt: 'refund_offer_expires_at',
    updateId: 'refund_offer_update_id',
  },
} as const;

/** The leg as of the change, built from the changed row in the same statement. */
function snapshotSql(leg: SwapLeg): string {
  const c = COLUMNS[leg];
  return `jsonb_build_object('leg', '${leg}', 'state', ${c.state}, 'offerId', ${c.id},
    'updateId', ${c.updateId},
    'expiresAt', to_char(${c.expiresAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
}

function eventSql(leg: SwapLeg, name: string): string {
  return `INSERT INTO intent_events (intent_id, status, at, payload, leg_event)
    SELECT intent_id, status, $3::timestamptz, ${snapshotSql(leg)}, '${name}' FROM changed
    WHERE NOT (status = ANY($4::text[]))`;
}

function offerSql(leg: SwapLeg): string {
  const c = COLUMNS[leg];
  // A refund's amount is owed before it commits; the committed facts keep it afterwards.
  const refundAmounts =
    leg === 'refund'
      ? `, refund_amount = COALESCE($7::numeric, refund_amount),
         refund_network_fee_amount = COALESCE($8::numeric, refund_network_fee_amount)`
      : '';
  return `
    WITH changed AS (
      UPDATE intents SET ${c.id} = $2, ${c.state} = 'offered', ${c.expiresAt} = $5,
        ${c.updateId} = $6, updated_at = $3 ${refundAmounts}
      WHERE intent_id = $1 AND ${c.id} IS DISTINCT FROM $2
      RETURNING *
    ), event AS (${eventSql(leg, legEventName(leg, 'offered'))})
    SELECT * FROM changed`;
}

function outcomeSql(leg: SwapLeg, outcome: Exclude<OfferOutcome, 'offered'>): string {
  const c = COLUMNS[leg];
  return `
    WITH changed AS (
      UPDATE intents SET ${c.state} = $5, ${c.updateId} = $6, updated_at = $3
      WHERE intent_id = $1 AND ${c.id} = $2 AND ${c.state} = 'offered'
      RETURNING *
    ), event AS (${eventSql(leg, legEventName(leg, outcome))})
    SELECT * FROM changed`;
}

export interface LegOfferMade {
  readonly intentId: string;
  readonly leg: SwapLeg;
  readonly offerId: string;
  readonly expiresAt: Date;
  /** The update that created the offer. */
  readonly updateId: string;
  readonly at: Date;
  /** A refund's amounts, owed until it commits. */
  readonly refund?: { readonly amount: Amount; readonly networkFeeAmount: Amount };
}

/** Records that the leg became an offer; null when this offer was recorded already. */
export async function recordLegOffer(
  q: Queryable,
  offer: LegOfferMade,
): Promise<IntentRecord | null> {
  const params: SqlParam[] = [
    offer.intentId,
    offer.offerId,
    offer.at,
    TERMINAL_STATES,
    offer.expiresAt,
    offer.updateId,
  ];
  if (offer.leg === 'refund') {
    params.push(
      amountParamOrNull(offer.refund?.amount),
      amountParamOrNull(offer.refund?.networkFeeAmount),
    );
  }
  const rows = await q.query(offerSql(offer.leg), params);
  return rows[0] ? intentFromRow(rows[0]) : null;
}

export interface LegOfferEnded {
  readonly intentId: string;
  readonly leg: SwapLeg;
  readonly offerId: string;
  readonly outcome: Exclude<OfferOutcome, 'offered'>;
  /** The update that accepted, rejected or expired the offer. */
  readonly updateId: string;
  readonly at: Date;
}

/**
 * Records what became of the leg's offer; null when the offer is not the leg's current one or
 * already ended (a repeated delivery).
 */
export async function settleLegOffer(
  q: Queryable,
  ended: LegOfferEnded,
): Promise<IntentRecord | null> {
  const rows = await q.query(outcomeSql(ended.leg, ended.outcome), [
    ended.intentId,
    ended.offerId,
    ended.at,
    TERMINAL_STATES,
    LEG_STATE_AFTER[ended.outcome],
    ended.updateId,
  ]);
  return rows[0] ? intentFromRow(rows[0]) : null;
}
