/**
 * A client that hung up mid-request: its connection closed before the request arrived whole or
 * before the answer went out. Node then fails the request or reply stream with a socket error
 * (`ECONNRESET` "aborted", `EPIPE`, `ECONNABORTED`) or a premature close. These are the codes a
 * lost store connection raises too, so the code alone says nothing about whose socket it was:
 * only an error met while the client's own connection is closed counts as its hang-up.
 */
import { findCause } from '@poolparty/core';
import type { FastifyRequest } from 'fastify';

/** What Node's request and reply streams fail with when the client's connection goes away. */
const HANG_UP_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Causes followed to find the stream's error under one that wraps it. */
const CAUSE_DEPTH_MAX = 5;

function hangUpCodeOf(error: unknown): string | null {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && HANG_UP_CODES.has(code) ? code : null;
}

/**
 * The hang-up code of `error` (or of a cause it wraps) when the client's connection is closed
 * (`connectionClosed`), else null: with the connection still open, the same code is some other
 * socket failing, which is no client's doing.
 */
export function clientHangUpCode(error: unknown, connectionClosed: boolean): string | null {
  if (!connectionClosed) return null;
  const found = findCause(error, (cause) => hangUpCodeOf(cause) !== null, CAUSE_DEPTH_MAX);
  return found === null ? null : hangUpCodeOf(found);
}

/** Whether the connection the request came on is closed (or gone). */
export function clientConnectionClosed(request: FastifyRequest): boolean {
  const socket = request.raw.socket as FastifyRequest['raw']['socket'] | null;
  return socket === null || socket.destroyed;
}
