/**
 * Idempotent POSTs (docs/spec/protocol.md#idempotency), the I/O: a route declared with
 * `idempotency` (route-table.ts) takes an `Idempotency-Key` header. Its request claims the key
 * before the handler runs; the handler's success response is stored under the key and replayed,
 * with `Idempotent-Replayed: true`, to a retry of the same request for 24 h.
 *
 * Choices made here:
 * - The key is claimed first, in a statement of its own, rather than written in the same
 *   transaction as each route's effect: one mechanism serves every route whatever its effect
 *   does (a settlement call, several transactions, none), and the routes stay as they were. Two
 *   requests with one key, in one process or in two, meet at the store's primary key and only
 *   the first runs; the other is answered 409 `idempotency_key_in_use` at once, not held waiting.
 * - The response is stored as it goes out (Fastify's `onSend`); a refusal gives the key back.
 *   A route may store it instead in its effect's own transaction (`completesInEffect`, swap
 *   creation), fenced by the claim's token: then an answerless claim means nothing happened,
 *   and a retry of the same request takes it over after `TAKE_OVER_AFTER_MS`, whatever became
 *   of the first.
 * - Elsewhere a request that failed on the store (5xx), or whose process died, may have taken
 *   effect: its claim stays and the request is never run again under its key. A retry is
 *   refused with 409, saying it still runs for `IDEMPOTENCY_CLAIM_RUNNING_MS` and then that it
 *   was interrupted and should be looked up (docs/decisions.md).
 */
import { randomBytes } from 'node:crypto';
import { IdempotencyHeadersSchema, inline } from '@poolparty/core';
import {
  claimIdempotencyKey,
  completeIdempotencyClaim,
  type Database,
  type IdempotencyClaim,
  type Queryable,
  releaseIdempotencyClaim,
  type StoredResponse,
} from '@poolparty/store';
import type {
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  onSendAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { apiKeyOf, walletPartyOf } from './authenticate.js';
import type { App } from './fastify.js';
import {
  apiKeyScope,
  developerScope,
  type IdempotencyPrincipal,
  keepsResponse,
  requestHash,
  routeRequestOf,
  verdictOf,
} from './idempotency.js';
import { ApiError } from './problem.js';
import { withProblems } from './route-docs.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The idempotency keys of the app's routes; set by `useIdempotencyKeys`. */
    idempotencyKeys?: IdempotencyKeys;
  }
}

const KEY_HEADER = 'idempotency-key';
/**
 * On a route whose answer is stored with its effect, how old an answerless claim of the same
 * request must be for a retry to take it over: a younger one is taken for still running (409).
 * Below the SDK's second retry (at least 750 ms on), so a claim its request left behind, failed
 * or killed, stops no client; far above a creation's usual time, so a running one is rarely cut.
 */
const TAKE_OVER_AFTER_MS = 500;
const REPLAYED_HEADER = 'idempotent-replayed';
/** Random bytes of a claim token: unguessable, so only the claiming request settles its claim. */
const CLAIM_TOKEN_BYTES = 16;

/** How a route's requests are keyed: by whom, and what of the request counts. */
export interface Idempotency<Deps> {
  principal(request: FastifyRequest, deps: Deps): IdempotencyPrincipal;
  /** The request as the route understands it; by default its route, path parameters and body. */
  understood?(request: FastifyRequest): unknown;
  /**
   * The route stores its answer in its effect's own transaction (`completionOf`), only while the
   * claim is still the request's own: a claim with no answer then means no effect, so a retry
   * of the same request takes it over after `TAKE_OVER_AFTER_MS`, however the first one ended
   * (failed on the store, its process died, still running: it can no longer commit). Without
   * it, a request that failed on the store (5xx) may have taken effect: its claim stays, and a
   * retry is told to look the result up.
   */
  readonly completesInEffect?: true;
}

/** Writes a request's answer under its key inside the transaction of the request's effect. */
export type IdempotentCompletion = (tx: Queryable, response: StoredResponse) => Promise<void>;

/** A `/v1` route with a wallet token: the API key's keys, for the wallet party. */
export const WALLET_IDEMPOTENCY: Idempotency<unknown> = {
  principal: (request) => ({
    scope: apiKeyScope(apiKeyOf(request).keyId),
    party: walletPartyOf(request),
  }),
};

/** A developer portal route: the signed-in developer's keys, whichever session sent them. */
export const DEVELOPER_IDEMPOTENCY: Idempotency<{
  developerOf(request: FastifyRequest): string;
}> = {
  principal: (request, deps) => ({ scope: developerScope(deps.developerOf(request)) }),
};

/** Where an app's routes keep their keys. */
export function useIdempotencyKeys(
  app: App,
  store: { readonly db: Database; readonly clock: { now(): Date } },
): void {
  app.decorate('idempotencyKeys', new IdempotencyKeys(store.db, store.clock));
}

class IdempotencyKeys {
  /**
   * The claim each running request holds, settled when its response goes out; one whose answer
   * was stored in its effect's transaction leaves it then, nothing left to settle.
   */
  readonly #claims = new WeakMap<FastifyRequest, IdempotencyClaim>();

  constructor(
    private readonly db: Database,
    private readonly clock: { now(): Date },
  ) {}

