/**
 * What an update stream promises beyond the shape of each item, as a participant keeps it: items
 * come in offset order within the requested range, a transaction's events carry its offset and
 * its nodes in execution order, record time never goes back, and an event that changes nothing
 * in the active contract set says so (`acsDelta` false for non-consuming exercises and for
 * contracts created and consumed in the same transaction). Schemas cannot say any of this.
 */
import type { WireMismatch } from './wire-validator.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface EventNode {
  readonly kind: string;
  readonly body: Json;
  readonly index: number;
}

function eventNodes(events: unknown): EventNode[] {
  if (!Array.isArray(events)) return [];
  return events.flatMap((event, index) => {
    if (!isObject(event)) return [];
    const [kind, body] = Object.entries(event)[0] ?? [];
    return kind && isObject(body) ? [{ kind, body, index }] : [];
  });
}

/** Checks one `/v2/updates` answer or stream, item by item, in the order the client got them. */
export class UpdatesStreamChecker {
  readonly #subject: string;
  readonly #beginExclusive: number;
  readonly #endInclusive: number | null;
  #lastTransactionOffset: number | null = null;
  #lastOffset: number | null = null;
  #lastRecordTime: number | null = null;
  readonly #updateIds = new Set<string>();

  constructor(subject: string, request: unknown) {
    this.#subject = subject;
    const body = isObject(request) ? request : {};
    this.#beginExclusive = typeof body.beginExclusive === 'number' ? body.beginExclusive : 0;
    this.#endInclusive = typeof body.endInclusive === 'number' ? body.endInclusive : null;
  }

  /** The broken promises of the next item (an error item is not judged here). */
  check(item: unknown, position: string): WireMismatch[] {
    const found: WireMismatch[] = [];
    const fail = (location: string, message: string) =>
      found.push({
        subject: this.#subject,
        location: `${position}${location}`,
        message,
        text: `${this.#subject}: ${position}${location} ${message}`,
      });
    const update = isObject(item) && isObject(item.update) ? item.update : null;
    if (update === null) return found;
    const checkpoint = isObject(update.OffsetCheckpoint) ? update.OffsetCheckpoint.value : null;
    const transaction = isObject(update.Transaction) ? update.Transaction.value : null;
    if (isObject(checkpoint) && typeof checkpoint.offset === 'number') {
      const offset = checkpoint.offset;
      if (this.#lastOffset !== null && offset < this.#lastOffset) {
        fail(
          '/update/OffsetCheckpoint/value/offset',
          `${offset} goes back from ${this.#lastOffset}`,
        );
      }
      this.#lastOffset = Math.max(offset, this.#lastOffset ?? offset);
      const times = Array.isArray(checkpoint.synchronizerTimes) ? checkpoint.synchronizerTimes : [];
      for (const time of times) {
        if (isObject(time) && typeof time.recordTime === 'string') {
          this.#recordTime(Date.parse(time.recordTime), '/update/OffsetCheckpoint', fail);
        }
      }
    }
    if (isObject(transaction)) this.#checkTransaction(transaction, fail);
    return found;
  }

  #recordTime(ms: number, at: string, fail: (location: string, message: string) => void): void {
    if (this.#lastRecordTime !== null && ms < this.#lastRecordTime) {
      fail(`${at}/recordTime`, 'goes back in time');
    }
    this.#lastRecordTime = Math.max(ms, this.#lastRecordTime ?? ms);
  }

  #checkTransaction(tx: Json, fail: (location: string, message: string) => void): void {
    const at = '/update/Transaction/value';
    const offset = typeof tx.offset === 'number' ? tx.offset : null;
    if (offset !== null) {
      if (offset <= this.#beginExclusive) {
        fail(`${at}/offset`, `${offset} is not after beginExclusive ${this.#beginExclusive}`);
      }
      if (this.#endInclusive !== null && offset > this.#endInclusive) {
        fail(`${at}/offset`, `${offset} is after endInclusive ${this.#endInclusive}`);
      }
      if (this.#lastTransactionOffset !== null && offset <= this.#lastTransactionOffset) {
        fail(`${at}/offset`, `${offset} does not follow ${this.#lastTransactionOffset}`);
      }
      if (this.#lastOffset !== null && offset <= this.#lastOffset) {
        fail(`${at}/offset`, `${offset} is not after the checkpoint at ${this.#lastOffset}`);
      }
      this.#lastTransactionOffset = offset;
      this.#lastOffset = offset;
    }
    if (typeof tx.updateId === 'string') {
      if (this.#updateIds.has(tx.updateId)) fail(`${at}/updateId`, 'repeats an earlier update');
      this.#updateIds.add(tx.updateId);
    }
    if (typeof tx.recordTime === 'string') this.#recordTime(Date.parse(tx.recordTime), at, fail);

    const nodes = eventNodes(tx.events);
    let previousNode = Number.NEGATIVE_INFINITY;
    const created = new Set<string>();
    const consumed = new Set<string>();
    for (const { kind, body } of nodes) {
      if (typeof body.contractId !== 'string') continue;
      if (kind === 'CreatedEvent') created.add(body.contractId);
      if ((kind === 'ExercisedEvent' && body.consuming === true) || kind === 'ArchivedEvent') {
        consumed.add(body.contractId);
      }
    }
    for (const { kind, body, index } of nodes) {
      const here = `${at}/events/${index}/${kind}`;
      if (offset !== null && typeof body.offset === 'number' && body.offset !== offset) {
        fail(`${here}/offset`, `${body.offset} is not the transaction's offset ${offset}`);
      }
      if (typeof body.nodeId === 'number') {
        if (body.nodeId <= previousNode) {
          fail(`${here}/nodeId`, `${body.nodeId} does not follow node ${previousNode}`);
        }
        previousNode = body.nodeId;
        if (
          kind === 'ExercisedEvent' &&
          typeof body.lastDescendantNodeId === 'number' &&
          body.lastDescendantNodeId < body.nodeId
        ) {
          fail(`${here}/lastDescendantNodeId`, 'is before the node itself');
        }
      }
      const transient =
        typeof body.contractId === 'string' &&
        created.has(body.contractId) &&
        consumed.has(body.contractId);
      if (kind === 'ExercisedEvent' && body.consuming === false && body.acsDelta === true) {
        fail(`${here}/acsDelta`, 'is true for a non-consuming exercise');
      }
      if (transient && body.acsDelta === true) {
        fail(`${here}/acsDelta`, 'is true for a contract created and consumed in one transaction');
      }
    }
  }
}
