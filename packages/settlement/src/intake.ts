/**
 * A transfer or offer that reached a pool's swap party, inside the ingest transaction: recorded
 * as a deposit, attributed (core's `attributeDeposit`), and either claimed together with its
 * intent or sent back. Nothing is submitted here; commands are recorded for the submitter.
 *
 * The claim is a compare-and-set from `pending`: a cancel or expiry that commits first wins and
 * the deposit is attributed again, now finding no pending intent, and returned.
 */
import {
  Amount,
  type Attribution,
  attributeDeposit,
  type Instrument,
  type IntentCandidate,
  InvariantError,
  returnOfUnmatched,
  sameInstrument,
  sideOf,
} from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import type { PoolRecord, Queryable } from '@poolparty/store';
import {
  type AttributionCandidateIntents,
  attributionCandidatesAmong,
  type DepositClaim,
  type DepositStatus,
  depositIdOf,
  findAttributionCandidates,
  findAttributionCandidatesOfMany,
  type IntentRecord,
  isPendingOf,
  keepDeposits,
  lockPoolForDeposit,
  lockPoolsForDeposits,
  type PendingIntentKey,
  raiseOperatorFlag,
  recordDeposit,
  transitionIntent,
} from '@poolparty/store';
import { credit, type Movement, moveBalances, type Side } from './accounting.js';
import { recordOfferAction, recordTransfer } from './legs.js';
import type { PriceBook } from './prices.js';

/** Claim attempts when a concurrent cancel or expiry keeps winning; each re-reads the intents. */
const CLAIM_ATTEMPTS_MAX = 3;

export interface IncomingDeposit {
  readonly updateId: string;
  readonly eventIndex: number;
  readonly offset: number;
  readonly recordTime: Date;
  readonly pool: PoolRecord;
  readonly sender: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly meta: Readonly<Record<string, string>>;
  /** Set for a two-step transfer: the offer to accept or reject. */
  readonly offerId: string | null;
}

export async function takeDeposit(
  tx: Queryable,
  incoming: IncomingDeposit,
  prices: PriceBook,
  now: Date,
): Promise<void> {
  const depositId = depositIdOf(incoming.updateId, incoming.eventIndex);
  if (await lockPoolForDeposit(tx, incoming.pool.poolId, depositId)) return;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS_MAX; attempt++) {
    const attribution = await attribute(tx, incoming);
    if (attribution.kind === 'unmatched') {
      return returnDeposit(tx, incoming, depositId, attribution, prices, now);
    }
    const claimed = await transitionIntent(tx, {
      intentId: attribution.intent.intentId,
      from: 'pending',
      to: 'matched',
      at: now,
      payload: { depositId, by: attribution.by },
    });
    if (claimed) return keepDeposit(tx, incoming, depositId, claimed, now);
  }
  throw new InvariantError(`deposit ${depositId} kept losing its intent to concurrent changes`, {
    depositId,
  });
}

/**
 * A run of one-step transfers (consecutive updates of a batch, in stream order) taken in a few
 * statements instead of several per deposit: the pools locked and the deposits already recorded
 * read once, every candidate intent read once, each deposit attributed in memory, then the
 * intents claimed, the deposits recorded and each pool's books moved, one statement each.
 *
 * The result is the one `takeDeposit` gives applied deposit after deposit, and where that could
 * differ the run is taken deposit after deposit instead:
 * - a deposit that would be returned (unmatched), or any two deposits sharing a candidate intent
 *   (one's claim would change what the other finds): the whole run goes one by one;
 * - an intent a cancel or an expiry took between the read and the claim: that deposit alone is
 *   taken afterwards by `takeDeposit`, which attributes it again and returns it. It claimed
 *   nothing the others claimed, so taking it last changes nothing for them.
 */
export async function takeDeposits(
  tx: Queryable,
  incomings: readonly IncomingDeposit[],
  prices: PriceBook,
  now: Date,
): Promise<void> {
  if (incomings.some((incoming) => incoming.offerId !== null)) {
    throw new InvariantError('a run of deposits takes one-step transfers only');
  }
  if (incomings.length === 0) return;
  const withIds = incomings.map((incoming) => ({
    incoming,
    depositId: depositIdOf(incoming.updateId, incoming.eventIndex),
  }));
  const poolIds = [...new Set(incomings.map((incoming) => incoming.pool.poolId))].sort();
  const recorded = await lockPoolsForDeposits(
    tx,
    poolIds,
    withIds.map(({ depositId }) => depositId),
  );
  const fresh = withIds.filter(({ depositId }) => !recorded.has(depositId));
  if (fresh.length === 0) return;
  const plan = await planRun(tx, fresh);
  if (plan === null) {
    for (const { incoming } of fresh) await takeDeposit(tx, incoming, prices, now);
    return;
  }
  // One statement: the intents claimed, their deposits recorded and the pools' inflight moved.
  const claimed = new Set(
    await keepDeposits(
      tx,
      plan.map(({ incoming, claim }) => ({
        claim,
        deposit: depositRow(incoming, 'attributed', claim.intentId, null),
        side: sideOf(incoming.pool, incoming.instrument),
      })),
      now,
    ),
  );
  for (const { incoming, claim } of plan) {
    if (!claimed.has(claim.intentId)) await takeDeposit(tx, incoming, prices, now);
  }
}

