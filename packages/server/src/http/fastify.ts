/**
 * The Fastify instance every route module is registered on: TypeBox schemas as the type
 * provider, request ids, security headers, problem+json errors (also for what fails before
 * routing or before there is a request at all), body limits, and the timeouts and connection caps
 * that keep slow or greedy clients from holding the process's connections. The whole service
 * (`app.ts`) and focused route tests build on this one function, so both see the same HTTP
 * behaviour.
 */
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { problemOfError } from '@poolparty/core/problems';
import { Type } from '@sinclair/typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
  type RouteOptions,
} from 'fastify';
import pretty from 'pino-pretty';
import { effectiveLogFormat, type Settings, settingDefinitionsOf } from '../config.js';
import { capConnections } from './connection-caps.js';
import { refuseNonFiniteNumbers } from './finite-numbers.js';
import { answerClientError, registerProblemHandlers, sendAnswer, sendProblem } from './problem.js';
import {
  API_SECURITY_HEADERS,
  applySecurityHeaders,
  STRICT_TRANSPORT_SECURITY,
} from './security-headers.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Request bodies are small JSON documents; anything larger is a mistake or an attack. */
const BODY_LIMIT_BYTES = 64 * 1024;
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The settings bounding how long a request may take to arrive and how many connections stay open. */
const HTTP_LIMIT_KEYS = [
  'headersTimeoutMs',
  'requestTimeoutMs',
  'keepAliveTimeoutMs',
  'connectionsMax',
  'connectionsPerAddressMax',
] as const satisfies readonly (keyof Settings)[];

export type HttpLimits = Pick<Settings, (typeof HTTP_LIMIT_KEYS)[number]>;

/** The settings' defaults: an app built without settings (a tool, a test) is bounded the same. */
const DEFAULT_HTTP_LIMITS = Object.fromEntries(
  settingDefinitionsOf(HTTP_LIMIT_KEYS).map((definition) => [
    definition.key,
    definition.defaultValue,
  ]),
) as unknown as HttpLimits;

/**
 * How often Node looks for requests past their headers or request timeout. Node checks only at
 * this interval (30 s by default), so a timeout would fire up to that long late; at half a second
 * it fires within a second of its setting, and each check walks only the connections that are
 * receiving a request.
 */
const CONNECTIONS_CHECKING_INTERVAL_MS = 500;

export interface FastifyOptions {
  readonly logLevel?: string;
  /** JSON lines (the default: for collectors), or human-readable lines for a terminal. */
  readonly logFormat?: 'json' | 'pretty';
  /** Timeouts and connection caps; `DEFAULT_HTTP_LIMITS` when absent. */
  readonly limits?: HttpLimits;
}

/** The service's logging settings, `LOG_FORMAT=auto` decided by whether stdout is a terminal. */
function loggingOf(settings: Pick<Settings, 'logLevel' | 'logFormat'>): FastifyOptions {
  return {
    logLevel: settings.logLevel,
    logFormat: effectiveLogFormat(settings.logFormat, process.stdout.isTTY === true),
  };
}

/** The service's HTTP options: its logging, timeouts and connection caps. */
export function httpOptionsOf(settings: Settings): FastifyOptions {
  const limits = Object.fromEntries(
    HTTP_LIMIT_KEYS.map((key) => [key, settings[key]]),
  ) as unknown as HttpLimits;
  return { ...loggingOf(settings), limits };
}

/**
 * Node's timeouts for receiving a request. A request past one is answered 408 by the
 * `clientError` handler below (or closed when an answer is already under way); a request that
 * has fully arrived is never cut off, so an event stream lasts as long as it needs.
 */
function timeoutOptions(limits: HttpLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // Given here too: Node checks at creation that the headers timeout is not the longer one.
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    },
  };
}

function loggerOf(options: FastifyOptions) {
  const level = options.logLevel ?? 'info';
  if (options.logFormat !== 'pretty') return { level };
  return {
    level,
    stream: pretty({
      colorize: process.stdout.isTTY === true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname',
      // Written in this thread, in order with the banner and the seeding lines.
      sync: true,
    }),
  };
}

/**
 * Answers from this status on are the service's own failures: their request line is a warning,
 * shown at the default `LOG_LEVEL=info` beside the error the problem handler logs.
 */
const SERVER_ERROR_STATUS_MIN = 500;

