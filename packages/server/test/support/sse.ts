/**
 * A small SSE client for the tests of the intents' event streams, whatever the kind: the blocks
 * and events of a stream read over `node:http` (`openSse`) or from a `fetch` response
 * (`sseOfResponse`), the same parsing either way.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import type { Body } from './service.js';

/** A guard against a hang, not a timing assertion: events normally arrive at once. */
export const EVENT_WAIT_MS = 20_000;

export interface SseBlock {
  readonly event?: string;
  readonly id?: string;
  readonly data?: string;
  readonly retry?: string;
  readonly comments: readonly string[];
}

export interface SseEvent {
  readonly event: string;
  readonly id: string;
  readonly data: Body;
}

export function parseBlock(text: string): SseBlock {
  const fields: Record<string, string> = {};
  const comments: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields[name] =
      name === 'data' && fields.data !== undefined ? `${fields.data}\n${value}` : value;
  }
  return { ...fields, comments };
}

export function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no ${what} within ${EVENT_WAIT_MS} ms`)),
      EVENT_WAIT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class SseStream {
  private buffer = '';
  private ended = false;

  constructor(
    private readonly chunks: AsyncIterator<string>,
    private readonly hangUp: () => void,
  ) {}

  /** The next block (event, comment or `retry:`); null once the server ended the stream. */
  async nextBlock(): Promise<SseBlock | null> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return parseBlock(block);
      }
      if (this.ended) return null;
      const chunk = await within(this.chunks.next(), 'data');
      if (chunk.done) this.ended = true;
      else this.buffer += chunk.value.replace(/\r\n/g, '\n');
    }
  }

  /** The next event, skipping comments and `retry:`; null once the stream ended. */
  async nextEvent(): Promise<SseEvent | null> {
    for (;;) {
      const block = await this.nextBlock();
      if (block === null) return null;
      if (block.event === undefined && block.data === undefined) continue;
      return {
        event: block.event ?? 'message',
        id: block.id ?? '',
        data: JSON.parse(block.data ?? ''),
      };
    }
  }

  async events(count: number): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let i = 0; i < count; i++) {
      const event = await this.nextEvent();
      if (event === null) throw new Error(`stream ended after ${events.length} of ${count} events`);
      events.push(event);
    }
    return events;
  }

  /** Every remaining event until the server ends the stream. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.nextEvent(); event !== null; event = await this.nextEvent()) {
      events.push(event);
    }
    return events;
  }

  /** Goes away as a browser tab does: the connection closes. */
  close(): void {
    this.hangUp();
  }
}

/** The stream of a `fetch` response's body. */
export function sseOfResponse(response: Response): SseStream {
  const body = response.body;
  if (body === null) throw new Error(`no stream in a ${response.status} answer`);
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const chunks: AsyncIterator<string> = {
    next: async () => {
      const read = await reader.read();
      return read.done ? { done: true, value: undefined } : { done: false, value: read.value };
    },
  };
  return new SseStream(chunks, () => void reader.cancel().catch(() => undefined));
}

export interface HttpSse extends SseStream {
  readonly response: IncomingMessage;
}

/**
 * Over `node:http` without connection reuse: `fetch` opens a spare connection after an abort,
 * which would keep the server from closing until it times out.
 */
export async function openSse(
  base: string,
  path: string,
  options: {
    readonly apiKey: string;
    readonly walletToken: string;
    readonly lastEventId?: string;
    readonly origin?: string;
  },
): Promise<HttpSse> {
  const request = httpRequest(`${base}${path}`, {
    agent: false,
    headers: {
      accept: 'text/event-stream',
      ...(options.origin !== undefined ? { origin: options.origin } : {}),
      'x-api-key': options.apiKey,
      authorization: `Bearer ${options.walletToken}`,
      ...(options.lastEventId !== undefined ? { 'last-event-id': options.lastEventId } : {}),
    },
  });
  const response = await within(answerOf(request), 'response');
  response.setEncoding('utf8');
  if (response.statusCode !== 200) {
    let text = '';
    for await (const chunk of response) text += chunk;
    throw new Error(`stream answered ${response.statusCode}: ${text}`);
  }
  const stream = new SseStream(response[Symbol.asyncIterator](), () => request.destroy());
  return Object.assign(stream, { response });
}

function answerOf(request: ClientRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    request.on('response', resolve).on('error', reject).end();
  });
}
