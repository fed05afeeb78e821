/**
 * The liquidity intents' outbox, `liquidity_events` (docs/spec/liquidity.md#intents), as a client
 * reads it: each event's `data` is the LiquidityIntent as of that event — its state and failure
 * then, what it minted once completed, and the deposits as known when it is read. Liquidity
 * intents have no leg events: every row of their outbox is a state change.
 */
import { LIQUIDITY_TERMINAL_STATES, type LiquidityIntent } from '@poolparty/core';
import {
  depositsOfLiquidityIntent,
  getLiquidityIntent,
  getPool,
  type LiquidityDepositRecord,
  type LiquidityEventRecord,
  type LiquidityIntentRecord,
  listLiquidityEvents,
  type PoolRecord,
} from '@poolparty/store';
import { liquidityIntentView } from './liquidity.js';
import type { OutboxKind } from './outbox.js';

/** A liquidity intent's facts beside its events: it, its pool and its deposits. */
export interface LiquidityFacts {
  readonly intent: LiquidityIntentRecord;
  readonly pool: PoolRecord;
  readonly deposits: readonly LiquidityDepositRecord[];
}

function isTerminalLiquidity(status: string): boolean {
  return (LIQUIDITY_TERMINAL_STATES as readonly string[]).includes(status);
}

function failureOfPayload(payload: Readonly<Record<string, unknown>>) {
  const { failure } = payload as { failure?: { code?: unknown; message?: unknown } };
  if (typeof failure?.code !== 'string') return null;
  return {
    code: failure.code,
    message: typeof failure.message === 'string' ? failure.message : '',
  };
}

/** The intent as of `event`: the record itself for its latest event, else its state then. */
function liquidityIntentAtEvent(
  { intent, pool, deposits }: LiquidityFacts,
  events: readonly LiquidityEventRecord[],
  event: LiquidityEventRecord,
): LiquidityIntent {
  const latest = events.at(-1);
  if (latest?.seq === event.seq && intent.status === event.status) {
    return liquidityIntentView(intent, pool, deposits);
  }
  const failure = failureOfPayload(event.payload);
  const then: LiquidityIntentRecord = {
    ...intent,
    status: event.status,
    failureCode: failure?.code ?? null,
    failureMessage: failure?.message ?? null,
    completion: event.status === 'completed' ? intent.completion : null,
    completedAt: isTerminalLiquidity(event.status) ? event.at : null,
  };
  return liquidityIntentView(then, pool, deposits);
}

/** Its notifications name the intent as `liquidityIntentId` (the liquidity migration's trigger). */
export const LIQUIDITY_OUTBOX: OutboxKind<LiquidityEventRecord, LiquidityFacts> = {
  channel: { name: 'liquidity_events', subjectField: 'liquidityIntentId' },
  read: async (db, liquidityIntentId) => {
    const events = await listLiquidityEvents(db, liquidityIntentId);
    const intent = await getLiquidityIntent(db, liquidityIntentId);
    const pool = intent === null ? null : await getPool(db, intent.poolId);
    if (intent === null || pool === null) return { events, subject: null };
    const deposits = await depositsOfLiquidityIntent(db, liquidityIntentId);
    return { events, subject: { intent, pool, deposits } };
  },
  isTerminal: isTerminalLiquidity,
  viewAt: liquidityIntentAtEvent,
};
