import { describe, expect, it } from 'vitest';
import {
  devnetEnabled,
  effectiveLogFormat,
  maskDatabaseUrl,
  readSettings,
  readStoreLocation,
} from '../src/config.js';

describe('readSettings', () => {
  it('gives the embedded defaults when nothing is set', () => {
    const result = readSettings({});
    expect(result).toEqual({
      ok: true,
      settings: expect.objectContaining({
        port: 8787,
        host: '127.0.0.1',
        dataDir: './.poolparty',
        databaseUrl: null,
        environment: 'devnet',
        ledger: 'local',
        role: 'all',
        devnetApiKey: null,
        logLevel: 'info',
        logFormat: 'auto',
      }),
    });
    expect(result.ok && devnetEnabled(result.settings)).toBe(true);
  });

  it('prefers a flag over the environment variable', () => {
    const result = readSettings({ PORT: '9000' }, { port: '9001' });
    expect(result.ok && result.settings.port).toBe(9001);
  });

  it('reports every mistake on its own line naming the setting', () => {
    const result = readSettings({
      PORT: '70000',
      POOLPARTY_ENV: 'staging',
      DATABASE_URL: 'mysql://x',
      LOG_LEVEL: 'loud',
      POOLPARTY_DEVNET_API_KEY: 'secret',
    });
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toHaveLength(5);
    for (const name of [
      'PORT',
      'POOLPARTY_ENV',
      'DATABASE_URL',
      'LOG_LEVEL',
      'POOLPARTY_DEVNET_API_KEY',
    ]) {
      expect(errors.filter((line) => line.startsWith(`${name} `))).toHaveLength(1);
    }
  });

  it('names the flag when the flag was wrong', () => {
    const result = readSettings({}, { role: 'boss' });
    expect(result.ok ? [] : result.errors).toEqual([
      '--role must be one of all, api, worker (got "boss")',
    ]);
  });

  it('refuses combinations that cannot work', () => {
    const canton = readSettings({ LEDGER: 'canton' });
    expect(canton.ok ? [] : canton.errors).toEqual([
      'CANTON_LEDGER_API_URL is required when LEDGER=canton',
      'CANTON_REGISTRY_URL is required when LEDGER=canton',
    ]);
    const worker = readSettings({ POOLPARTY_ROLE: 'worker' });
    expect(worker.ok).toBe(false);
    const mainnetKey = readSettings({
      POOLPARTY_ENV: 'mainnet',
      LEDGER: 'local',
      POOLPARTY_DEVNET_API_KEY: 'pp_test_abcdefghijklmnopqrstuvwxyz',
    });
    expect(mainnetKey.ok).toBe(false);
  });

  it('disables the devnet endpoints on mainnet', () => {
    const result = readSettings({ POOLPARTY_ENV: 'mainnet', LEDGER: 'local' });
    expect(result.ok && devnetEnabled(result.settings)).toBe(false);
  });

  it('refuses mainnet without an explicit LEDGER, in one line', () => {
    expect(readSettings({ POOLPARTY_ENV: 'mainnet' })).toEqual({
      ok: false,
      errors: [
        'POOLPARTY_ENV=mainnet needs LEDGER set (canton for a participant): unset, it would run on the embedded devnet ledger',
      ],
    });
    expect(readSettings({}, { env: 'mainnet' }).ok).toBe(false);
    expect(readSettings({ POOLPARTY_ENV: 'mainnet' }, { ledger: 'local' }).ok).toBe(true);
    const canton = readSettings({
      POOLPARTY_ENV: 'mainnet',
      LEDGER: 'canton',
      CANTON_LEDGER_API_URL: 'https://participant.example/api',
      CANTON_REGISTRY_URL: 'https://registry.example',
    });
    expect(canton.ok && canton.settings.ledger).toBe('canton');
  });

  it('parses the devnet control origins, refusing * and non-origins by name', () => {
    const none = readSettings({});
    expect(none.ok && none.settings.devnetControlOrigins).toEqual([]);
    const ok = readSettings(
      {},
      { devnetControlOrigins: 'https://console.example,http://localhost:5173' },
    );
    expect(ok.ok && ok.settings.devnetControlOrigins).toEqual([
      'https://console.example',
      'http://localhost:5173',
    ]);
    expect(readSettings({ POOLPARTY_DEVNET_CONTROL_ORIGINS: '*' })).toEqual({
      ok: false,
      errors: [
        'POOLPARTY_DEVNET_CONTROL_ORIGINS must list origins; * is not accepted here (got "*")',
      ],
    });
    expect(readSettings({}, { devnetControlOrigins: 'https://a.example/path' })).toEqual({
      ok: false,
      errors: [
        '--devnet-control-origins has "https://a.example/path", which is not an origin like https://app.example (got "https://a.example/path")',
      ],
    });
  });

  it('parses CORS origins', () => {
    const ok = readSettings({ POOLPARTY_CORS_ORIGINS: 'https://a.example, http://localhost:5173' });
    expect(ok.ok && ok.settings.corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    const bad = readSettings({ POOLPARTY_CORS_ORIGINS: 'a.example' });
    expect(bad.ok).toBe(false);
  });
});

describe('LOG_FORMAT', () => {
  it('is pretty on a terminal and JSON otherwise, unless set', () => {
    expect(effectiveLogFormat('auto', true)).toBe('pretty');
    expect(effectiveLogFormat('auto', false)).toBe('json');
    expect(effectiveLogFormat('json', true)).toBe('json');
    expect(effectiveLogFormat('pretty', false)).toBe('pretty');
  });

  it('is read from --log-format and refused by name when unknown', () => {
    const flagged = readSettings({ LOG_FORMAT: 'json' }, { logFormat: 'pretty' });
    expect(flagged.ok && flagged.settings.logFormat).toBe('pretty');
    expect(readSettings({}, { logFormat: 'yaml' })).toEqual({
      ok: false,
      errors: ['--log-format must be one of auto, pretty, json (got "yaml")'],
    });
  });
});

describe('readStoreLocation', () => {
  it('reads where the store is and nothing meant for serve', () => {
    const result = readStoreLocation(
      { PORT: 'not-a-port', POOLPARTY_ROLE: 'boss', DATABASE_URL: 'postgres://db/pp' },
      { dataDir: '/srv/pp' },
    );
    expect(result).toEqual({
      ok: true,
      settings: { dataDir: '/srv/pp', databaseUrl: 'postgres://db/pp' },
    });
  });

  it('still refuses a wrong location by name', () => {
    expect(readStoreLocation({ DATABASE_URL: 'mysql://db' })).toEqual({
      ok: false,
      errors: ['DATABASE_URL must be a postgres: or postgresql: URL (got "mysql://db")'],
    });
  });
});

describe('maskDatabaseUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(maskDatabaseUrl('postgres://ops:hunter2@db.internal:5432/pp?sslmode=require')).toBe(
      'postgres://ops:****@db.internal:5432/pp?sslmode=require',
    );
    expect(maskDatabaseUrl('postgres://ops@db/pp')).toBe('postgres://ops@db/pp');
  });
});