  /**
   * For a route with `completesInEffect`: what stores the request's answer under its key in the
   * effect's transaction; null when the request carries no key.
   */
  completionOf(request: FastifyRequest): IdempotentCompletion | null {
    const claim = this.#claims.get(request);
    if (claim === undefined) return null;
    return async (tx, response) => {
      if (!(await completeIdempotencyClaim(tx, claim, response, this.clock.now()))) {
        // A retry took the claim over: its effect is the one that commits, not this one.
        throw new ApiError(
          'idempotency_key_in_use',
          'A retry with this Idempotency-Key took it over; retry to get its answer.',
        );
      }
      this.#claims.delete(request);
    };
  }

  /** The hooks of an idempotent route: claim after its own pre-handlers, settle on send. */
  hooksOf<Deps>(deps: Deps, idempotency: Idempotency<Deps>) {
    const claim: preHandlerAsyncHookHandler = async (request, reply) => {
      const key = request.headers[KEY_HEADER];
      // No key: the request runs as it would without the mechanism.
      if (typeof key !== 'string') return;
      return this.#claim(request, reply, key, deps, idempotency);
    };
    const atomic = idempotency.completesInEffect === true;
    const settle: onSendAsyncHookHandler<unknown> = async (request, reply, payload) => {
      const held = this.#claims.get(request);
      if (held === undefined) return payload;
      this.#claims.delete(request);
      await this.#settle(request, held, { status: reply.statusCode, payload, atomic });
      return payload;
    };
    return { claim, settle };
  }

  async #claim<Deps>(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    deps: Deps,
    idempotency: Idempotency<Deps>,
  ): Promise<FastifyReply | undefined> {
    const principal = idempotency.principal(request, deps);
    const understood =
      idempotency.understood?.(request) ??
      routeRequestOf({
        method: request.method,
        routeUrl: request.routeOptions.url,
        params: request.params,
        body: request.body,
      });
    const claim: IdempotencyClaim = {
      scope: principal.scope,
      key,
      requestHash: requestHash(understood, principal.party),
      claimToken: randomBytes(CLAIM_TOKEN_BYTES).toString('base64url'),
      at: this.clock.now(),
    };
    const record = await claimIdempotencyKey(this.db, claim, {
      ...(idempotency.completesInEffect && {
        takeOverUnansweredBefore: new Date(claim.at.getTime() - TAKE_OVER_AFTER_MS),
      }),
    });
    const verdict = verdictOf(record, claim);
    if (verdict.kind === 'refuse') throw new ApiError(verdict.code, verdict.detail);
    if (verdict.kind === 'run') {
      this.#claims.set(request, claim);
      return undefined;
    }
    reply.header(REPLAYED_HEADER, 'true');
    return reply.code(verdict.response.status).send(verdict.response.body);
  }

  /**
   * A success is stored; a refusal gives the key back. A failure of the service (5xx) gives it
   * back only on a route whose answer is stored with its effect: elsewhere the effect may have
   * committed before the failure, and the claim stays for a retry to be told so. (On such a route
   * a claim left behind, the store out of reach, is taken over by the retry all the same.)
   */
  async #settle(
    request: FastifyRequest,
    claim: IdempotencyClaim,
    sent: { readonly status: number; readonly payload: unknown; readonly atomic: boolean },
  ): Promise<void> {
    const { status, payload, atomic } = sent;
    try {
      // Every idempotent route answers JSON; anything else is not kept, like a refusal.
      if (keepsResponse(status) && typeof payload === 'string') {
        const response = { status, body: JSON.parse(payload) as unknown };
        if (!(await completeIdempotencyClaim(this.db, claim, response, this.clock.now()))) {
          request.log.warn({ key: claim.key }, 'idempotency claim outlived its retention');
        }
        return;
      }
      if (status >= 500 && !atomic) return;
      await releaseIdempotencyClaim(this.db, claim);
    } catch (error) {
      request.log.warn({ err: error, key: claim.key }, 'idempotency key not settled');
    }
  }
}

/** The header a replayed success response carries, as its documentation says it. */
const REPLAYED_HEADER_DOC = {
  type: 'string',
  enum: ['true'],
  description:
    'Present on a replay: the stored response of an earlier request with the same ' +
    '`Idempotency-Key`, not a new effect.',
} as const;

/** Each success response with the header it carries on a replay. */
function withReplayedHeader(responses: unknown): unknown {
  if (responses === undefined) return undefined;
  const documented = Object.entries(responses as Record<string, object>).map(([status, doc]) => {
    if (!keepsResponse(Number(status))) return [status, doc];
    const headers = (doc as { headers?: object }).headers;
    return [
      status,
      { ...doc, headers: { ...headers, 'Idempotent-Replayed': REPLAYED_HEADER_DOC } },
    ];
  });
  return Object.fromEntries(documented);
}

/** What an idempotent route documents beyond its own schema: the headers and the refusals. */
export function idempotentSchema(schema: FastifySchema): FastifySchema {
  const own = (schema.headers as { properties?: object } | undefined)?.properties;
  return {
    ...schema,
    response: withReplayedHeader(schema.response),
    headers: {
      ...inline(IdempotencyHeadersSchema),
      properties: { ...own, ...IdempotencyHeadersSchema.properties },
    },
    problems: withProblems(
      schema.problems,
      ['validation_error', 'idempotency_key_in_use', 'idempotency_key_reused'],
      {
        idempotency_key_in_use: 'the first request with this `Idempotency-Key` is still running',
        idempotency_key_reused: 'this `Idempotency-Key` was used for another request',
      },
    ),
  };
}