/**
 * Request logging for a person at a terminal (`LOG_FORMAT=pretty`): one line per request, at
 * `debug`, instead of Fastify's two at `info`. The web app alone refreshes its quotes every
 * ~10 s, so two info lines per request scrolled the banner (the developer key, the first swap)
 * off the screen within a minute. A request the service failed (5xx) is still a `warn` line, so
 * `LOG_LEVEL=info` shows every failure and `LOG_LEVEL=debug` every request. JSON logs, for
 * collectors, keep Fastify's request lines as they are.
 */
class TerminalLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const failed = error != null || reply.statusCode >= SERVER_ERROR_STATUS_MIN;
    const line = `${request.method} ${request.url} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`;
    if (failed) reply.log.warn({ err: error ?? undefined }, line);
    else reply.log.debug(line);
  }

  /** A client that leaves an event stream is routine, not news for the terminal. */
  override streamError(
    error: Error & { code?: string },
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') reply.log.debug('stream closed by the client');
    else super.streamError(error, request, reply);
  }
}

const AJV_OPTIONS = {
  // Refuse unknown members instead of silently dropping them: a misspelt optional field must not
  // be mistaken for an absent one.
  removeAdditional: false,
  coerceTypes: 'array',
  // Numbers must be finite: `1e400` in a JSON body and `Infinity` in a query string both read as
  // Infinity, which passes a bare type check and then breaks arithmetic and dates.
  strictNumbers: true,
  useDefaults: true,
  allErrors: false,
} as const;

/**
 * Query strings are closed (docs/spec/protocol.md#transport-and-encoding): an operation of the
 * API (one with an `operationId`) that declares no query parameters is given a query schema of
 * none, so `?limt=5` is a 400 rather than silently ignored. An operation that must take any
 * query declares that itself (the devnet endpoints, the retired ones).
 */
function closeQueryString(route: RouteOptions): void {
  const schema = route.schema;
  if (schema?.operationId === undefined || schema.querystring !== undefined) return;
  route.schema = { ...schema, querystring: Type.Object({}, { additionalProperties: false }) };
}

/** The query schema of an operation that takes whatever query it is sent, and reads none. */
export function anyQueryString() {
  return Type.Object({}, { additionalProperties: true });
}

export function createFastify(options: FastifyOptions = {}): App {
  const limits = options.limits ?? DEFAULT_HTTP_LIMITS;
  const { http: nodeTimeouts, ...timeouts } = timeoutOptions(limits);
  const app = Fastify({
    logger: loggerOf(options),
    ...(options.logFormat === 'pretty' && { logController: new TerminalLogController() }),
    ...timeouts,
    bodyLimit: BODY_LIMIT_BYTES,
    // A caller's own request id is kept when it is sane, so its logs and ours line up.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: AJV_OPTIONS },
    // Failures found before routing (bad percent-encoding, an overlong path segment) skip the
    // hooks, so the request id and security headers are set here.
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      applySecurityHeaders(request.raw, reply);
      const answer = problemOfError(error);
      if (answer.serverFault) request.log.error({ err: error }, 'unhandled framework error');
      return sendAnswer(request, reply, answer);
    },
    // Unparseable HTTP and oversized headers never become a request: answered on the socket.
    clientErrorHandler(error, socket) {
      const tls = (socket as { encrypted?: boolean }).encrypted === true;
      const headers = tls
        ? { ...API_SECURITY_HEADERS, 'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY }
        : API_SECURITY_HEADERS;
      answerClientError(error, socket, headers, app.log);
    },
    // Node would refuse an HTTP/1.1 request without Host with a bare 400 of its own; the hook
    // below refuses it as a problem instead (RFC 9112 §3.2 still holds).
    http: { ...nodeTimeouts, requireHostHeader: false },
    return503OnClosing: true,
    // Open event streams and idle keep-alive sockets must not hold up a shutdown.
    forceCloseConnections: true,
  }).withTypeProvider<TypeBoxTypeProvider>();
  capConnections(
    app.server,
    { total: limits.connectionsMax, perAddress: limits.connectionsPerAddressMax },
    () => app.log,
  );
  // A callback hook, not an async one: no promise per request for a few headers.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    applySecurityHeaders(request.raw, reply);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      sendProblem(request, reply, 'malformed_request', 'An HTTP/1.1 request needs a Host header.');
      return;
    }
    done();
  });
  app.addHook('onRoute', closeQueryString);
  app.addHook('preHandler', refuseNonFiniteNumbers);
  // Every body the service reads is JSON. Fastify also parses `text/plain` by default, which then
  // failed the body schema as a 400; another media type is a 415, as any other type already is.
  app.removeContentTypeParser('text/plain');
  registerProblemHandlers(app);
  return app;
}
