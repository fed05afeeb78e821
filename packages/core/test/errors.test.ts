import { describe, expect, it } from 'vitest';
import {
  codeOfClientStatus,
  ERROR_CATALOGUE,
  ERROR_CODES,
  type ErrorCode,
  isErrorCode,
  OUTCOME_ERROR_CLASS,
  problemFor,
  problemType,
  SDK_ERROR_CLASSES,
  SDK_ERROR_PARENT,
  type SdkErrorClass,
  sdkClassFor,
  sdkClassForStatus,
  statusOf,
} from '../src/errors.js';
import { TERMINAL_STATES } from '../src/swap-state.js';

function ancestors(name: SdkErrorClass): SdkErrorClass[] {
  const chain: SdkErrorClass[] = [];
  for (let parent = SDK_ERROR_PARENT[name]; parent !== null; parent = SDK_ERROR_PARENT[parent]) {
    chain.push(parent);
  }
  return chain;
}

describe('error catalogue', () => {
  it('gives every code a 4xx/5xx status, a title and an SDK class', () => {
    for (const code of ERROR_CODES) {
      const { status, title, sdkClass } = ERROR_CATALOGUE[code];
      expect(status >= 400 && status <= 599, code).toBe(true);
      expect(title.trim().length, code).toBeGreaterThan(0);
      expect(SDK_ERROR_CLASSES, code).toContain(sdkClass);
      expect(statusOf(code)).toBe(status);
    }
  });

  it('spells codes in snake_case, each once', () => {
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('gives each code its own title', () => {
    const titles = ERROR_CODES.map((code) => ERROR_CATALOGUE[code].title);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it.each([
    ['validation_error', 400, 'ValidationError'],
    ['malformed_request', 400, 'ValidationError'],
    ['amount_below_minimum', 400, 'ValidationError'],
    ['price_impact_exceeded', 400, 'ValidationError'],
    ['settlement_safety', 400, 'SettlementSafetyError'],
    ['missing_api_key', 401, 'AuthenticationError'],
    ['invalid_api_key', 401, 'AuthenticationError'],
    ['api_key_revoked', 401, 'AuthenticationError'],
    ['wrong_environment', 401, 'AuthenticationError'],
    ['missing_wallet_token', 401, 'AuthenticationError'],
    ['invalid_wallet_token', 401, 'AuthenticationError'],
    ['invalid_signature', 401, 'AuthenticationError'],
    ['invalid_nonce', 401, 'AuthenticationError'],
    ['invalid_party_signature', 401, 'AuthenticationError'],
    ['missing_session', 401, 'AuthenticationError'],
    ['invalid_session', 401, 'AuthenticationError'],
    ['wallet_party_mismatch', 403, 'AuthenticationError'],
    ['forbidden', 403, 'AuthenticationError'],
    ['not_found', 404, 'NotFoundError'],
    ['pool_not_found', 404, 'NotFoundError'],
    ['token_not_found', 404, 'NotFoundError'],
    ['devnet_only', 404, 'NotFoundError'],
    ['request_timeout', 408, 'ValidationError'],
    ['active_intent_exists', 409, 'ConflictError'],
    ['ambiguous_pool_pair', 409, 'AmbiguousPoolPairError'],
    ['intent_not_cancellable', 409, 'ConflictError'],
    ['pool_paused', 409, 'ConflictError'],
    ['api_key_limit_reached', 409, 'ConflictError'],
    ['gone', 410, 'NotFoundError'],
    ['precondition_failed', 412, 'ValidationError'],
    ['payload_too_large', 413, 'ValidationError'],
    ['uri_too_long', 414, 'ValidationError'],
    ['unsupported_media_type', 415, 'ValidationError'],
    ['range_not_satisfiable', 416, 'ValidationError'],
    ['idempotency_key_reused', 422, 'ConflictError'],
    ['rate_limited', 429, 'RateLimitError'],
    ['headers_too_large', 431, 'ValidationError'],
    ['internal_error', 500, 'ServerError'],
    ['not_implemented', 501, 'ServerError'],
    ['ledger_unavailable', 503, 'ServerError'],
    ['store_unavailable', 503, 'ServerError'],
  ] as const)('answers %s with %i as %s', (code, status, sdkClass) => {
    expect(ERROR_CATALOGUE[code]).toMatchObject({ status, sdkClass });
  });

  it('recognises its own codes only', () => {
    expect(isErrorCode('rate_limited')).toBe(true);
    expect(isErrorCode('teapot')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('cannot be mutated by a caller', () => {
    expect(Object.isFrozen(ERROR_CATALOGUE)).toBe(true);
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
  });
});

describe('problem bodies', () => {
  it('derive the type URN from the code', () => {
    expect(problemType('rate_limited')).toBe('urn:poolparty:error:rate_limited');
    for (const code of ERROR_CODES) expect(problemType(code)).toBe(`urn:poolparty:error:${code}`);
  });

  it('carry type, title, status, detail and code from the catalogue', () => {
    for (const code of ERROR_CODES) {
      const body = problemFor(code, 'why', {});
      expect(body).toEqual({
        type: `urn:poolparty:error:${code}`,
        title: ERROR_CATALOGUE[code].title,
        status: ERROR_CATALOGUE[code].status,
        detail: 'why',
        code,
      });
    }
  });

  it('add extensions after the standard members', () => {
    const body = problemFor('active_intent_exists', 'one pending intent per pool and input', {
      intentId: 'int_1',
    });
    expect(body.intentId).toBe('int_1');
    expect(Object.keys(body)).toEqual(['type', 'title', 'status', 'detail', 'code', 'intentId']);
  });

  it('carry the guard verdict of a settlement-safety refusal', () => {
    const settlementSafety = {
      code: 'output_reserve_share_exceeded',
      reason: 'share=0.1432 limit=0.1',
      message: 'The output exceeds 10 % of the output reserve.',
    } as const;
    const body = problemFor('settlement_safety', 'blocked', { settlementSafety });
    expect(body).toMatchObject({ status: 400, code: 'settlement_safety', settlementSafety });
  });

  it('do not let an extension override a standard member', () => {
    const body = problemFor('rate_limited', 'slow down', {
      status: 200,
      code: 'ok',
      retryAfter: 3,
    });
    expect(body).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 3 });
  });

  it('build without extensions where none are required', () => {
    expect(problemFor('gone', 'retired endpoint')).toMatchObject({ status: 410, code: 'gone' });
  });
});

describe('SDK classes', () => {
  it('lists the SDK error classes, each once, base first', () => {
    expect(SDK_ERROR_CLASSES[0]).toBe('PoolPartyError');
    expect(new Set(SDK_ERROR_CLASSES).size).toBe(SDK_ERROR_CLASSES.length);
    expect(SDK_ERROR_CLASSES).toHaveLength(25);
  });

  it('descends from PoolPartyError, with AmbiguousPoolPairError a ConflictError', () => {
    for (const name of SDK_ERROR_CLASSES.slice(1)) {
      expect(ancestors(name).at(-1), name).toBe('PoolPartyError');
    }
    expect(ancestors('AmbiguousPoolPairError')).toEqual(['ConflictError', 'PoolPartyError']);
    expect(Object.keys(SDK_ERROR_PARENT).sort()).toEqual([...SDK_ERROR_CLASSES].sort());
  });

  it('gives every failing terminal state a distinct swap outcome class', () => {
    const failing = TERMINAL_STATES.filter((state) => state !== 'completed');
    expect(Object.keys(OUTCOME_ERROR_CLASS).sort()).toEqual([...failing].sort());
    const classes = failing.map((state) => OUTCOME_ERROR_CLASS[state]);
    expect(new Set(classes).size).toBe(classes.length);
    for (const name of classes) expect(ancestors(name)).toContain('SwapOutcomeError');
  });

  it('maps each failed terminal state to its outcome class', () => {
    expect(OUTCOME_ERROR_CLASS.slippage_failed).toBe('SlippageError');
    expect(OUTCOME_ERROR_CLASS.failed).toBe('SwapFailedError');
    expect(OUTCOME_ERROR_CLASS.refund_failed).toBe('RefundFailedError');
    expect(OUTCOME_ERROR_CLASS.cancelled).toBe('CancelledError');
  });

  it('never answers an HTTP error with a client-side or outcome class', () => {
    const clientSide = new Set<SdkErrorClass>(['NetworkError', 'TimeoutError', 'PoolPartyError']);
    for (const code of ERROR_CODES) {
      const name = ERROR_CATALOGUE[code].sdkClass;
      expect(clientSide.has(name), code).toBe(false);
      expect(ancestors(name), code).not.toContain('SwapOutcomeError');
    }
  });
});

describe('sdkClassForStatus', () => {
  it.each([
    [400, 'ValidationError'],
    [422, 'ValidationError'],
    [414, 'ValidationError'],
    [431, 'ValidationError'],
    [401, 'AuthenticationError'],
    [403, 'AuthenticationError'],
    [404, 'NotFoundError'],
    [410, 'NotFoundError'],
    [409, 'ConflictError'],
    [429, 'RateLimitError'],
    [500, 'ServerError'],
    [502, 'ServerError'],
    [503, 'ServerError'],
    [418, 'PoolPartyError'],
    [302, 'PoolPartyError'],
  ] as const)('maps an unknown code with status %i to %s', (status, sdkClass) => {
    expect(sdkClassForStatus(status)).toBe(sdkClass);
  });

  it('agrees with the catalogue wherever the catalogue uses the plain class of its status', () => {
    const special = new Set<ErrorCode>([
      'settlement_safety',
      'ambiguous_pool_pair',
      'idempotency_key_reused',
      'request_timeout',
    ]);
    for (const code of ERROR_CODES) {
      if (special.has(code)) continue;
      expect(sdkClassForStatus(statusOf(code)), code).toBe(ERROR_CATALOGUE[code].sdkClass);
    }
  });

  it('is overridden by the catalogue for a known code', () => {
    expect(sdkClassFor('settlement_safety', 400)).toBe('SettlementSafetyError');
    expect(sdkClassFor('idempotency_key_reused', 422)).toBe('ConflictError');
    expect(sdkClassFor('brand_new_code', 409)).toBe('ConflictError');
  });
});

describe('client errors known by their status', () => {
  it('have the code whose status they are, or read as a validation error', () => {
    for (const status of [400, 403, 404, 408, 412, 413, 414, 415, 416, 431]) {
      expect(statusOf(codeOfClientStatus(status))).toBe(status);
    }
    expect(codeOfClientStatus(405)).toBe('validation_error');
    expect(codeOfClientStatus(418)).toBe('validation_error');
  });
});
