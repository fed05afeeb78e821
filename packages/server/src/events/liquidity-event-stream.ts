/**
 * The Server-Sent Events of one liquidity intent (docs/spec/liquidity.md#intents), over the
 * `liquidity_events` outbox: the current state first, then one event per state change, and the
 * end after a terminal state. The stream itself is outbox-event-stream.ts, the wake-ups an event
 * hub on the `liquidity_events` channel (the trigger of the liquidity migration names the intent
 * as `liquidityIntentId`).
 *
 * An event's `data` is the LiquidityIntent as of that event: its state and failure then, what it
 * minted once completed, and the deposits as known when it is sent. Liquidity intents have no leg
 * events: every row of their outbox is a state change.
 */
import {
  LIQUIDITY_TERMINAL_STATES,
  type LiquidityIntent,
  type LiquidityState,
} from '@poolparty/core';
import {
  depositsOfLiquidityIntent,
  getLiquidityIntent,
  getPool,
  type LiquidityDepositRecord,
  type LiquidityEventRecord,
  type LiquidityIntentRecord,
  listLiquidityEvents,
  type PoolRecord,
  type Queryable,
} from '@poolparty/store';
import { liquidityIntentView } from '../liquidity/views.js';
import {
  EventHub,
  type EventHubOptions,
  type NotificationSource,
  type OutboxChannel,
  type WakeUp,
} from './event-hub.js';
import { IntentSnapshots } from './intent-snapshots.js';
import { formatSseMessage, OutboxEventStream, type OutboxView } from './outbox-event-stream.js';

export const LIQUIDITY_EVENTS: OutboxChannel = {
  name: 'liquidity_events',
  subjectField: 'liquidityIntentId',
};

/** Wake-ups of liquidity intents from any process on the same store. */
export function openLiquidityEventHub(
  source: NotificationSource,
  options: EventHubOptions = {},
): Promise<EventHub> {
  return EventHub.listen(source, LIQUIDITY_EVENTS, options);
}

/** One read of an intent's events and facts, shared by every stream of the intent. */
export interface LiquidityEventSnapshot {
  readonly events: readonly LiquidityEventRecord[];
  readonly intent: LiquidityIntentRecord | null;
  readonly pool: PoolRecord | null;
  readonly deposits: readonly LiquidityDepositRecord[];
  /** Each event's message, formatted once for every stream sharing the snapshot. */
  readonly messages: Map<number, Buffer>;
}

/** Events before the intent: its facts are then at least as new as the last event. */
export async function readLiquidityEventSnapshot(
  db: Queryable,
  liquidityIntentId: string,
): Promise<LiquidityEventSnapshot> {
  const events = await listLiquidityEvents(db, liquidityIntentId);
  const intent = await getLiquidityIntent(db, liquidityIntentId);
  const pool = intent === null ? null : await getPool(db, intent.poolId);
  const deposits = intent === null ? [] : await depositsOfLiquidityIntent(db, liquidityIntentId);
  return { events, intent, pool, deposits, messages: new Map() };
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
export function liquidityIntentAtEvent(
  snapshot: LiquidityEventSnapshot,
  intent: LiquidityIntentRecord,
  pool: PoolRecord,
  event: LiquidityEventRecord,
): LiquidityIntent {
  const latest = snapshot.events.at(-1);
  if (latest?.seq === event.seq && intent.status === event.status) {
    return liquidityIntentView(intent, pool, snapshot.deposits);
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
  return liquidityIntentView(then, pool, snapshot.deposits);
}

function messageOf(
  snapshot: LiquidityEventSnapshot,
  intent: LiquidityIntentRecord,
  pool: PoolRecord,
  event: LiquidityEventRecord,
): Buffer {
  let bytes = snapshot.messages.get(event.seq);
  if (bytes === undefined) {
    const data = JSON.stringify(liquidityIntentAtEvent(snapshot, intent, pool, event));
    bytes = Buffer.from(formatSseMessage({ event: event.status, id: String(event.seq), data }));
    snapshot.messages.set(event.seq, bytes);
  }
  return bytes;
}

/** Without a position, the current state (the latest event); else every later event. */
function eventsToSend(
  events: readonly LiquidityEventRecord[],
  after: number | null,
): readonly LiquidityEventRecord[] {
  if (after === null) return events.slice(-1);
  return events.filter((event) => event.seq > after);
}

/** The liquidity outbox as a stream reads it. */
export const LIQUIDITY_OUTBOX: OutboxView<LiquidityEventSnapshot> = {
  has: (snapshot, seq) => snapshot.events.some((event) => event.seq === seq),
  messagesAfter: (snapshot, after) => {
    const { intent, pool } = snapshot;
    if (intent === null || pool === null) return null;
    return eventsToSend(snapshot.events, after).map((event) => ({
      seq: event.seq,
      bytes: messageOf(snapshot, intent, pool, event),
    }));
  },
  finished: (snapshot, after) => {
    const last = snapshot.events.at(-1);
    return (
      last !== undefined &&
      isTerminalLiquidity(last.status as LiquidityState) &&
      after !== null &&
      after >= last.seq
    );
  },
};

export type LiquidityEventSnapshots = IntentSnapshots<LiquidityEventSnapshot>;

/** The shared reads of one process's liquidity event streams (one per HTTP app). */
export function liquidityEventSnapshots(
  db: Queryable,
  hub: { subscribe(subjectId: string, wakeUp: WakeUp): () => void },
): LiquidityEventSnapshots {
  return new IntentSnapshots(hub, (id) => readLiquidityEventSnapshot(db, id));
}

export interface LiquidityEventStreamDeps {
  readonly snapshots: LiquidityEventSnapshots;
  readonly onReadError?: (error: unknown) => void;
}

export class LiquidityEventStream extends OutboxEventStream<LiquidityEventSnapshot> {
  /** As `SwapEventStream.open`, for a liquidity intent. */
  static async open(
    deps: LiquidityEventStreamDeps,
    liquidityIntentId: string,
    after: number | null,
  ): Promise<LiquidityEventStream> {
    const stream = new LiquidityEventStream({ ...deps, outbox: LIQUIDITY_OUTBOX }, after);
    await stream.subscribeAndRead(liquidityIntentId);
    return stream;
  }
}
