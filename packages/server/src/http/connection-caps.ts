/**
 * Caps on open connections, so that clients who open sockets and hold them cannot use up the
 * process's file descriptors: the process's total is Node's own `maxConnections` (a connection
 * beyond it is closed before HTTP sees it), and each client address gets a share of it, counted
 * here. A refused connection is closed at once, without an answer: answering would cost the
 * very resources the cap protects, and a client over its cap is either misbehaving or behind a
 * proxy whose operator raises the cap.
 */
import type { Server, Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

export interface ConnectionCaps {
  /** Open connections of the process. */
  readonly total: number;
  /** Open connections of one client address. */
  readonly perAddress: number;
}

/** Refusals are logged at most this often, with their count: a flood must not flood the log. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

type Refusal = 'total' | 'per_address';

/** Counts refusals and warns once per interval, naming the cap that bit. */
class RefusalLog {
  private readonly refused: Record<Refusal, number> = { total: 0, per_address: 0 };
  private lastWarnedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly caps: ConnectionCaps,
    private readonly log: () => FastifyBaseLogger,
  ) {}

  record(kind: Refusal): void {
    this.refused[kind]++;
    const now = Date.now();
    if (now - this.lastWarnedAt < REFUSAL_LOG_INTERVAL_MS) return;
    this.lastWarnedAt = now;
    this.log().warn(
      {
        refusedOverTotal: this.refused.total,
        refusedOverPerAddress: this.refused.per_address,
        connectionsMax: this.caps.total,
        connectionsPerAddressMax: this.caps.perAddress,
      },
      'connections refused: a connection cap is reached (POOLPARTY_CONNECTIONS_MAX, POOLPARTY_CONNECTIONS_PER_ADDRESS_MAX)',
    );
    this.refused.total = 0;
    this.refused.per_address = 0;
  }
}

/**
 * Applies `caps` to `server`. `log` is read when a refusal is logged, since the server exists
 * before the logger it should use is at hand.
 */
export function capConnections(
  server: Server,
  caps: ConnectionCaps,
  log: () => FastifyBaseLogger,
): void {
  const refusals = new RefusalLog(caps, log);
  server.maxConnections = caps.total;
  server.on('drop', () => refusals.record('total'));
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    // A socket whose peer already left has no address; it is closing anyway.
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const count = open.get(address) ?? 0;
    if (count >= caps.perAddress) {
      refusals.record('per_address');
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      // Deleted at zero, so the map holds only addresses with a connection open.
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
