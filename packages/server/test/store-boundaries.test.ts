import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '@poolparty/store';
import { afterAll, describe, expect, it } from 'vitest';
import type { DevnetWelcome } from '../src/devnet-bootstrap.js';
import { runCli, serveCli as serve, stopServed as stop } from './support/cli.js';
import { request, walletTokenFor } from './support/service.js';

const PROCESSES_TIMEOUT_MS = 180_000;

describe('the embedded store across a backup and between environments', () => {
  const root = mkdtempSync(join(tmpdir(), 'poolparty-boundaries-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const original = join(root, 'original');
  const restored = join(root, 'restored');

  it(
    'starts from a copy of a stopped service’s folder with the same keys, pools and intents',
    async () => {
      const first = await serve(original, { LOG_LEVEL: 'warn' });
      const welcome = JSON.parse(
        readFileSync(join(original, 'devnet.json'), 'utf8'),
      ) as DevnetWelcome;
      const alice = welcome.users[0];
      if (!alice) throw new Error('no seeded user');
      const created = await request<{ intentId: string }>(first.url, 'POST', '/v1/swaps', {
        apiKey: first.apiKey,
        walletToken: await walletTokenFor(first, alice),
        body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: 'amulet-usdcx' },
      });
      expect(created.status).toBe(201);
      const poolsBefore = await request(first.url, 'GET', '/v1/pools', { apiKey: first.apiKey });
      expect(await stop(first)).toBe(0);
      // Stopped cleanly, the folder holds no lock: a copy is a whole, closed store.
      expect(existsSync(join(original, LOCK_FILE))).toBe(false);

      cpSync(original, restored, { recursive: true });
      const copy = await serve(restored, { LOG_LEVEL: 'warn' });
      try {
        expect(copy.apiKey).toBe(first.apiKey);
        const pools = await request(copy.url, 'GET', '/v1/pools', { apiKey: copy.apiKey });
        expect(pools.body).toEqual(poolsBefore.body);
        const status = await request<{ status: string; intentId: string }>(
          copy.url,
          'GET',
          `/v1/swaps/${created.body.intentId}`,
          { apiKey: copy.apiKey, walletToken: await walletTokenFor(copy, alice) },
        );
        expect(status.status).toBe(200);
        expect(status.body).toMatchObject({ intentId: created.body.intentId, status: 'pending' });
      } finally {
        expect(await stop(copy)).toBe(0);
      }
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'refuses to open the devnet store as mainnet, in serve, migrate and admin, with one line',
    async () => {
      const line = `poolparty: the data folder ${restored} belongs to devnet, not mainnet (POOLPARTY_ENV=mainnet): a store serves one environment; point this process at a mainnet store\n`;
      // Mainnet runs on a participant; the store is checked before the participant is reached.
      const served = await runCli(['serve', '--port', '0'], {
        POOLPARTY_DATA_DIR: restored,
        POOLPARTY_ENV: 'mainnet',
        LEDGER: 'canton',
        CANTON_LEDGER_API_URL: 'http://127.0.0.1:9',
        CANTON_REGISTRY_URL: 'http://127.0.0.1:9',
        CANTON_SCAN_PROXY_URL: 'http://127.0.0.1:9/api/validator',
        CANTON_USER_ID: 'poolparty',
      });
      expect(served).toMatchObject({ code: 1, stdout: '' });
      expect(served.stderr).toBe(line);
      const migrated = await runCli(['migrate', '--data-dir', restored, '--env', 'mainnet']);
      expect(migrated).toMatchObject({ code: 1, stderr: line });
      const listed = await runCli(['admin', 'flags', 'list', '--data-dir', restored], {
        POOLPARTY_ENV: 'mainnet',
      });
      expect(listed).toMatchObject({ code: 1, stderr: line });
      // Naming its own environment, or none, the operator commands work on it.
      expect(await runCli(['migrate', '--data-dir', restored, '--env', 'devnet'])).toMatchObject({
        code: 0,
        stdout: 'the store is up to date\n',
      });
      expect(await runCli(['admin', 'flags', 'list', '--data-dir', restored])).toMatchObject({
        code: 0,
        stdout: 'no open flags\n',
      });
    },
    PROCESSES_TIMEOUT_MS,
  );

  it(
    'refuses mainnet without LEDGER before touching any folder',
    async () => {
      const fresh = join(root, 'mainnet-no-ledger');
      const run = await runCli(['serve', '--port', '0'], {
        POOLPARTY_DATA_DIR: fresh,
        POOLPARTY_ENV: 'mainnet',
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        'poolparty: POOLPARTY_ENV=mainnet needs LEDGER set (canton for a participant): unset, it would run on the embedded devnet ledger\n',
      );
      expect(existsSync(fresh)).toBe(false);
    },
    PROCESSES_TIMEOUT_MS,
  );
});
