/**
 * TCP proxies a test puts between a service and what it reaches, to fail the way networks fail:
 *
 * - in front of PostgreSQL (`startStoreProxy`), a proxy that can cut every connection through it
 *   at once (a failover, a restarted pooler) and refuse new ones for as long as the test says (an
 *   outage); the service is given the proxy's address as its `DATABASE_URL`;
 * - in front of a ledger's JSON API (`startLedgerProxy`), a proxy that holds one request on its
 *   way: before the ledger has it, or after the ledger answered it and before the answer reaches
 *   the service, so that a test kills the service at exactly that point.
 */
import net from 'node:net';
import { POSTGRES_URL } from '@poolparty/store/testing';

/** One connection through a proxy: the client's socket and the upstream one. */
interface Relay {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
}

/**
 * What a proxy does with each chunk of a connection, each way: the bytes to pass on (the chunk
 * by default), or null to hold them back for good.
 */
interface Taps {
  readonly fromClient?: (chunk: Buffer, relay: Relay) => Buffer | null;
  readonly fromUpstream?: (chunk: Buffer, relay: Relay) => Buffer | null;
}

interface TcpProxy {
  readonly port: number;
  /** Connections through the proxy now. */
  readonly open: () => number;
  /** Destroys every connection through the proxy; returns how many there were. */
  dropAll(): number;
  /** While true, new connections are closed as soon as they arrive. */
  refuse(refusing: boolean): void;
  close(): Promise<void>;
}

/** Copies `from`'s bytes to `to` through `tap`, with back-pressure. */
function relayBytes(from: net.Socket, to: net.Socket, tap: (chunk: Buffer) => Buffer | null) {
  from.on('data', (chunk: Buffer) => {
    const passed = tap(chunk);
    if (passed === null || passed.length === 0) return;
    if (!to.write(passed)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
}

async function startTcpProxy(target: URL, taps: Taps = {}): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    const relay = { client, upstream };
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A cut connection errors on both sides; the other side is destroyed with it.
      socket.on('error', () => {});
    }
    relayBytes(client, upstream, (chunk) => taps.fromClient?.(chunk, relay) ?? chunk);
    relayBytes(upstream, client, (chunk) => taps.fromUpstream?.(chunk, relay) ?? chunk);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    open: () => sockets.size / 2,
    dropAll() {
      const count = sockets.size / 2;
      for (const socket of sockets) socket.destroy();
      return count;
    },
    refuse(value) {
      refusing = value;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface StoreProxy extends Omit<TcpProxy, 'port'> {
  /** `POSTGRES_URL` with the proxy's host and port. */
  readonly url: string;
}

export async function startStoreProxy(): Promise<StoreProxy> {
  const target = new URL(POSTGRES_URL);
  if (target.port === '') target.port = '5432';
  const proxy = await startTcpProxy(target);
  const url = new URL(POSTGRES_URL);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { ...proxy, url: url.toString() };
}

/** Where a held request stops: before the ledger has it, or once the ledger answered it. */
export type HoldPoint = 'request' | 'answer';

export interface LedgerProxy {
  /** The ledger's URL with the proxy's host and port. */
  readonly url: string;
  /**
   * Holds the next `POST path` request: at `request`, the ledger never receives it; at `answer`,
   * the ledger receives it and answers, and the answer never reaches the client. Resolves once it
   * is held (at `answer`: once the ledger's answer has arrived). The held connection passes
   * nothing more either way until its client goes away.
   */
  holdNext(path: string, point: HoldPoint): Promise<void>;
  close(): Promise<void>;
}

/**
 * A proxy in front of a ledger's HTTP API (WebSockets pass through too). A client sends one
 * request at a time on a connection (keep-alive, no pipelining), so the bytes from the ledger
 * after a request has gone up are its answer.
 */
export async function startLedgerProxy(ledgerUrl: string): Promise<LedgerProxy> {
  let next: { readonly line: Buffer; readonly point: HoldPoint; held: () => void } | null = null;
  const held = new Map<Relay, { readonly point: HoldPoint; readonly held: () => void }>();
  const proxy = await startTcpProxy(new URL(ledgerUrl), {
    fromClient(chunk, relay) {
      const hold = held.get(relay);
      if (hold !== undefined) return hold.point === 'request' ? null : chunk;
      const at = next === null ? -1 : chunk.indexOf(next.line);
      if (next === null || at < 0) return chunk;
      held.set(relay, next);
      const { point, held: resolve } = next;
      next = null;
      if (point === 'answer') return chunk;
      resolve();
      return chunk.subarray(0, at);
    },
    fromUpstream(chunk, relay) {
      const hold = held.get(relay);
      if (hold === undefined) return chunk;
      hold.held();
      return null;
    },
  });
  const url = new URL(ledgerUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return {
    url: url.toString().replace(/\/$/, ''),
    holdNext(path, point) {
      if (next !== null) throw new Error('one request is held at a time');
      return new Promise<void>((resolve) => {
        next = { line: Buffer.from(`POST ${path} HTTP/1.1\r\n`), point, held: resolve };
      });
    },
    close: () => proxy.close(),
  };
}

/** The URL with the schema as the session's search path. */
export function withSchema(url: string, schema: string): string {
  const withOptions = new URL(url);
  withOptions.searchParams.set('options', `-c search_path=${schema}`);
  return withOptions.toString();
}
