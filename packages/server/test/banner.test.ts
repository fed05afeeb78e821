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

/** A running service as the banner reads it: settings, URL and the devnet seed. */
function banner(env: Record<string, string>, url: string, root: string | null = ROOT): string {
  const service = { ctx: { settings: settingsWith(env) }, url, devnet: WELCOME };
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
    const service = { ctx: { settings }, url: 'http://127.0.0.1:8787', devnet: WELCOME };
    const worker = startupBanner(service as unknown as RunningService, ROOT);
    expect(worker).not.toContain('Developer API key');
    expect(worker).not.toContain('First swap');
  });
});
