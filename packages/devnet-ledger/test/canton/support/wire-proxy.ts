/**
 * A proxy between a Canton client and a Canton server that checks every request and every answer
 * against Canton's documents (HTTP bodies and each WebSocket frame, both ways) and injects the
 * faults a real network and participant produce: a stream socket dropped mid-stream, a frame
 * delivered twice, an answer that comes late, a 5xx.
 *
 * It speaks real HTTP and WebSocket on a port of its own, so the client under test runs its real
 * transport. Which document checks a path follows the prefixes a participant and a validator serve
 * (`WireValidator.documentFor`).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { UpdatesStreamChecker } from './stream-invariants.js';
import { type WireMismatch, type WireValidator, wireValidator } from './wire-validator.js';

/** Which requests a fault applies to: a method (any when omitted) and a path test. */
export interface RequestMatch {
  readonly method?: string;
  /** A path prefix, or a pattern tested against the path (query included). */
  readonly path: string | RegExp;
}

export interface ExchangeRecord {
  readonly method: string;
  readonly path: string;
  /** The status the client saw; null when the client went away before an answer. */
  status: number | null;
  /** The status the server answered with (null: injected, or not answered yet). */
  serverStatus: number | null;
  /** Whether the answer was injected by the proxy (the server never saw the request). */
  readonly injected: boolean;
}

export interface StreamRecord {
  readonly path: string;
  fromClient: number;
  fromServer: number;
  /** Whether the proxy dropped this stream's sockets on purpose. */
  dropped: boolean;
}

export interface WireProxyOptions {
  /** The server's base URL (origin; a path is kept as a prefix of forwarded paths). */
  readonly target: string;
  readonly validator?: WireValidator;
  /**
   * Paths outside Canton's documents the client may use (e.g. the devnet's own `/devnet/`
   * conveniences); any other unknown path is a mismatch.
   */
  readonly uncheckedPrefixes?: readonly string[];
}

interface DelayRule {
  readonly match: RequestMatch;
  readonly ms: number;
  remaining: number;
}

interface FailRule {
  readonly match: RequestMatch;
  readonly status: number;
  remaining: number;
}

interface FrameRule {
  readonly match: ((message: unknown) => boolean) | undefined;
  remaining: number;
}

/** Headers that describe one hop's connection, not the message. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'content-length',
  // Answers are checked as JSON, so the server is asked not to compress them.
  'accept-encoding',
  'host',
]);

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name) && !name.startsWith('sec-websocket-')) {
      out[name] = value;
    }
  }
  return out;
}

function matches(match: RequestMatch, method: string, path: string): boolean {
  if (match.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  return typeof match.path === 'string' ? path.startsWith(match.path) : match.path.test(path);
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Whether a body is read as JSON: a JSON media type, or none at all (a participant reads a
 * request body without Content-Type as JSON, and Canton's own TypeScript client sends none).
 */
function isJson(contentType: string | undefined): boolean {
  return contentType === undefined || /[/+]json\b/i.test(contentType);
}

function frameText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** `/v2/updates` and its deprecated flat and tree forms: the update streams. */
/**
 * The channel a stream's path names, as a participant reads it: empty leading segments
 * (`//v2/updates`, which wallet SDK 1.x sends) name the same channel as one slash.
 */
function channelOf(path: string): string {
  return (path.split('?')[0] ?? path).replace(/^\/+/, '/');
}

function isUpdatesPath(path: string): boolean {
  const pathname = channelOf(path);
  return /^\/v2\/updates(\/flats|\/trees)?$/.test(pathname);
}

/** A WebSocket close code that may be sent on the wire (1005 and 1006 only describe closes). */
function sendableCode(code: number): number | undefined {
  return code === 1005 || code === 1006 || code === 1015 ? undefined : code;
}

/** The JsCantonError a participant answers with when it cannot take a request right now. */
export function unavailableError(status: number): object {
  return {
    code: 'SERVICE_NOT_RUNNING',
    cause: `Injected fault: the participant answered ${status}`,
    context: {},
    errorCategory: 1, // TransientServerFailure: retryable, nothing was done
    grpcCodeValue: 14, // UNAVAILABLE
    retryInfo: '1 second',
  };
}