/**
 * Each deposit's claim, decided in memory from one read of the candidates; null when one would be
 * returned or two share a candidate, so the run must go deposit by deposit.
 */
async function planRun(
  tx: Queryable,
  run: readonly { readonly incoming: IncomingDeposit; readonly depositId: string }[],
): Promise<{ readonly incoming: IncomingDeposit; readonly claim: DepositClaim }[] | null> {
  const references = run.flatMap(({ incoming }) => referenceOf(incoming) ?? []);
  const senders = [...new Set(run.map(({ incoming }) => incoming.sender))];
  const intents = await findAttributionCandidatesOfMany(tx, references, senders);
  const seen = new Set<string>();
  const claims: { readonly incoming: IncomingDeposit; readonly claim: DepositClaim }[] = [];
  for (const { incoming, depositId } of run) {
    const reference = referenceOf(incoming);
    const key = pendingKeyOf(incoming);
    // Every intent this deposit's attribution could look at, to see no other deposit shares one.
    const looked = intents.filter(
      (intent) =>
        (reference !== null && intent.depositReference === reference) || isPendingOf(intent, key),
    );
    if (looked.some((intent) => seen.has(intent.intentId))) return null;
    for (const intent of looked) seen.add(intent.intentId);
    const attribution = attributeAmong(
      incoming,
      attributionCandidatesAmong(intents, reference, key),
    );
    if (attribution.kind !== 'matched') return null;
    const deposit = {
      amount: incoming.amount,
      updateId: incoming.updateId,
      receivedAt: incoming.recordTime,
    };
    const claim = { intentId: attribution.intent.intentId, depositId, by: attribution.by, deposit };
    claims.push({ incoming, claim });
  }
  return claims;
}

function referenceOf(incoming: IncomingDeposit): string | null {
  const reference = incoming.meta[REASON_META_KEY];
  return typeof reference === 'string' && reference.length > 0 ? reference : null;
}

async function attribute(tx: Queryable, incoming: IncomingDeposit): Promise<Attribution> {
  const reference = referenceOf(incoming);
  const candidates = await findAttributionCandidates(tx, reference, pendingKeyOf(incoming));
  return attributeAmong(incoming, candidates);
}

function pendingKeyOf(incoming: IncomingDeposit): PendingIntentKey {
  return {
    walletParty: incoming.sender,
    poolId: incoming.pool.poolId,
    inputToken: incoming.instrument.id,
    inputTokenAdmin: incoming.instrument.admin,
  };
}

function attributeAmong(
  incoming: IncomingDeposit,
  { byReference, pendingOfSender }: AttributionCandidateIntents,
): Attribution {
  return attributeDeposit(
    {
      poolId: incoming.pool.poolId,
      sender: incoming.sender,
      instrument: incoming.instrument,
      amount: incoming.amount,
      reference: referenceOf(incoming),
      receivedAt: incoming.recordTime,
    },
    {
      poolInstruments: [incoming.pool.tokenA, incoming.pool.tokenB],
      byReference: byReference && candidateOf(byReference),
      pendingOfSender: pendingOfSender && candidateOf(pendingOfSender),
    },
  );
}

function candidateOf(intent: IntentRecord): IntentCandidate {
  return {
    intentId: intent.intentId,
    poolId: intent.poolId,
    walletParty: intent.walletParty,
    input: { id: intent.inputToken, admin: intent.inputTokenAdmin },
    expectedAmount: intent.expectedAmount,
    networkFeeAmount: intent.networkFeeAmount,
    status: intent.status,
    expiresAt: intent.expiresAt,
  };
}

function depositRow(
  incoming: IncomingDeposit,
  status: DepositStatus,
  intentId: string | null,
  unmatchedReason: string | null,
) {
  return {
    updateId: incoming.updateId,
    eventIndex: incoming.eventIndex,
    ledgerOffset: incoming.offset,
    poolId: incoming.pool.poolId,
    sender: incoming.sender,
    receiver: incoming.pool.swapParty,
    instrument: incoming.instrument,
    amount: incoming.amount,
    reference: referenceOf(incoming),
    offerId: incoming.offerId,
    intentId,
    status,
    unmatchedReason,
    receivedAt: incoming.recordTime,
  };
}

/**
 * The claimed intent takes the deposit: a one-step transfer is in custody already, so the
 * intent moves on to `deposit_received` in this transaction; an offer must be accepted first.
 */
