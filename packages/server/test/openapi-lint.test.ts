/**
 * The served OpenAPI document as client generators and linters see it: `redocly lint` with the
 * recommended rules (and the stricter ones of redocly.yaml) finds nothing, and every operation
 * names itself, its group, its credentials and its errors the way the API's clients rely on.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ERROR_CATALOGUE, isErrorCode } from '@poolparty/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestService, type TestService } from './support/service.js';

const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));
/** The `redocly` binary of the installed @redocly/cli, wherever npm placed the package. */
const REDOCLY = join(
  createRequire(import.meta.url).resolve('@redocly/cli/package.json'),
  '../bin/cli.js',
);
/** Linting the whole document takes a few seconds, more on a busy machine. */
const LINT_TIMEOUT_MS = 120_000;
const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;

interface Operation {
  readonly operationId?: string;
  readonly parameters?: readonly { readonly in: string; readonly name: string }[];
  readonly summary?: string;
  readonly tags?: readonly string[];
  readonly security?: readonly Record<string, readonly string[]>[];
  readonly responses: Record<string, Response>;
}

interface Response {
  readonly content?: Record<string, { schema?: { $ref?: string }; examples?: object }>;
}

interface OpenApiDocument {
  readonly servers?: readonly { url: string }[];
  readonly info: { license?: { name: string } };
  readonly tags?: readonly { name: string; description?: string }[];
  readonly components: { securitySchemes: Record<string, unknown> };
  readonly paths: Record<string, Record<string, Operation>>;
}

interface LintReport {
  readonly totals: { errors: number; warnings: number; ignored: number };
  readonly problems: readonly { ruleId: string; severity: string; message: string }[];
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

function operationsOf(document: OpenApiDocument): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]): [string, Operation] => [
        `${method.toUpperCase()} ${path}`,
        operation,
      ]),
  );
}

/** `redocly lint` of the document with the server's config and accepted problems beside it. */
async function lint(document: OpenApiDocument): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'poolparty-openapi-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document, null, 2));
    copyFileSync(join(SERVER_DIR, 'redocly.yaml'), join(dir, 'redocly.yaml'));
    copyFileSync(
      join(SERVER_DIR, '.redocly.lint-ignore.yaml'),
      join(dir, '.redocly.lint-ignore.yaml'),
    );
    // Exit status 1 means problems were found; the report says which.
    const { stdout } = await run(
      process.execPath,
      [REDOCLY, 'lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'json'],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return JSON.parse(stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('OpenAPI document', () => {
  let t: TestService;
  let document: OpenApiDocument;
  beforeAll(async () => {
    t = await startTestService();
    const answer = await request<OpenApiDocument>(t.url, 'GET', '/openapi.json');
    expect(answer.status).toBe(200);
    document = answer.body;
  });
  afterAll(async () => t?.close());

  it(
    'passes redocly lint with the recommended rules: no errors, no warnings',
    async () => {
      const report = await lint(document);
      const found = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
      expect(found).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
      // Only the accepted problems of .redocly.lint-ignore.yaml, and all of them still apply.
      expect(report.totals.ignored).toBe(5);
    },
    LINT_TIMEOUT_MS,
  );

  it('gives every operation a unique camelCase operationId, a summary, a tag and its security', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(0);
    const tags = new Set(document.tags?.map((tag) => tag.name));
    const schemes = new Set(Object.keys(document.components.securitySchemes));
    const ids = new Set<string>();
    for (const [name, operation] of operations) {
      expect(operation.operationId, name).toMatch(CAMEL_CASE);
      expect(ids.has(operation.operationId ?? ''), `${name}: operationId repeated`).toBe(false);
      ids.add(operation.operationId ?? '');
      expect(operation.summary?.length, `${name}: summary`).toBeGreaterThan(0);
      expect(operation.tags?.length, `${name}: tags`).toBeGreaterThan(0);
      for (const tag of operation.tags ?? []) expect(tags, name).toContain(tag);
      expect(operation.security, `${name}: security`).toBeDefined();
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) expect(schemes, name).toContain(scheme);
      }
    }
  });

  it('asks for the credentials each part of the API really checks', () => {
    const security = (method: string, path: string) =>
      document.paths[path]?.[method]?.security?.map((requirement) => Object.keys(requirement));
    expect(security('get', '/v1/pools')).toEqual([['apiKey']]);
    expect(security('post', '/v1/swaps')).toEqual([['apiKey', 'walletToken']]);
    expect(security('get', '/api/sdk/keys')).toEqual([
      ['developerSessionCookie'],
      ['developerSession'],
    ]);
    expect(security('post', '/api/sdk/wallet-login')).toEqual([]);
    expect(security('post', '/devnet/faucet')).toEqual([]);
    expect(security('get', '/healthz')).toEqual([]);
  });

  it('documents every error as a problem document whose examples match its status', () => {
    for (const [name, operation] of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^[45]\d\d$|^default$/.test(status) || name === 'GET /readyz') continue;
        const media = response.content?.['application/problem+json'];
        expect(media?.schema?.$ref, `${name} ${status}`).toBe('#/components/schemas/Problem');
        for (const [code, example] of Object.entries(media?.examples ?? {})) {
          expect(isErrorCode(code), `${name} ${status} ${code}`).toBe(true);
          if (!isErrorCode(code)) continue;
          const expected = status === 'default' ? ERROR_CATALOGUE[code].status : Number(status);
          expect(example, `${name} ${status}`).toMatchObject({
            value: { code, status: expected, type: `urn:poolparty:error:${code}` },
          });
        }
      }
    }
  });

  it('describes the Idempotency-Key header and its refusals on every POST that takes one', () => {
    const takesKey = (operation: Operation) =>
      (operation.parameters ?? []).some(
        (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
      );
    const keyed = operationsOf(document).filter(([, operation]) => takesKey(operation));
    expect(keyed.map(([name]) => name).sort()).toEqual(
      [
        'POST /v1/swaps',
        'POST /v1/swaps/{intentId}/cancel',
        'POST /v1/atomic-swaps',
        'POST /v1/atomic-swaps/{atomicSwapId}/execute',
        'POST /v1/atomic-swaps/{atomicSwapId}/cancel',
        'POST /v1/liquidity/intents',
        'POST /v1/liquidity/intents/{liquidityIntentId}/cancel',
        'POST /v1/liquidity/withdrawals',
        'POST /api/sdk/keys',
        'POST /api/sdk/collections',
      ].sort(),
    );
    for (const [name, operation] of keyed) {
      const codes = (status: string) =>
        Object.keys(
          operation.responses[status]?.content?.['application/problem+json']?.examples ?? {},
        );
      expect(codes('409'), name).toContain('idempotency_key_in_use');
      expect(codes('422'), name).toContain('idempotency_key_reused');
      expect(codes('400'), name).toContain('validation_error');
    }
  });

  it('names the serving service as its server and lists the devnet operations under their own tag', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(document.info.license?.name).toBeTruthy();
    expect(document.paths['/devnet/faucet']?.post?.tags).toEqual(['Devnet']);
    const devnet = document.tags?.find((tag) => tag.name === 'Devnet');
    expect(devnet?.description).toMatch(/only .*devnet mode/);
  });
});
