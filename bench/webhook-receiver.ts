/**
 * The endpoints of the webhook bench (bench/webhooks.ts): one `node:http` server on loopback with
 * a path per endpoint, in a child process of its own, so what it costs is not charged to the
 * service's process. Each POST is timed with `Date.now()` when its body has arrived, answered 204
 * at once, and kept as its event's `createdAt` beside that time; the parent asks for them all.
 *
 * Messages: to the parent `{ port }` once listening, and when asked with `'report'` the
 * `{ receipts }` since the last report (each run of the bench reads its own).
 */
import { createServer } from 'node:http';

/** Receipts kept at most: far above a full run's deliveries, a bound should the queue run away. */
const RECEIPTS_MAX = 2_000_000;

export interface Receipt {
  /** The endpoint's path: which run of the bench it belongs to. */
  readonly path: string;
  /** The event's `createdAt` (service clock), epoch ms. */
  readonly createdMs: number;
  /** `Date.now()` when the request's body had arrived. */
  readonly receivedMs: number;
}

const receipts: Receipt[] = [];
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const receivedMs = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string };
    if (receipts.length < RECEIPTS_MAX) {
      receipts.push({ path: request.url ?? '', createdMs: Date.parse(body.createdAt), receivedMs });
    }
    response.writeHead(204).end();
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  process.send?.({ port: address.port });
});
process.on('message', (message) => {
  if (message === 'report') process.send?.({ receipts: receipts.splice(0) });
});
process.on('disconnect', () => server.close());
