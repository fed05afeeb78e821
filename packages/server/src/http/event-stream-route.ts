/**
 * What the routes that stream an outbox subject (`GET /v1/swaps/{id}/events`,
 * `GET /v1/liquidity/intents/{id}/events`) share: the resume position, a stream slot of the
 * caller's wallet party and API key, the problems a refused stream answers, and handing the
 * response to the stream once its headers are written.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SubscribersFullError } from '../events/event-hub.js';
import type { EventSink } from '../events/outbox-event-stream.js';
import { parseLastEventId, UnknownLastEventIdError } from '../events/sse.js';
import { apiKeyOf, walletPartyOf } from './authenticate.js';
import { ApiError } from './problem.js';
import { StreamCapReachedError, type StreamCaps } from './stream-caps.js';

/**
 * When the process, or the caller's share of it, has no event stream left: by then some stream
 * has likely ended (a subject's stream ends with it).
 */
const STREAMS_FULL_RETRY_AFTER_S = 30;

const EVENT_ID_PATTERN = '^[0-9]{1,15}$';

export const EventsHeadersSchema = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      pattern: EVENT_ID_PATTERN,
      description: 'The `id` of the last event received; the stream resumes after it.',
    }),
  ),
});

export const EventsQuerySchema = Type.Object(
  {
    lastEventId: Type.Optional(
      Type.String({
        pattern: EVENT_ID_PATTERN,
        description: 'As the `Last-Event-ID` header, for clients that cannot set headers.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** What is streamed, as the problems name it, and where to poll instead. */
export interface StreamedSubject {
  /** `swap`, `liquidity intent`. */
  readonly noun: string;
  /** `/v1/swaps/swp_…`: the status a client polls when it has no stream. */
  readonly pollPath: string;
}

/** The header wins over the query parameter; both are validated by the route's schema. */
export function lastEventIdOf(
  header: string | undefined,
  query: string | undefined,
): number | null {
  const after = parseLastEventId(header ?? query);
  if (after === 'invalid') {
    throw new ApiError('validation_error', 'Last-Event-ID must be an event id of this stream.');
  }
  return after;
}

/**
 * Holds a stream slot of the caller's wallet party and API key until the response closes: the
 * client leaving, the stream finishing and the service stopping all close it. Over a cap, 429
 * `rate_limited` naming the limit.
 */
function holdStreamSlot(
  caps: StreamCaps,
  request: FastifyRequest,
  reply: FastifyReply,
  subject: StreamedSubject,
): () => void {
  let release: () => void;
  try {
    release = caps.take(walletPartyOf(request), apiKeyOf(request).keyId);
  } catch (error) {
    if (!(error instanceof StreamCapReachedError)) throw error;
    const holder = error.limit === 'streams_per_party' ? 'This wallet party' : 'This API key';
    throw new ApiError(
      'rate_limited',
      `${holder} already holds ${error.max} open event streams, its limit (${error.limit}); close one, poll GET ${subject.pollPath} or retry in ${STREAMS_FULL_RETRY_AFTER_S} s.`,
      { limit: error.limit, max: error.max, retryAfter: STREAMS_FULL_RETRY_AFTER_S },
      { 'Retry-After': String(STREAMS_FULL_RETRY_AFTER_S) },
    );
  }
  // A response that closed while the subject was looked up (the client left) emits no more
  // 'close': its slot is given back at once, and the stream sees the closed response.
  if (reply.raw.destroyed) release();
  else reply.raw.once('close', release);
  return release;
}

/** `open` with its refusals as the problems a client reads. */
async function openStreamOrRefuse<T>(open: () => Promise<T>, subject: StreamedSubject): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof SubscribersFullError) {
      throw new ApiError(
        'rate_limited',
        `This server has no event stream left (${error.subscribersMax} open); poll GET ${subject.pollPath} or retry in ${STREAMS_FULL_RETRY_AFTER_S} s.`,
        {
          limit: 'streams_per_process',
          max: error.subscribersMax,
          retryAfter: STREAMS_FULL_RETRY_AFTER_S,
        },
        { 'Retry-After': String(STREAMS_FULL_RETRY_AFTER_S) },
      );
    }
    if (error instanceof UnknownLastEventIdError) {
      throw new ApiError(
        'validation_error',
        `Last-Event-ID ${error.lastEventId} is not an event of this ${subject.noun}.`,
        {
          errors: [
            { path: '/headers/last-event-id', message: `not an event of this ${subject.noun}` },
          ],
        },
      );
    }
    throw error;
  }
}

/** A stream the route hands the response to. */
export interface ServedStream {
  start(sink: EventSink): void;
  end(): void;
}

/**
 * Writes the stream's headers and hands the response to `stream`, which writes to it itself
 * (outbox-event-stream.ts says why): Fastify steps aside once the headers it gathered (request
 * id, security, CORS) are written; its onResponse hooks (metrics, the request log) still run
 * when the response finishes. Open streams are in `openStreams` until the response closes.
 */
function serveEventStream<S extends ServedStream>(
  request: FastifyRequest,
  reply: FastifyReply,
  stream: S,
  openStreams: Set<S>,
): void {
  openStreams.add(stream);
  reply.raw.once('close', () => openStreams.delete(stream));
  reply
    .header('Cache-Control', 'no-cache')
    .header('X-Accel-Buffering', 'no')
    .type('text/event-stream; charset=utf-8');
  reply.hijack();
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.raw.writeHead(200);
  if (request.method === 'HEAD') {
    // The answer a GET would start with, and nothing to follow.
    stream.end();
    reply.raw.end();
  } else stream.start(reply.raw);
}

/**
 * The whole of a streaming route once the subject is known to be the caller's: a slot, the
 * stream opened (or refused), and the response handed to it.
 */
export async function streamSubject<S extends ServedStream>(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { readonly streamCaps: StreamCaps; readonly openStreams: Set<S> },
  subject: StreamedSubject,
  open: () => Promise<S>,
): Promise<void> {
  const release = holdStreamSlot(deps.streamCaps, request, reply, subject);
  const stream = await openStreamOrRefuse(open, subject).catch((error: unknown) => {
    release();
    throw error;
  });
  serveEventStream(request, reply, stream, deps.openStreams);
}
