/**
 * The port's update stream over Canton's `/v2/updates`: a WebSocket (the default; one
 * GetUpdatesRequest, then the participant pushes items) or HTTP paging (POST /v2/updates up to
 * the ledger end, then polling the end). Both read the same items, decoded by the wire codec.
 *
 * Per the port's contract a broken stream is not repaired here: the iterator throws
 * `LedgerError('stream_dropped')` and the reader resubscribes from the last offset it
 * checkpointed. A subscription ends quietly when its signal aborts or the adapter closes.
 */
import WebSocket from 'ws';
import { LedgerError, type LedgerUpdate, type Offset } from '../port.js';
import { concernsParties } from '../subscription.js';
import { CantonRequestError, isCantonErrorBody, ledgerErrorOf } from './errors.js';
import { type PartyScope, updatesRequest } from './filters.js';
import { type JsonHttpClient, joinUrl } from './http.js';
import type { DecodedUpdatesItem, JsGetUpdatesResponse } from './wire/index.js';

/** Marks the WebSocket request as authenticated by a subprotocol (Canton's convention). */
const WS_AUTH_PROTOCOL = 'daml.ws.auth';
const WS_TOKEN_PROTOCOL_PREFIX = 'jwt.token.';
/** A handshake not answered by then counts as a dropped stream. */
const WS_HANDSHAKE_TIMEOUT_MS = 30_000;
/** Items buffered from the socket before it is paused until the reader catches up. */
const WS_BUFFER_HIGH = 1_000;
/** Items one HTTP page asks for. */
const HTTP_PAGE_SIZE = 200;
/** How often HTTP polling looks for a new ledger end once it has caught up. */
const HTTP_POLL_INTERVAL_MS = 250;

export interface StreamContext {
  readonly http: JsonHttpClient;
  readonly ledgerApiUrl: string;
  /** Whom to ask Canton for. */
  readonly scope: PartyScope;
  /** The port's subscription parties (undefined: every update the scope sees). */
  readonly parties: readonly string[] | undefined;
  /** Aborts when the subscriber stops or the adapter closes. */
  readonly signal: AbortSignal;
  /** Decodes one item (the adapter resolves the offers an item's choices act on first). */
  decode(item: JsGetUpdatesResponse): Promise<DecodedUpdatesItem>;
  /** Told of every record time the stream reports (transactions and checkpoints). */
  onRecordTime(recordTime: Date): void;
}

/** The `ws://` / `wss://` URL of a JSON API path. */
export function webSocketUrl(ledgerApiUrl: string, path: string): string {
  const url = new URL(joinUrl(ledgerApiUrl, path));
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** The subprotocols that carry the bearer token; just the marker when there is none. */
export function webSocketProtocols(token: string | null): string[] {
  return token === null
    ? [WS_AUTH_PROTOCOL]
    : [`${WS_TOKEN_PROTOCOL_PREFIX}${token}`, WS_AUTH_PROTOCOL];
}

/** What to deliver for one decoded item: the update, or nothing (time is noted either way). */
function deliverable(context: StreamContext, item: DecodedUpdatesItem): LedgerUpdate | null {
  if (item.kind === 'checkpoint') {
    context.onRecordTime(item.recordTime);
    return null;
  }
  if (item.kind !== 'transaction') return null;
  const { update } = item;
  context.onRecordTime(update.recordTime);
  // A transaction without token-standard events (another template the filter let through)
  // is nothing the port reports.
  if (update.events.length === 0) return null;
  return concernsParties(update, context.parties) ? update : null;
}

function dropped(detail: string): LedgerError {
  return new LedgerError('stream_dropped', `the update stream dropped: ${detail}`);
}

/** A stream error the reader cannot fix by resubscribing keeps its own code. */
export function streamError(error: LedgerError): LedgerError {
  if (error.code === 'not_authorized' || error.code === 'unknown_party') return error;
  return error.code === 'stream_dropped' ? error : dropped(error.message);
}

type Incoming =
  | { readonly kind: 'item'; readonly item: JsGetUpdatesResponse }
  | { readonly kind: 'failure'; readonly error: LedgerError }
  | { readonly kind: 'end' };

/**
 * What the socket delivered and the reader has not taken yet. A slow reader slows the participant
 * down (TCP backpressure) instead of filling memory: at `WS_BUFFER_HIGH` items the socket is
 * paused, and it resumes once the reader has taken half of them.
 */
class SocketInbox {
  private readonly queue: Incoming[] = [];
  private wake: (() => void) | null = null;

  constructor(private readonly socket: WebSocket) {}

  push(incoming: Incoming): void {
    this.queue.push(incoming);
    if (this.queue.length >= WS_BUFFER_HIGH && !this.socket.isPaused) this.socket.pause();
    this.wake?.();
    this.wake = null;
  }

  /** The oldest delivery not taken yet; undefined when there is none. */
  take(): Incoming | undefined {
    const next = this.queue.shift();
    if (this.socket.isPaused && this.queue.length < WS_BUFFER_HIGH / 2) this.socket.resume();
    return next;
  }

  /** Resolves at the next delivery. */
  arrival(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}

/** The bearer token for the socket. */
async function streamToken(context: StreamContext): Promise<string | null> {
  try {
    return await context.http.token();
  } catch (error) {
    // A token endpoint that is down is a stream to retry; refused credentials stay refused.
    throw error instanceof LedgerError ? streamError(error) : error;
  }
}

/** One socket message: an item, or a failure when it is not JSON or is Canton's error body. */
function incomingOfMessage(data: WebSocket.RawData): Incoming {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString());
  } catch {
    return { kind: 'failure', error: dropped('a message that is not JSON') };
  }
  if (isCantonErrorBody(parsed)) {
    const error = ledgerErrorOf({ kind: 'status', status: 200, body: parsed }, 'read', 'updates');
    return { kind: 'failure', error: streamError(error) };
  }
  return { kind: 'item', item: parsed as JsGetUpdatesResponse };
}

