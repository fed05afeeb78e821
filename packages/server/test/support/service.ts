/**
 * Starts a real PoolParty service for HTTP tests: embedded PGlite store and devnet ledger in a
 * fresh temporary data folder, listening on a free loopback port, seeded as on first start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBase64, sign } from '@poolparty/core';
import { readSettings, type Settings } from '../../src/config.js';
import type { DevnetParty } from '../../src/devnet-bootstrap.js';
import { type RunningService, startService } from '../../src/service.js';

export interface TestService {
  readonly service: RunningService;
  readonly url: string;
  /** The seeded developer's `pp_test_` key. */
  readonly apiKey: string;
  readonly users: readonly DevnetParty[];
  readonly settings: Settings;
  close(): Promise<void>;
}

export async function startTestService(
  env: Readonly<Record<string, string>> = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-test-'));
  const result = readSettings({
    PORT: '0',
    LOG_LEVEL: 'silent',
    POOLPARTY_DATA_DIR: dataDir,
    ...env,
  });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  const service = await startService(result.settings);
  if (service.url === null || service.devnet === null)
    throw new Error('test service not listening');
  return {
    service,
    url: service.url,
    apiKey: service.devnet.apiKey,
    users: service.devnet.users,
    settings: result.settings,
    close: async () => {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface JsonResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** A small JSON client for tests: sends the API key unless told otherwise. */
export async function request<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  options: {
    readonly apiKey?: string | null;
    readonly walletToken?: string;
    readonly body?: unknown;
    readonly headers?: Record<string, string>;
  } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.walletToken) headers.authorization = `Bearer ${options.walletToken}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.body !== undefined
      ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
      : {}),
  });
  const text = await response.text();
  const body = (
    text.length > 0 && /json/.test(response.headers.get('content-type') ?? '')
      ? JSON.parse(text)
      : text
  ) as T;
  return { status: response.status, headers: response.headers, body };
}

/** Signs a wallet challenge message with a devnet party's key, as a wallet's `signMessage` would. */
export function signChallenge(
  message: string,
  party: DevnetParty,
): { signature: string; publicKey: string } {
  const privateKey = Uint8Array.from(Buffer.from(party.privateKey, 'hex'));
  return {
    signature: encodeBase64(sign(message, privateKey)),
    publicKey: encodeBase64(Uint8Array.from(Buffer.from(party.publicKey, 'hex'))),
  };
}
