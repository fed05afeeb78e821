/**
 * Errors: every code the service can answer becomes the class the catalogue names, with the
 * code, status, request id and body; codes this SDK does not know fall back by status; outcome
 * errors carry the final status; and `instanceof` works across two copies of the SDK.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ERROR_CATALOGUE, type ErrorCode, OUTCOME_ERROR_CLASS } from '@poolparty/core';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { errorFromResponse } from '../src/error-mapping.js';
import * as sdk from '../src/index.js';
import { statusAfter } from './support/statuses.js';

const classes = sdk as unknown as Record<string, abstract new (...args: never[]) => unknown>;

const EXTENSIONS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  ambiguous_pool_pair: {
    candidates: [
      { poolId: 'p1', fromAdmin: 'a::1220', toAdmin: 'b::1220' },
      { poolId: 'p2', fromAdmin: 'a::1220', toAdmin: 'c::1220' },
    ],
  },
  settlement_safety: {
    settlementSafety: {
      code: 'output_reserve_share_exceeded',
      reason: 'share=0.1432 limit=0.1',
      message: 'The output is more than 10 % of the pool reserve.',
    },
  },
  rate_limited: { retryAfter: 7 },
};

function problemBody(code: string, status: number) {
  return {
    type: `urn:poolparty:error:${code}`,
    title: `title of ${code}`,
    status,
    detail: `detail of ${code}`,
    code,
    requestId: 'req-42',
    ...EXTENSIONS[code as ErrorCode],
  };
}

describe('errorFromResponse', () => {
  it.each(Object.entries(ERROR_CATALOGUE))('maps %s to its catalogue class', (code, entry) => {
    const body = problemBody(code, entry.status);
    const error = errorFromResponse({
      status: entry.status,
      body,
      requestId: null,
      retryAfter: null,
    });
    expect(error).toBeInstanceOf(classes[entry.sdkClass]);
    expect(error).toBeInstanceOf(sdk.PoolPartyError);
    expect(error.name).toBe(entry.sdkClass);
    expect(error.status).toBe(entry.status);
    expect(error.requestId).toBe('req-42');
    expect(error.body).toEqual(body);
    if (code !== 'settlement_safety') {
      expect(error.code).toBe(code);
      expect(error.shortMessage).toBe(`title of ${code}`);
      expect(error.details).toBe(`detail of ${code}`);
    }
  });

  it('carries the candidates of an ambiguous pair', () => {
    const error = errorFromResponse({
      status: 409,
      body: problemBody('ambiguous_pool_pair', 409),
      requestId: null,
      retryAfter: null,
    });
    expect(error).toBeInstanceOf(sdk.ConflictError);
    expect((error as sdk.AmbiguousPoolPairError).candidates.map((c) => c.poolId)).toEqual([
      'p1',
      'p2',
    ]);
  });

  it("carries the guard's code, reason and message on a settlement-safety refusal", () => {
    const error = errorFromResponse({
      status: 400,
      body: problemBody('settlement_safety', 400),
      requestId: null,
      retryAfter: null,
    }) as sdk.SettlementSafetyError;
    expect(error).toBeInstanceOf(sdk.SettlementSafetyError);
    expect(error.code).toBe('output_reserve_share_exceeded');
    expect(error.reason).toBe('share=0.1432 limit=0.1');
    expect(error.message).toBe('The output is more than 10 % of the pool reserve.');
    expect((error.body as { code: string }).code).toBe('settlement_safety');
  });

  it('takes Retry-After from the header, or else from the body', () => {
    const body = problemBody('rate_limited', 429);
    const fromHeader = errorFromResponse({ status: 429, body, requestId: null, retryAfter: 3 });
    const fromBody = errorFromResponse({ status: 429, body, requestId: null, retryAfter: null });
    expect((fromHeader as sdk.RateLimitError).retryAfter).toBe(3);
    expect((fromBody as sdk.RateLimitError).retryAfter).toBe(7);
  });

  it.each([
    [400, 'ValidationError'],
    [403, 'AuthenticationError'],
    [404, 'NotFoundError'],
    [409, 'ConflictError'],
    [422, 'ValidationError'],
    [429, 'RateLimitError'],
    [502, 'ServerError'],
    [418, 'PoolPartyError'],
  ])('maps an unknown code with status %i by its status to %s', (status, name) => {
    const error = errorFromResponse({
      status,
      body: problemBody('brand_new_code', status),
      requestId: 'req-h',
      retryAfter: null,
    });
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(classes[name]);
    expect(error.code).toBe('brand_new_code');
  });

  it('survives a body that is not a problem (a proxy’s HTML page)', () => {
    const error = errorFromResponse({
      status: 502,
      body: '<html>Bad gateway</html>',
      requestId: 'req-proxy',
      retryAfter: null,
    });
    expect(error).toBeInstanceOf(sdk.ServerError);
    expect(error.code).toBe('http_502');
    expect(error.requestId).toBe('req-proxy');
  });
});

describe('outcome errors', () => {
  it.each(Object.entries(OUTCOME_ERROR_CLASS))(
    '%s rejects as %s with the final status',
    (state, name) => {
      const status = statusAfter(['matched', state as sdk.TerminalState]);
      const error = sdk.outcomeErrorFor(status);
      expect(error).toBeInstanceOf(classes[name]);
      expect(error).toBeInstanceOf(sdk.SwapOutcomeError);
      expect(error.swapStatus).toBe(status);
      expect(error.code).toBe(state);
      expect(error.state).toBe(state);
      expect(error.intentId).toBe('int_1');
      expect(error.message).toContain(`ended ${state}`);
    },
  );
});

describe('walk', () => {
  it('finds a cause in the chain, or the deepest one', () => {
    const root = new TypeError('socket hang up');
    const error = new sdk.NetworkError('failed', { cause: root });
    expect(error.walk()).toBe(root);
    expect(error.walk((e) => e instanceof TypeError)).toBe(root);
    expect(error.walk((e) => e instanceof RangeError)).toBeNull();
  });
});

describe('instanceof across bundles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'poolparty-sdk-copy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('recognises errors of a second copy of the SDK, class by class', async () => {
    const result = await build({
      entryPoints: [join(import.meta.dirname, '../src/index.ts')],
      bundle: true,
      format: 'esm',
      write: false,
    });
    const file = join(dir, 'copy.mjs');
    writeFileSync(file, result.outputFiles[0]?.text ?? '');
    const copy = (await import(pathToFileURL(file).href)) as typeof sdk;
    expect(copy.SlippageError).not.toBe(sdk.SlippageError);

    const foreign = new copy.SlippageError(statusAfter(['matched', 'slippage_failed']));
    expect(foreign).toBeInstanceOf(sdk.SlippageError);
    expect(foreign).toBeInstanceOf(sdk.SwapOutcomeError);
    expect(foreign).toBeInstanceOf(sdk.PoolPartyError);
    expect(foreign).not.toBeInstanceOf(sdk.CancelledError);
    expect(foreign).not.toBeInstanceOf(sdk.ConflictError);

    const local = new sdk.AmbiguousPoolPairError('ambiguous', { candidates: [] });
    expect(local).toBeInstanceOf(copy.ConflictError);
    expect(local).not.toBeInstanceOf(copy.SettlementSafetyError);
    expect(new Error('plain')).not.toBeInstanceOf(copy.PoolPartyError);
    expect(null).not.toBeInstanceOf(copy.PoolPartyError);
  });
});