/** A handshake the participant answered with HTTP `status`: refused credentials stay refused. */
function refusal(status: number): Incoming {
  const code = status === 401 || status === 403 ? 'not_authorized' : 'stream_dropped';
  return {
    kind: 'failure',
    error: new LedgerError(code, `the update stream was refused: HTTP ${status}`),
  };
}

/**
 * Opens the WebSocket `/v2/updates`, sends the request once it is open, and files everything the
 * socket delivers, items and failures alike, in the returned inbox.
 */
function openUpdatesSocket(
  context: StreamContext,
  fromOffset: Offset,
  token: string | null,
): { readonly socket: WebSocket; readonly inbox: SocketInbox } {
  const socket = new WebSocket(
    webSocketUrl(context.ledgerApiUrl, '/v2/updates'),
    webSocketProtocols(token),
    { handshakeTimeout: WS_HANDSHAKE_TIMEOUT_MS },
  );
  const inbox = new SocketInbox(socket);
  socket.on('open', () => {
    socket.send(JSON.stringify(updatesRequest(fromOffset, context.scope)));
  });
  socket.on('message', (data) => inbox.push(incomingOfMessage(data)));
  socket.on('unexpected-response', (_request, response) => {
    inbox.push(refusal(response.statusCode ?? 0));
    response.resume();
  });
  socket.on('error', (error) => inbox.push({ kind: 'failure', error: dropped(error.message) }));
  socket.on('close', (code, reason) => {
    inbox.push({ kind: 'failure', error: dropped(`socket closed (${code} ${reason.toString()})`) });
  });
  return { socket, inbox };
}

/** Stops listening to the socket and drops it. */
function closeSocket(socket: WebSocket): void {
  socket.removeAllListeners();
  // Keep a late 'error' from an unfinished handshake from becoming an uncaught exception.
  socket.on('error', () => undefined);
  socket.terminate();
}

/** Updates after `fromOffset` over the WebSocket `/v2/updates`. */
export async function* webSocketUpdates(
  context: StreamContext,
  fromOffset: Offset,
): AsyncGenerator<LedgerUpdate, void, undefined> {
  const { signal } = context;
  if (signal.aborted) return;
  const token = await streamToken(context);
  const { socket, inbox } = openUpdatesSocket(context, fromOffset, token);
  const onAbort = () => inbox.push({ kind: 'end' });
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (true) {
      const next = inbox.take();
      if (next === undefined) {
        await inbox.arrival();
        continue;
      }
      if (signal.aborted || next.kind === 'end') return;
      if (next.kind === 'failure') throw next.error;
      const update = deliverable(context, await context.decode(next.item));
      if (signal.aborted) return;
      if (update !== null) yield update;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    closeSocket(socket);
  }
}

/** A list larger than the participant's HTTP list limit (`413 Content Too Large`). */
export function isTooLarge(error: unknown): boolean {
  return (
    error instanceof CantonRequestError &&
    error.failure.kind === 'status' &&
    error.failure.status === 413
  );
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Updates after `fromOffset` by paging `POST /v2/updates` up to the ledger end, then polling
 * the end. Each page is bounded by the end read just before it, so no request waits on the
 * participant's idle timeout.
 */
export async function* httpUpdates(
  context: StreamContext,
  fromOffset: Offset,
  ledgerEnd: () => Promise<Offset>,
): AsyncGenerator<LedgerUpdate, void, undefined> {
  const { signal } = context;
  let cursor = fromOffset;
  let pageSize = HTTP_PAGE_SIZE;
  while (!signal.aborted) {
    let items: JsGetUpdatesResponse[];
    let end: Offset;
    try {
      end = await ledgerEnd();
      if (end <= cursor) {
        await pause(HTTP_POLL_INTERVAL_MS, signal);
        continue;
      }
      items = await context.http.post<JsGetUpdatesResponse[]>(
        joinUrl(context.ledgerApiUrl, `/v2/updates?limit=${pageSize}`),
        updatesRequest(cursor, context.scope, end),
        { kind: 'read', what: 'POST /v2/updates', signal },
      );
    } catch (error) {
      if (signal.aborted) return;
      if (isTooLarge(error) && pageSize > 1) {
        // A participant ignores a limit above its own list limit and then refuses the list:
        // ask for fewer.
        pageSize = Math.floor(pageSize / 2);
        continue;
      }
      throw error instanceof LedgerError ? streamError(error) : error;
    }
    if (!Array.isArray(items)) throw dropped('POST /v2/updates answered something not a list');
    let last = cursor;
    for (const raw of items) {
      const item = await context.decode(raw);
      const offset = item.kind === 'transaction' ? item.update.offset : item.offset;
      if (offset !== null) last = Math.max(last, offset);
      const update = deliverable(context, item);
      if (signal.aborted) return;
      if (update !== null) yield update;
    }
    // An empty answer means nothing in the range is visible. Otherwise the next page starts
    // after the last offset the answer covered: the participant may have cut the page shorter
    // than asked (its own list limit), so its length says nothing about reaching `end`.
    cursor = items.length === 0 ? end : last;
  }
}
