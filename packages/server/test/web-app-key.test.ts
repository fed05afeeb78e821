/**
 * The web pages' own key: on devnet the pages never call `/v1` with the developer's key, so a
 * developer revoking every key of theirs in the portal leaves every page reading pools, and a
 * restart names the revoked developer key as revoked instead of printing it as the one to use.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startupBanner } from '../src/banner.js';
import { readSettings, type Settings } from '../src/config.js';
import { type RunningService, startService } from '../src/service.js';
import { portalLogin, request, STARTUP_TIMEOUT_MS } from './support/service.js';

interface KeyEntry {
  readonly keyId: string;
  readonly prefix: string;
  readonly revokedAt: string | null;
}

function settingsIn(dataDir: string): Settings {
  const result = readSettings({ PORT: '0', LOG_LEVEL: 'silent', POOLPARTY_DATA_DIR: dataDir });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.settings;
}

async function pagesKey(service: RunningService): Promise<string> {
  const config = (await (await fetch(`${service.url}/app-config.json`)).json()) as {
    apiKey: string;
  };
  return config.apiKey;
}

describe("the web pages' own key on devnet", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-web-app-key-'));
  let service: RunningService;
  let url: string;
  let developerKey: string;

  beforeAll(async () => {
    service = await startService(settingsIn(dataDir));
    url = service.url ?? '';
    developerKey = service.devnet?.apiKey ?? '';
  }, STARTUP_TIMEOUT_MS);
  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is not the developer key the banner prints, and reads the pools', async () => {
    const key = await pagesKey(service);
    expect(key).toMatch(/^pp_test_/);
    expect(key).not.toBe(developerKey);
    expect((await request(url, 'GET', '/v1/pools', { apiKey: key })).status).toBe(200);
    expect(startupBanner(service)).toContain("its own key, listed among no developer's keys");
  });

  it('is not among the developer’s keys, and survives the developer revoking all of them', async () => {
    const developer = service.devnet?.developer;
    if (!developer) throw new Error('no devnet developer');
    const { login } = await portalLogin<{ token: string }>(url, developer);
    const headers = { authorization: `Bearer ${login.body.token}` };
    const listed = await request<{ keys: KeyEntry[] }>(url, 'GET', '/api/sdk/keys', { headers });
    const key = await pagesKey(service);
    expect(listed.body.keys.map((entry) => entry.prefix)).not.toContain(key.slice(0, 16));
    for (const entry of listed.body.keys) {
      const revoked = await request(url, 'DELETE', `/api/sdk/keys/${entry.keyId}`, { headers });
      expect(revoked.status).toBe(200);
    }
    expect((await request(url, 'GET', '/v1/pools', { apiKey: developerKey })).status).toBe(401);
    const pools = await request(url, 'GET', '/v1/pools', { apiKey: key });
    expect(pools.status).toBe(200);
    expect((await request(url, 'GET', '/v1/pools/amulet-usdcx', { apiKey: key })).status).toBe(200);
  });

  it(
    'after a restart, keeps the same key and names the revoked developer key as revoked',
    async () => {
      const before = await pagesKey(service);
      await service.close();
      service = await startService(settingsIn(dataDir));
      expect(await pagesKey(service)).toBe(before);
      expect(service.developerKeyWorks).toBe(false);
      const banner = startupBanner(service);
      expect(banner).toContain('was revoked');
      expect(banner).toContain('/developer and pass it as POOLPARTY_API_KEY');
      expect(banner).not.toContain(`Developer API key (devnet): ${developerKey}\n`);
    },
    STARTUP_TIMEOUT_MS,
  );
});
