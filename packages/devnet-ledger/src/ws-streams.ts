/**
 * The WebSocket side of Canton's streaming endpoints (the channels of the AsyncAPI document): the
 * client sends one request message, the server answers a stream of items and, on a refusal, one
 * JsCantonError message before closing with 1011.
 *
 * Offset streams (updates, completions) deliver what committed after `beginExclusive`, then live
 * items as they commit; whenever they have caught up they send a checkpoint with the ledger time
 * at once, and again every `checkpointIntervalMs` while nothing commits. They close with 1000
 * after `endInclusive`, and end when the client closes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryFaults, Offset } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { asCantonError, CantonApiError, invalidArgument } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';

/** Sends the error as Canton does on a stream (one JsCantonError message), then closes. */
function failStream(socket: WebSocket, error: unknown): void {
  const canton =
    asCantonError(error) ??
    new CantonApiError('INTERNAL_ERROR', 'SystemInternalAssumptionViolated', 'the stream failed');
  if (socket.readyState === socket.OPEN) {
    socket.send(JSON.stringify(canton.body()), () => socket.close(1011, canton.code));
  }
}

function send(socket: WebSocket, item: unknown): Promise<void> {
  return new Promise((resolve, reject) =>
    socket.send(JSON.stringify(item), (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * A WebSocket route that reads the client's one request (`read` checks it and may refuse), then
 * runs `serve` on it.
 */
export function streamRoute<T>(
  app: FastifyInstance,
  path: string,
  requestName: string,
  read: (user: string, message: unknown) => Promise<T>,
  serve: (socket: WebSocket, request: T) => Promise<void>,
): void {
  app.get(path, { websocket: true }, (socket: WebSocket, request: FastifyRequest) => {
    const user = userOf(request);
    socket.once('message', (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        return failStream(
          socket,
          invalidArgument(`the first message is not a JSON ${requestName}`),
        );
      }
      read(user, parsed)
        .then((checked) => serve(socket, checked))
        .catch((error: unknown) => failStream(socket, error));
    });
  });
}

export interface OffsetStream {
  readonly beginExclusive: Offset;
  readonly endInclusive: Offset | undefined;
  /** The item for the update at `offset`, or null when this reader does not see it. */
  itemAt(offset: Offset): unknown | null;
  checkpoint(offset: Offset, recordTime: Date): unknown;
  /** The ledger's delivery faults, applied to each item delivered; none when absent. */
  readonly faults?: DeliveryFaults;
}

/** The refusal of a stream the delivery faults broke: transient, so a reader resubscribes. */
export function droppedStream(offset: Offset): CantonApiError {
  return new CantonApiError(
    'SERVICE_NOT_RUNNING',
    'TransientServerFailure',
    `the update stream dropped after offset ${offset} (injected fault)`,
  );
}

export async function streamOffsets(
  ctx: ServerContext,
  socket: WebSocket,
  stream: OffsetStream,
): Promise<void> {
  const { ledger } = ctx;
  const stop = new AbortController();
  socket.once('close', () => stop.abort());
  let next = stream.beginExclusive + 1;
  let checkpointedAt: Offset | null = null;
  try {
    while (!stop.signal.aborted) {
      if (ledger.isClosed()) {
        throw new CantonApiError(
          'SERVICE_NOT_RUNNING',
          'TransientServerFailure',
          'the ledger closed',
        );
      }
      if (stream.endInclusive !== undefined && next > stream.endInclusive) {
        socket.close(1000);
        return;
      }
      if (ledger.updateAt(next) !== undefined) {
        const item = stream.itemAt(next);
        if (item !== null) {
          await stream.faults?.delay();
          await send(socket, item);
          if (stream.faults?.duplicatesDelivery()) await send(socket, item);
          if (stream.faults?.dropsStream()) throw droppedStream(next);
        }
        next += 1;
        continue;
      }
      // Caught up: say so at once, then every interval while nothing commits.
      if (checkpointedAt !== next - 1) {
        await send(socket, stream.checkpoint(next - 1, await ledger.now()));
        checkpointedAt = next - 1;
      }
      const wait = new AbortController();
      const abortWait = () => wait.abort();
      stop.signal.addEventListener('abort', abortWait, { once: true });
      const committed = ledger.nextChange(wait.signal).then(() => 'change' as const);
      const idle = sleep(ctx.checkpointIntervalMs, 'idle' as const, { signal: wait.signal }).catch(
        () => 'aborted' as const,
      );
      const woke = await Promise.race([committed, idle]);
      wait.abort();
      stop.signal.removeEventListener('abort', abortWait);
      if (woke === 'idle') checkpointedAt = null;
    }
  } catch (error) {
    if (!stop.signal.aborted) failStream(socket, error);
  }
}

/** Sends a finite list of items, then closes normally. */
export async function streamList(socket: WebSocket, items: readonly unknown[]): Promise<void> {
  try {
    for (const item of items) {
      if (socket.readyState !== socket.OPEN) return;
      await send(socket, item);
    }
    socket.close(1000);
  } catch (error) {
    failStream(socket, error);
  }
}
