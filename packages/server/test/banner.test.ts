/**
 * The start banner on devnet: every seeded party with what it is for (the developer's key signs
 * in to /developer and owns the API key's earnings), and the first swap as one command that
 * works as printed from another terminal, whatever address and data folder the service has.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startupBanner } from '../src/banner.js';
import { readSettings, type Settings } from '../src/config.js';
import type { DevnetParty, DevnetWelcome } from '../src/devnet-bootstrap.js';
import type { RunningService } from '../src/service.js';

const ROOT = '/home/dev/poolparty';

function party(hint: string): DevnetParty {
  return { partyId: `${hint}::1220${'0'.repeat(64)}`, publicKey: 'ab', privateKey: 'cd' };
}

const WELCOME: DevnetWelcome = {
  apiKey: `pp_test_${'k'.repeat(32)}`,
  developer: party('developer'),
  users: [party('alice'), party('bob')],
  pools: [
    { poolId: 'amulet-usdcx' },
    { poolId: 'amulet-cbtc' },
  ] as unknown as DevnetWelcome['pools'],
};

function settingsWith(env: Record<string, string>): Settings {
  const result = readSettings(env);
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.settings;
}

const OWN_KEY = { key: `pp_test_${'w'.repeat(32)}`, source: 'service', notice: null } as const;

/** A running service as the banner reads it: settings, URL, the devnet seed and the keys. */
function banner(
  env: Record<string, string>,
  url: string,
  root: string | null = ROOT,
  keys: Partial<Pick<RunningService, 'webAppKey' | 'developerKeyWorks'>> = {},
): string {
  const service = {
    ctx: { settings: settingsWith(env) },
    url,
    devnet: WELCOME,
    webAppKey: OWN_KEY,
    developerKeyWorks: true,
    ...keys,
  };
  return startupBanner(service as unknown as RunningService, root);
}

describe('the devnet banner', () => {
  const text = banner({ POOLPARTY_DATA_DIR: join(ROOT, '.poolparty') }, 'http://127.0.0.1:8787');

  it('names every seeded party with its role', () => {
    expect(text).toMatch(/^ {2}developer {2}developer::1220\w+$/m);
    expect(text).toContain('owns the developer key above and the fees its swaps earn');
    expect(text).toContain('http://127.0.0.1:8787/developer');
    expect(text).toContain('"developer" entry into "Import a devnet party"');
    expect(text).toMatch(/^ {2}user {7}alice::1220\w+$/m);
    expect(text).toMatch(/^ {2}user {7}bob::1220\w+$/m);
    expect(text).toContain('the examples and the SDK snippet below swap as this party');
    // As many parties as the seed reports ("seeding devnet: parties 3/3").
    expect(text.match(/^ {2}(developer|user) +\S+::1220/gm)).toHaveLength(3);
  });

  it('gives the first swap as one command, in the repository’s folder', () => {
    expect(text).toContain(
      `First swap (in another terminal, in ${ROOT}):\n  npm run example:quickstart\n`,
    );
    expect(text).toContain(`save as swap.mjs in ${ROOT}`);
  });

  it('spells out the address and data folder when they are not the examples’ defaults', () => {
    const other = banner({ POOLPARTY_DATA_DIR: '/srv/pp-data' }, 'http://127.0.0.1:9000');
    expect(other).toContain(
      '\n  POOLPARTY_URL=http://127.0.0.1:9000 POOLPARTY_DATA_DIR=/srv/pp-data npm run example:quickstart\n',
    );
    expect(other).toContain("readFileSync('/srv/pp-data/devnet.json', 'utf8')");
  });

  it('offers no repository command when the service runs outside the repository', () => {
    const outside = banner({}, 'http://127.0.0.1:8787', null);
    expect(outside).not.toContain('npm run example');
    expect(outside).toContain('save as swap.mjs in a project with @poolparty/sdk installed');
  });

  it('is only the address block on a worker', () => {
    const settings: Settings = { ...settingsWith({}), role: 'worker' };
    const service = {
      ctx: { settings },
      url: 'http://127.0.0.1:8787',
      devnet: WELCOME,
      webAppKey: OWN_KEY,
      developerKeyWorks: true,
    };
    const worker = startupBanner(service as unknown as RunningService, ROOT);
    expect(worker).not.toContain('Developer API key');
    expect(worker).not.toContain('First swap');
  });
});

describe('the keys in the banner', () => {
  const url = 'http://127.0.0.1:8787';

  it('prints the developer key while it works, and says the pages use a key of their own', () => {
    const text = banner({}, url);
    expect(text).toContain(`Developer API key (devnet): ${WELCOME.apiKey}\n`);
    expect(text).toContain(
      "web app:   http://127.0.0.1:8787/ (its own key, listed among no developer's keys)",
    );
  });

  it('names a revoked developer key as revoked, with the fix, instead of printing it as the key', () => {
    const text = banner({}, url, ROOT, { developerKeyWorks: false });
    expect(text).not.toContain(`Developer API key (devnet): ${WELCOME.apiKey}\n`);
    expect(text).toContain('was revoked');
    expect(text).toContain(
      'create one at http://127.0.0.1:8787/developer and pass it as POOLPARTY_API_KEY',
    );
  });

  it("reports a configured pages' key that no longer works, with the fix", () => {
    const notice = "The web pages' key (POOLPARTY_APP_API_KEY, pp_test_abc…) was revoked: fix it.";
    const text = banner({}, url, ROOT, {
      webAppKey: { key: 'pp_test_abc', source: 'configured', notice },
    });
    expect(text).toContain(`! ${notice}`);
    expect(text).toContain('(the key POOLPARTY_APP_API_KEY names)');
  });
});