export class WireProxy {
  readonly #target: URL;
  readonly #validator: WireValidator;
  readonly #unchecked: readonly string[];
  readonly #server: Server;
  readonly #wss: WebSocketServer;
  readonly #sockets = new Set<WebSocket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #delays: DelayRule[] = [];
  readonly #failures: FailRule[] = [];
  readonly #duplicates: FrameRule[] = [];
  #dropAfter: number | null = null;
  #dropAfterFrame: ((message: unknown) => boolean) | null = null;
  #url = '';
  /** Every mismatch seen since the last `takeMismatches`. */
  readonly mismatches: WireMismatch[] = [];
  readonly exchanges: ExchangeRecord[] = [];
  readonly streams: StreamRecord[] = [];

  constructor(options: WireProxyOptions) {
    this.#target = new URL(options.target);
    this.#validator = options.validator ?? wireValidator();
    this.#unchecked = options.uncheckedPrefixes ?? [];
    this.#server = createServer((req, res) => {
      this.#handleHttp(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${String(error)}`);
      });
    });
    this.#wss = new WebSocketServer({
      noServer: true,
      // The client gets the subprotocol the server chose (Canton answers `daml.ws.auth`).
      handleProtocols: (_protocols, req) =>
        (req as IncomingMessage & { upstreamProtocol?: string }).upstreamProtocol || false,
    });
    this.#server.on('upgrade', (req, socket, head) => this.#handleUpgrade(req, socket, head));
  }

  /** The proxy's base URL. */
  get url(): string {
    return this.#url;
  }

  /** `targetUrl` (the server's URL of something) as reached through the proxy. */
  proxied(targetUrl: string): string {
    const url = new URL(targetUrl);
    if (url.origin !== this.#target.origin)
      throw new Error(`${targetUrl} is not behind this proxy`);
    return `${this.#url}${url.pathname === '/' ? '' : url.pathname}${url.search}`;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const socket of this.#sockets) socket.terminate();
    this.#wss.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The mismatches seen so far, and a fresh start. */
  takeMismatches(): WireMismatch[] {
    return this.mismatches.splice(0);
  }

  // ---- faults -------------------------------------------------------------------------------

  /** The next WebSocket stream opened is dropped (both sockets, no close frame) after `frames` server frames. */
  dropNextStreamAfter(frames: number): void {
    this.#dropAfter = frames;
  }

  /**
   * Every stream (until cleared) is dropped right after a server frame `match` selects has
   * reached the client.
   */
  dropStreamsAfter(match: (message: unknown) => boolean): void {
    this.#dropAfterFrame = match;
  }

  /** Ends the stream faults (drops and duplicates) not yet used up. */
  clearStreamFaults(): void {
    this.#duplicates.length = 0;
    this.#dropAfter = null;
    this.#dropAfterFrame = null;
  }

  /** The next `count` server frames `match` selects (any when omitted) reach the client twice. */
  duplicateServerFrames(count: number, match?: (message: unknown) => boolean): void {
    this.#duplicates.push({ match, remaining: count });
  }

  /** The answers of the next `count` matching requests reach the client `ms` late. */
  delayAnswers(match: RequestMatch, ms: number, count = 1): void {
    this.#delays.push({ match, ms, remaining: count });
  }

  /**
   * The next `count` matching requests are answered with `status` and a JsCantonError body by
   * the proxy itself; the server never sees them.
   */
  failRequests(match: RequestMatch, count = 1, status = 503): void {
    this.#failures.push({ match, status, remaining: count });
  }

  /** Ends every fault not yet used up. */
  clearFaults(): void {
    this.#delays.length = 0;
    this.#failures.length = 0;
    this.clearStreamFaults();
  }

  // ---- HTTP ---------------------------------------------------------------------------------

  #record(found: readonly WireMismatch[]): void {
    this.mismatches.push(...found);
  }

  #isUnchecked(path: string): boolean {
    return this.#unchecked.some((prefix) => path.startsWith(prefix));
  }

  #checkHttp(
    kind: 'request' | 'response',
    method: string,
    path: string,
    status: number,
    contentType: string | undefined,
    raw: Buffer,
  ): void {
    if (this.#isUnchecked(path)) return;
    const document = this.#validator.documentFor(path);
    if (!document) {
      if (kind === 'request') {
        this.#record([
          {
            subject: `${method} ${path} request`,
            location: '',
            message: 'is no path of the ledger API, registry or scan proxy documents',
            text: `${method} ${path} request: is no path of the ledger API, registry or scan proxy documents`,
          },
        ]);
      }
      return;
    }
    let body: unknown;
    if (raw.length > 0) {
      const text = raw.toString('utf8');
      if (isJson(contentType)) {
        try {
          body = JSON.parse(text);
        } catch {
          const subject = `${method} ${path} ${kind}${kind === 'response' ? ` ${status}` : ''}`;
          this.#record([
            { subject, location: '', message: 'is not JSON', text: `${subject}: body is not JSON` },
          ]);
          return;
        }
      } else {
        body = text;
      }
    }
    this.#record(
      kind === 'request'
        ? this.#validator.validateRequest(document, method, path, body)
        : this.#validator.validateResponse(document, method, path, status, body),
    );
  }

  #take<R extends { remaining: number; match: RequestMatch }>(
    rules: R[],
    method: string,
    path: string,
  ): R | undefined {
    const rule = rules.find((r) => r.remaining > 0 && matches(r.match, method, path));
    if (rule) rule.remaining--;
    return rule;
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
  }

  async #handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    // Before the answer is written, a close means the client went away (e.g. its timeout).
    let clientGone = false;
    res.once('close', () => {
      clientGone = true;
    });
    const raw = await readAll(req);
    this.#checkHttp('request', method, path, 0, req.headers['content-type'], raw);
    const failure = this.#take(this.#failures, method, path);
    if (failure) {
      const body = Buffer.from(JSON.stringify(unavailableError(failure.status)));
      this.#checkHttp('response', method, path, failure.status, 'application/json', body);
      this.exchanges.push({
        method,
        path,
        status: failure.status,
        serverStatus: null,
        injected: true,
      });
      res.writeHead(failure.status, {
        'content-type': 'application/json',
        'content-length': body.length,
      });
      res.end(body);
      return;
    }
    const exchange: ExchangeRecord = {
      method,
      path,
      status: null,
      serverStatus: null,
      injected: false,
    };
    this.exchanges.push(exchange);
    const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
      const forward = httpRequest(
        new URL(`${this.#target.origin}${this.#target.pathname.replace(/\/$/, '')}${path}`),
        { method, headers: { ...forwardable(req.headers), 'content-length': raw.length } },
        resolve,
      );
      forward.on('error', reject);
      forward.end(raw);
    });
    const answer = await readAll(upstream);
    const status = upstream.statusCode ?? 502;
    exchange.serverStatus = status;
    this.#checkHttp('response', method, path, status, upstream.headers['content-type'], answer);
    if (method === 'POST' && status === 200 && isUpdatesPath(path)) {
      this.#checkUpdatesAnswer(`${method} ${path.split('?')[0]} response`, raw, answer);
    }
    const deliver = () => {
      if (clientGone) return; // the client gave up waiting
      exchange.status = status;
      res.writeHead(status, { ...forwardable(upstream.headers), 'content-length': answer.length });
      res.end(answer);
    };
    const delay = this.#take(this.#delays, method, path);
    if (delay) this.#later(delay.ms, deliver);
    else deliver();
  }

  /** The stream promises of an HTTP `/v2/updates` answer, item by item. */
  #checkUpdatesAnswer(subject: string, request: Buffer, answer: Buffer): void {
    let items: unknown;
    let body: unknown;
    try {
      body = JSON.parse(request.toString('utf8'));
      items = JSON.parse(answer.toString('utf8'));
    } catch {
      return; // not JSON: already reported by the document check
    }
    if (!Array.isArray(items)) return;
    const checker = new UpdatesStreamChecker(subject, body);
    items.forEach((item, index) => {
      this.#record(checker.check(item, `body/${index}`));
    });
  }

  // ---- WebSocket ----------------------------------------------------------------------------

  #checkFrame(path: string, direction: 'fromClient' | 'fromServer', data: RawData): unknown {
    const channel = channelOf(path);
    let message: unknown;
    try {
      message = JSON.parse(frameText(data));
    } catch {
      const subject = `ws ${channel} ${direction}`;
      this.#record([
        { subject, location: '', message: 'is not JSON', text: `${subject}: frame is not JSON` },
      ]);
      return undefined;
    }
    if (!this.#isUnchecked(channel)) {
      this.#record(this.#validator.validateStreamMessage(channel, direction, message));
    }
    return message;
  }

  #handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = req.url ?? '/';
    const protocols = (req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    // Joined as text, not resolved against the target: a path with an empty first segment
    // (`//v2/updates`, which wallet SDK 1.x sends) would otherwise be read as another host.
    const base = `${this.#target.origin}${this.#target.pathname.replace(/\/$/, '')}`;
    const target = new URL(`${base}${path}`);
    target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
    const upstream = new WebSocket(target, protocols, { headers: forwardable(req.headers) });
    this.#sockets.add(upstream);
    upstream.on('unexpected-response', (_request, response) => {
      // The server refused the upgrade (e.g. 401): the client sees that answer.
      readAll(response)
        .then((body) => {
          const status = response.statusCode ?? 502;
          this.#checkHttp('response', 'GET', path, status, response.headers['content-type'], body);
          socket.end(
            `HTTP/1.1 ${status} ${response.statusMessage ?? ''}\r\n` +
              `content-type: ${response.headers['content-type'] ?? 'text/plain'}\r\n` +
              `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body.toString('utf8')}`,
          );
        })
        .catch(() => socket.destroy());
      this.#sockets.delete(upstream);
    });
    upstream.on('error', () => {
      this.#sockets.delete(upstream);
      if (!socket.destroyed && upstream.readyState !== WebSocket.OPEN) {
        socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      }
    });
    upstream.once('open', () => {
      (req as IncomingMessage & { upstreamProtocol?: string }).upstreamProtocol = upstream.protocol;
      this.#wss.handleUpgrade(req, socket, head, (client) => this.#bridge(path, client, upstream));
    });
  }

  #bridge(path: string, client: WebSocket, upstream: WebSocket): void {
    this.#sockets.add(client);
    const record: StreamRecord = { path, fromClient: 0, fromServer: 0, dropped: false };
    this.streams.push(record);
    const dropAfter = this.#dropAfter;
    this.#dropAfter = null;
    const drop = () => {
      record.dropped = true;
      client.terminate();
      upstream.terminate();
    };
    if (dropAfter === 0) {
      drop();
      return;
    }
    let invariants: UpdatesStreamChecker | null = null;
    client.on('message', (data, isBinary) => {
      record.fromClient++;
      const request = this.#checkFrame(path, 'fromClient', data);
      if (invariants === null && isUpdatesPath(path)) {
        invariants = new UpdatesStreamChecker(`ws ${path.split('?')[0]} fromServer`, request);
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
    });
    upstream.on('message', (data, isBinary) => {
      if (record.dropped || client.readyState !== WebSocket.OPEN) return;
      record.fromServer++;
      const message = this.#checkFrame(path, 'fromServer', data);
      if (invariants) this.#record(invariants.check(message, `frame ${record.fromServer} `));
      const duplicate = this.#duplicates.find(
        (rule) => rule.remaining > 0 && (rule.match === undefined || rule.match(message)),
      );
      if (duplicate) duplicate.remaining--;
      const dropNow =
        (dropAfter !== null && record.fromServer >= dropAfter) ||
        (this.#dropAfterFrame?.(message) ?? false);
      if (dropNow) record.dropped = true; // nothing after this frame reaches the client
      const copies = duplicate ? 2 : 1;
      for (let copy = 1; copy <= copies; copy++) {
        // The drop waits for the last copy to be written: a cut after a frame, not through it.
        const last = copy === copies;
        client.send(data, { binary: isBinary }, last && dropNow ? () => drop() : undefined);
      }
    });
    client.on('close', (code, reason) => {
      this.#sockets.delete(client);
      if (upstream.readyState === WebSocket.OPEN) upstream.close(sendableCode(code), reason);
      else upstream.terminate();
    });
    upstream.on('close', (code, reason) => {
      this.#sockets.delete(upstream);
      if (client.readyState !== WebSocket.OPEN) return;
      const sendable = sendableCode(code);
      if (sendable === undefined && code === 1006) client.terminate();
      else client.close(sendable, reason);
    });
    client.on('error', () => client.terminate());
    upstream.on('error', () => upstream.terminate());
  }
}

export async function startWireProxy(options: WireProxyOptions): Promise<WireProxy> {
  return new WireProxy(options).listen();
}

/** Fails with every mismatch listed when the proxy saw any; clears them either way. */
export function assertNoWireMismatches(proxy: WireProxy): void {
  const found = proxy.takeMismatches();
  if (found.length > 0) {
    throw new Error(
      `${found.length} wire mismatch(es) against Canton's documents:\n${found.map((m) => `  - ${m.text}`).join('\n')}`,
    );
  }
}
