/**
 * What intake writes when one-step deposits find their intents, in one statement for a whole run
 * of them: each intent claimed from `pending` through `matched` to `deposit_received` (a
 * compare-and-set on `pending`, with an event row for each state), the deposit
 * recorded as attributed, and the amount added to its pool's inflight bucket — the last two only
 * for the intents actually claimed, so a deposit whose intent a cancel took first leaves no trace
 * and is taken again on its own.
 */
import { SWAP_LIFECYCLE } from '@poolparty/core';
import { amountParam, jsonParam } from './columns.js';
import type { Queryable } from './database.js';
import { depositIdOf, type NewDeposit } from './deposits.js';
import { checkMove, stateChangeSql } from './intent-states.js';
import type { DepositClaim } from './intents.js';

/** A deposit that takes the intent its claim names, on the given side of its pool. */
export interface KeptDeposit {
  readonly claim: DepositClaim;
  readonly deposit: NewDeposit;
  readonly side: 'a' | 'b';
}

// The path every claim takes, checked against the lifecycle as every state write is.
checkMove(SWAP_LIFECYCLE, {
  id: 'claim',
  from: ['pending'],
  through: ['matched', 'deposit_received'],
});

/** Writes the run's claims, deposits and inflight; returns the ids of the intents claimed. */
export async function keepDeposits(
  q: Queryable,
  kept: readonly KeptDeposit[],
  at: Date,
): Promise<string[]> {
  if (kept.length === 0) return [];
  const rows = kept.map(({ claim, deposit, side }, ord) => ({
    ord,
    intent_id: claim.intentId,
    deposit_amount: amountParam(claim.deposit.amount),
    deposit_update_id: claim.deposit.updateId,
    deposit_received_at: claim.deposit.receivedAt.toISOString(),
    matched: { depositId: claim.depositId, by: claim.by },
    ...depositColumns(deposit),
    side,
  }));
  const moved = await q.query<{ intent_id: string }>(KEEP_DEPOSITS, [jsonParam(rows), at]);
  return moved.map((row) => row.intent_id);
}

function depositColumns(deposit: NewDeposit) {
  return {
    deposit_id: depositIdOf(deposit.updateId, deposit.eventIndex),
    update_id: deposit.updateId,
    event_index: deposit.eventIndex,
    ledger_offset: deposit.ledgerOffset,
    pool_id: deposit.poolId,
    sender: deposit.sender,
    receiver: deposit.receiver,
    instrument_id: deposit.instrument.id,
    instrument_admin: deposit.instrument.admin,
    amount: amountParam(deposit.amount),
    reference: deposit.reference,
  };
}

const KEEP_DEPOSITS = `WITH claims AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(ord int, intent_id text,
      deposit_amount text, deposit_update_id text, deposit_received_at timestamptz,
      matched jsonb, deposit_id text, update_id text, event_index int, ledger_offset bigint,
      pool_id text, sender text, receiver text, instrument_id text, instrument_admin text,
      amount text, reference text, side text)
  ), moves AS (
    SELECT ord, intent_id AS id, ARRAY['pending'] AS from_states,
      ARRAY['matched', 'deposit_received'] AS through, 'deposit_received' AS to_status,
      false AS terminal,
      jsonb_build_array(jsonb_build_object('status', 'matched', 'payload', matched),
        jsonb_build_object('status', 'deposit_received', 'payload', '{}'::jsonb)) AS events,
      deposit_amount, deposit_update_id, deposit_received_at
    FROM claims
  ), ${stateChangeSql('swap', {
    source: 'moves',
    at: '$2::timestamptz',
    facts: ['deposit_amount', 'deposit_update_id', 'deposit_received_at'],
  })}, kept AS (
    SELECT r.* FROM claims r JOIN changed ch ON ch.intent_id = r.intent_id
  ), deposit AS (
    INSERT INTO deposits (deposit_id, update_id, event_index, ledger_offset, pool_id, sender,
      receiver, instrument_id, instrument_admin, amount, reference, offer_id, intent_id, status,
      unmatched_reason, received_at, updated_at)
    SELECT deposit_id, update_id, event_index, ledger_offset, pool_id, sender, receiver,
      instrument_id, instrument_admin, amount::numeric, reference, NULL, intent_id, 'attributed',
      NULL, deposit_received_at, deposit_received_at
    FROM kept ORDER BY ord
    ON CONFLICT (deposit_id) DO NOTHING
  ), inflight AS (
    SELECT pool_id,
      COALESCE(sum(amount::numeric) FILTER (WHERE side = 'a'), 0) AS add_a,
      COALESCE(sum(amount::numeric) FILTER (WHERE side = 'b'), 0) AS add_b
    FROM kept GROUP BY pool_id
  ), books AS (
    UPDATE pool_accounting a SET inflight_a = a.inflight_a + f.add_a,
      inflight_b = a.inflight_b + f.add_b, version = a.version + 1, updated_at = $2::timestamptz
    FROM inflight f WHERE a.pool_id = f.pool_id
  )
  SELECT intent_id FROM changed ORDER BY move_ord`;
