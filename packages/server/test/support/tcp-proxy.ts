/**
 * A TCP proxy in front of PostgreSQL that a test can cut: every connection through it dropped at
 * once (a failover, a restarted pooler), and new ones refused for as long as the test says (an
 * outage). The service under test is given the proxy's address as its `DATABASE_URL`.
 */
import net from 'node:net';
import { POSTGRES_URL } from '@poolparty/store/testing';

export interface StoreProxy {
  /** `POSTGRES_URL` with the proxy's host and port. */
  readonly url: string;
  /** Connections through the proxy now. */
  readonly open: () => number;
  /** Destroys every connection through the proxy; returns how many there were. */
  dropAll(): number;
  /** While true, new connections are closed as soon as they arrive. */
  refuse(refusing: boolean): void;
  close(): Promise<void>;
}

export async function startStoreProxy(): Promise<StoreProxy> {
  const target = new URL(POSTGRES_URL);
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A cut connection errors on both sides; the other side is destroyed with it.
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  const url = new URL(POSTGRES_URL);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
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

/** The URL with the schema as the session's search path. */
export function withSchema(url: string, schema: string): string {
  const withOptions = new URL(url);
  withOptions.searchParams.set('options', `-c search_path=${schema}`);
  return withOptions.toString();
}
