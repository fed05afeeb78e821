/**
 * The service on a participant (`LEDGER=canton`, here the devnet ledger server): it seeds
 * nothing and serves no `/devnet` routes (the devnet ledger has them), its banner names the
 * participant, user and way of authenticating, its clock follows the ledger's time, and a
 * participant it cannot use stops the start with one line naming the setting.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Amount } from '@poolparty/core';
import { listPools } from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startupBanner } from '../src/banner.js';
import type { Settings } from '../src/config.js';
import { type RunningService, StartupError, startService } from '../src/service.js';
import {
  type ServedDevnet,
  serveSeededDevnet,
  serviceSettingsIn,
} from './support/devnet-ledger.js';
import { request } from './support/service.js';

const DAY_MS = 86_400_000;

let devnet: ServedDevnet;
const dataDirs: string[] = [];

function settingsOn(env: Record<string, string>): Settings {
  const dataDir = mkdtempSync(join(tmpdir(), 'pp-on-canton-'));
  dataDirs.push(dataDir);
  return serviceSettingsIn(dataDir, env);
}

beforeAll(async () => {
  devnet = await serveSeededDevnet();
});

afterAll(async () => {
  await devnet?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('a service with LEDGER=canton on devnet', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService(settingsOn({ ...devnet.env }));
  });

  afterAll(async () => {
    await service?.close();
  });

  it('seeds nothing, serves no /devnet routes, and says where its ledger is', async () => {
    expect(service.devnet).toBeNull();
    expect(await listPools(service.ctx.db)).toEqual([]);
    const url = service.url ?? '';
    expect((await request(url, 'POST', '/devnet/clock', { body: { advanceMs: 1 } })).status).toBe(
      404,
    );
    expect((await request(url, 'GET', '/devnet/clock')).status).toBe(404);
    expect((await request(url, 'GET', '/healthz')).status).toBe(200);
    const banner = startupBanner(service);
    expect(banner).toContain(
      `  ledger:    canton at ${devnet.server.ledgerApiUrl} as user poolparty, self-signed HS256 tokens for https://canton.network.global`,
    );
    expect(banner).not.toContain('unsafe');
    expect(banner).not.toContain('Developer API key');
  });

  it('follows the ledger’s time once the ledger has moved on', async () => {
    const before = service.ctx.clock.now().getTime();
    await devnet.ledger.advanceClock(DAY_MS);
    // The participant's time is that of its latest update: the next one carries the new day.
    const [user] = devnet.seed.users;
    if (!user) throw new Error('no seeded user');
    await devnet.ledger.mint({
      owner: user.partyId,
      instrument: devnet.seed.instruments.amulet,
      amount: Amount.parse('1'),
    });
    await service.ctx.clock.sync?.();
    expect(service.ctx.clock.now().getTime()).toBeGreaterThanOrEqual(before + DAY_MS);
  });
});

describe('a participant the service cannot use', () => {
  it('stops the start with one line naming CANTON_LEDGER_API_URL and the user', async () => {
    const settings = settingsOn({ ...devnet.env, CANTON_AUTH_SECRET: 'not-the-secret' });
    const start = startService(settings);
    await expect(start).rejects.toBeInstanceOf(StartupError);
    await expect(start).rejects.toThrow(
      new RegExp(
        `^cannot use the participant at CANTON_LEDGER_API_URL ${devnet.server.ledgerApiUrl} as user poolparty: .+ \\(not_authorized\\)$`,
      ),
    );
    // A failed first start leaves no data folder behind.
    expect(existsSync(settings.dataDir)).toBe(false);
  });
});
