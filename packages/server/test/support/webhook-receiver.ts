/**
 * A developer's webhook receiver on loopback (node:http), as a test drives it: it records every
 * request with its raw body, answers as the test says (a status, a `Retry-After`, a redirect, a
 * hang, a closed connection), and checks signatures with node:crypto as a receiver would.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NewWebhookEndpoint } from '@poolparty/store';

export interface ReceivedWebhook {
  /** The request's path: which endpoint it was sent to when they differ by path. */
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly json: {
    readonly id: string;
    readonly type: string;
    readonly createdAt: string;
    readonly mode: string;
    // biome-ignore lint/suspicious/noExplicitAny: the object is checked field by field.
    readonly data: { readonly object: any };
  };
}

/** How the receiver answers one request. */
export type Answer =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
  | { readonly hang: true }
  | { readonly close: true };

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** What the next requests are answered; the default is 200. */
  answerWith(answer: (request: ReceivedWebhook) => Answer): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const hanging = new Set<ServerResponse>();
  let answer: (request: ReceivedWebhook) => Answer = () => ({ status: 200, body: 'ok' });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request = { path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body) };
      received.push(request);
      const chosen = answer(request);
      if ('hang' in chosen) {
        hanging.add(res);
      } else if ('close' in chosen) {
        req.socket.destroy();
      } else {
        res.writeHead(chosen.status, chosen.headers ?? {});
        res.end(chosen.body ?? '');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answerWith: (next) => {
      answer = next;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Whether the request's `PoolParty-Signature` carries a `v1` that is the HMAC-SHA256 of
 * `"<t>.<raw body>"` under `secret`, computed here with node:crypto.
 */
export function signedWith(request: ReceivedWebhook, secret: string): boolean {
  const header = String(request.headers['poolparty-signature'] ?? '');
  const parts = header.split(',').map((part) => part.split('=') as [string, string]);
  const t = parts.find(([name]) => name === 't')?.[1];
  if (t === undefined) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${t}.${request.body}`, 'utf8')
    .digest();
  return parts
    .filter(([name]) => name === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * An endpoint to store for a delivery test: every event of every key of the developer, no
 * description. A test names only what it is about (where it points, its secret, its owner).
 */
export function endpointFor(
  fields: Pick<
    NewWebhookEndpoint,
    'endpointId' | 'developerParty' | 'url' | 'secret' | 'createdAt'
  >,
): NewWebhookEndpoint {
  return { ...fields, events: [], apiKeyIds: null, description: '' };
}
