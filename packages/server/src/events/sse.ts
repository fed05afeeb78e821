/**
 * The Server-Sent Events wire (the WHATWG `text/event-stream` format) as every outbox stream
 * writes it: one message per event (`event:`, `id:`, `data:`), a comment heartbeat, the reconnect
 * delay a client is told, and the `Last-Event-ID` a client resumes after.
 */
import { BaseError } from '@poolparty/core';

/** The reconnect delay the stream suggests to EventSource clients (`retry:`). */
export const CLIENT_RETRY_MS = 3_000;
export const SSE_HEARTBEAT = ': heartbeat\n\n';

export interface SseMessage {
  readonly event: string;
  readonly id: string;
  /** One line: JSON without indentation never contains a raw line break. */
  readonly data: string;
}

export function formatSseMessage(message: SseMessage): string {
  return `event: ${message.event}\nid: ${message.id}\ndata: ${message.data}\n\n`;
}

const EVENT_ID = /^\d{1,15}$/;

/** The `seq` a client resumes after; null when it sent none, `'invalid'` for anything else. */
export function parseLastEventId(text: string | undefined): number | null | 'invalid' {
  if (text === undefined || text === '') return null;
  return EVENT_ID.test(text) ? Number(text) : 'invalid';
}

/** `Last-Event-ID` names no event of this subject: the client mixed up its streams. */
export class UnknownLastEventIdError extends BaseError<'unknown_last_event_id'> {
  override readonly name = 'UnknownLastEventIdError';
  constructor(readonly lastEventId: number) {
    super('unknown_last_event_id', `event ${lastEventId} is not an event of this stream's subject`);
  }
}
