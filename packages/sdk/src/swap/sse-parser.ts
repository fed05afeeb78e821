/**
 * A Server-Sent Events parser (WHATWG HTML §9.2.6, the parts a swap stream uses): text arrives in
 * chunks that may split lines anywhere; complete events come out. `event`, `data` (lines joined
 * with `\n`), `id` and `retry` are read; comment lines (heartbeats) and unknown fields are skipped.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field; `message` when absent. */
  readonly event: string;
  readonly data: string;
  /** The last `id:` seen on the stream so far, as the spec's "last event ID buffer". */
  readonly id: string | null;
}

/** Lines longer than this are dropped rather than buffered without end. */
export const SSE_LINE_LENGTH_MAX = 1_048_576;

export class SseParser {
  private pending = '';
  private afterCr = false;
  private eventName = '';
  private dataLines: string[] = [];
  private hasData = false;
  private lastEventId: string | null = null;
  /** The `retry:` reconnection time the server asked for, in ms. */
  retryMs: number | null = null;

  /** Feeds decoded text; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    const events: SseEvent[] = [];
    let text = this.pending + chunk;
    // A CR ends a line at once; an LF right after it, even in the next chunk, is part of it.
    if (this.afterCr && text.startsWith('\n')) text = text.slice(1);
    this.afterCr = false;
    let lineStart = 0;
    for (let index = 0; index < text.length; index += 1) {
      const char = text[index];
      if (char !== '\n' && char !== '\r') continue;
      this.line(text.slice(lineStart, index), events);
      if (char === '\r') {
        if (index === text.length - 1) this.afterCr = true;
        else if (text[index + 1] === '\n') index += 1;
      }
      lineStart = index + 1;
    }
    text = text.slice(lineStart);
    this.pending = text.length > SSE_LINE_LENGTH_MAX ? '' : text;
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.field(field, value);
  }

  private field(field: string, value: string): void {
    if (field === 'event') this.eventName = value;
    else if (field === 'data') {
      this.dataLines.push(value);
      this.hasData = true;
    } else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  private dispatch(events: SseEvent[]): void {
    if (this.hasData) {
      events.push({
        event: this.eventName || 'message',
        data: this.dataLines.join('\n'),
        id: this.lastEventId,
      });
    }
    this.eventName = '';
    this.dataLines = [];
    this.hasData = false;
  }
}
