/**
 * Raw TCP clients for tests of what the service does at the connection level: requests that
 * never finish arriving, connections beyond a cap. Each socket records what it received and
 * when it closed, so a test can tell an answer from a refusal and check how long it was held.
 */
import net from 'node:net';

export interface WatchedSocket {
  readonly socket: net.Socket;
  /** What the server sent so far, as latin1 text. */
  received(): string;
  /** Resolves with `performance.now()` when the connection closed, whoever closed it. */
  readonly closed: Promise<number>;
}

/** Source addresses that each reach a service on 127.0.0.1 as a client of its own. */
export const LOOPBACK_SOURCES = ['127.0.0.1', '127.0.0.2', '127.0.0.3'] as const;

/**
 * Connects to the service at `url`, from `localAddress` when given (Linux routes all of
 * 127.0.0.0/8 to the loopback, so a test can be several clients). Resolves once connected; a
 * connection the server closes at once still connects first.
 */
export function connectTo(url: string, localAddress?: string): Promise<WatchedSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: hostname,
      port: Number(port),
      ...(localAddress !== undefined && { localAddress }),
    });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    const closed = new Promise<number>((resolveClosed) => {
      socket.once('close', () => resolveClosed(performance.now()));
    });
    // A reset by the server is one way of being closed; the test reads `closed`, not errors.
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** The status code of the first response in `text`; null before a whole status line. */
export function statusOf(text: string): number | null {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  return match ? Number(match[1]) : null;
}

/** The JSON body of a response `text` holding one whole response with a Content-Length. */
export function bodyOf(text: string): Record<string, unknown> {
  const start = text.indexOf('\r\n\r\n');
  if (start < 0) throw new Error(`no whole response head in ${JSON.stringify(text.slice(0, 80))}`);
  return JSON.parse(text.slice(start + 4)) as Record<string, unknown>;
}

/** A header of the first response in `text`, by lower-case name. */
export function headerOf(text: string, name: string): string | undefined {
  const head = text.slice(0, Math.max(0, text.indexOf('\r\n\r\n')));
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) {
      return line.slice(colon + 1).trim();
    }
  }
  return undefined;
}

/** What `promise` settles with, or `'timed out'` when it has not within `ms`: a bounded wait. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
