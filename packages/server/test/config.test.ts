import { describe, expect, it } from 'vitest';
import {
  devnetEnabled,
  effectiveLogFormat,
  maskDatabaseUrl,
  readSettings,
  readStoreLocation,
} from '../src/config.js';

/** The least a process on a participant is given. */
const CANTON = {
  LEDGER: 'canton',
  CANTON_LEDGER_API_URL: 'https://participant.example/api',
  CANTON_REGISTRY_URL: 'https://registry.example',
  CANTON_SCAN_PROXY_URL: 'https://validator.example/api/validator',
  CANTON_USER_ID: 'poolparty',
};

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
      'LEDGER=canton needs CANTON_LEDGER_API_URL, CANTON_REGISTRY_URL, CANTON_SCAN_PROXY_URL, CANTON_USER_ID (or their --canton-… flags)',
    ]);
    const worker = readSettings({ POOLPARTY_ROLE: 'worker' });
    expect(worker.ok).toBe(false);
    const mainnetKey = readSettings({
      POOLPARTY_ENV: 'mainnet',
      ...CANTON,
      POOLPARTY_DEVNET_API_KEY: 'pp_test_abcdefghijklmnopqrstuvwxyz',
    });
    expect(mainnetKey.ok ? [] : mainnetKey.errors).toEqual([
      'POOLPARTY_DEVNET_API_KEY only applies when POOLPARTY_ENV=devnet',
    ]);
  });

  it('refuses an api or worker process on the embedded ledger, in one line', () => {
    for (const role of ['api', 'worker']) {
      expect(
        readSettings({ POOLPARTY_ROLE: role, DATABASE_URL: 'postgres://db/pp', LEDGER: 'local' }),
      ).toEqual({
        ok: false,
        errors: [
          `POOLPARTY_ROLE=${role} needs a ledger every process reaches: LEDGER=canton, against a participant or \`poolparty devnet-ledger\` (the embedded ledger belongs to one process)`,
        ],
      });
    }
    const onCanton = readSettings({
      POOLPARTY_ROLE: 'worker',
      DATABASE_URL: 'postgres://db/pp',
      ...CANTON,
    });
    expect(onCanton.ok && onCanton.settings.role).toBe('worker');
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