async function keepDeposit(
  tx: Queryable,
  incoming: IncomingDeposit,
  depositId: string,
  intent: IntentRecord,
  now: Date,
): Promise<void> {
  await recordDeposit(tx, depositRow(incoming, 'attributed', intent.intentId, null));
  if (incoming.offerId !== null) {
    await recordOfferAction(
      tx,
      { intentId: intent.intentId, depositId },
      {
        kind: 'accept',
        poolId: incoming.pool.poolId,
        offerId: incoming.offerId,
        actor: incoming.pool.swapParty,
      },
      now,
    );
    return;
  }
  const side = sideOf(incoming.pool, incoming.instrument);
  await moveBalances(tx, incoming.pool.poolId, [credit(side, 'inflight', incoming.amount)], now);
  await transitionIntent(tx, {
    intentId: intent.intentId,
    from: 'matched',
    to: 'deposit_received',
    at: now,
    deposit: {
      amount: incoming.amount,
      updateId: incoming.updateId,
      receivedAt: incoming.recordTime,
    },
  });
}

/**
 * An unmatched deposit goes back: an offer is rejected; a transfer in custody is refunded minus
 * the network fee (the one its intent was quoted with, else estimated now), or kept as the fee
 * with an operator flag when it does not exceed it.
 */
async function returnDeposit(
  tx: Queryable,
  incoming: IncomingDeposit,
  depositId: string,
  attribution: Extract<Attribution, { kind: 'unmatched' }>,
  prices: PriceBook,
  now: Date,
): Promise<void> {
  const { pool } = incoming;
  const networkFee =
    attribution.intent?.networkFeeAmount ?? prices.networkFee(incoming.instrument) ?? Amount.ZERO;
  const decision = returnOfUnmatched(
    { amount: incoming.amount, twoStep: incoming.offerId !== null },
    networkFee,
  );
  const status = decision.kind === 'keep_as_fee' ? 'flagged' : 'unmatched';
  await recordDeposit(tx, depositRow(incoming, status, null, attribution.reason));
  const side = [pool.tokenA, pool.tokenB].some((i) => sameInstrument(i, incoming.instrument))
    ? sideOf(pool, incoming.instrument)
    : null;
  const unmatched: UnmatchedDeposit = { tx, incoming, depositId, side, now };
  switch (decision.kind) {
    case 'reject_offer':
      return recordOfferAction(
        tx,
        { intentId: null, depositId },
        {
          kind: 'reject',
          poolId: pool.poolId,
          offerId: incoming.offerId as string,
          actor: pool.swapParty,
        },
        now,
      );
    case 'keep_as_fee':
      return keepAsFee(unmatched, networkFee, attribution.reason);
    case 'refund':
      return refundUnmatched(unmatched, decision.amount, decision.networkFeeAmount);
  }
}

/** An unmatched deposit on its way back, and the side of the pool it came in on (if any). */
interface UnmatchedDeposit {
  readonly tx: Queryable;
  readonly incoming: IncomingDeposit;
  readonly depositId: string;
  /** Null when the pool does not trade the instrument: the books do not hold it. */
  readonly side: Side | null;
  readonly now: Date;
}

function book(deposit: UnmatchedDeposit, movements: Movement[]): Promise<unknown> {
  const { tx, incoming, side, now } = deposit;
  return side === null ? Promise.resolve() : moveBalances(tx, incoming.pool.poolId, movements, now);
}

/** Too small to pay its own way back: kept as the network fee, and an operator told. */
async function keepAsFee(deposit: UnmatchedDeposit, networkFee: Amount, reason: string) {
  const { tx, incoming, depositId, side, now } = deposit;
  if (side !== null) await book(deposit, [credit(side, 'fees', incoming.amount)]);
  await raiseOperatorFlag(tx, {
    intentId: null,
    depositId,
    kind: 'deposit_kept_as_fee',
    details: {
      amount: incoming.amount.toString(),
      networkFeeAmount: networkFee.toString(),
      unmatchedReason: reason,
    },
    createdAt: now,
  });
}

/** Sent back to its sender, less the network fee the transfer costs. */
async function refundUnmatched(deposit: UnmatchedDeposit, amount: Amount, networkFee: Amount) {
  const { tx, incoming, depositId, side, now } = deposit;
  const { pool } = incoming;
  if (side !== null) {
    await book(deposit, [credit(side, 'outgoing', amount), credit(side, 'fees', networkFee)]);
  }
  return recordTransfer(
    tx,
    { intentId: null, depositId },
    'refund',
    {
      kind: 'transfer',
      poolId: side === null ? null : pool.poolId,
      side,
      sender: pool.swapParty,
      receiver: incoming.sender,
      instrument: incoming.instrument,
      amount: amount.toString(),
      reason: `refund:${depositId}`,
    },
    now,
  );
}
