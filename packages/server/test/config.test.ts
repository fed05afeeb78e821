import { Amount } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  devnetEnabled,
  effectiveLogFormat,
  maskDatabaseUrl,
  readSettings,
  readStoreLocation,
  readTreasurySettings,
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

  it('parses the portal origins, refusing * and non-origins by name', () => {
    const none = readSettings({});
    expect(none.ok && none.settings.portalOrigins).toEqual([]);
    const ok = readSettings({
      POOLPARTY_PORTAL_ORIGINS: 'https://console.example, http://localhost:5173',
    });
    expect(ok.ok && ok.settings.portalOrigins).toEqual([
      'https://console.example',
      'http://localhost:5173',
    ]);
    expect(readSettings({}, { portalOrigins: 'https://a.example' })).toMatchObject({
      ok: true,
      settings: { portalOrigins: ['https://a.example'] },
    });
    expect(readSettings({ POOLPARTY_PORTAL_ORIGINS: 'https://a.example,*' })).toEqual({
      ok: false,
      errors: [
        'POOLPARTY_PORTAL_ORIGINS must list origins; * is not accepted here (got "https://a.example,*")',
      ],
    });
    expect(readSettings({}, { portalOrigins: 'console.example' })).toEqual({
      ok: false,
      errors: [
        '--portal-origins has "console.example", which is not an origin like https://app.example (got "console.example")',
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

describe('HTTP timeouts, connection caps and stream caps', () => {
  it('defaults to bounds that end an unfinished request within a minute', () => {
    const result = readSettings({});
    expect(result).toEqual({
      ok: true,
      settings: expect.objectContaining({
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 5_000,
        connectionsMax: 10_000,
        connectionsPerAddressMax: 2_500,
        streamsPerPartyMax: 50,
        streamsPerKeyMax: 200,
      }),
    });
  });

  it('reads each from its variable, a flag winning over it', () => {
    const result = readSettings(
      {
        POOLPARTY_HEADERS_TIMEOUT_MS: '2000',
        POOLPARTY_REQUEST_TIMEOUT_MS: '4000',
        POOLPARTY_KEEP_ALIVE_TIMEOUT_MS: '1000',
        POOLPARTY_CONNECTIONS_MAX: '50000',
        POOLPARTY_CONNECTIONS_PER_ADDRESS_MAX: '50000',
        POOLPARTY_STREAMS_PER_PARTY_MAX: '5',
        POOLPARTY_STREAMS_PER_KEY_MAX: '1000',
      },
      { requestTimeoutMs: '6000', streamsPerPartyMax: '7' },
    );
    expect(result.ok && result.settings).toMatchObject({
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 6_000,
      keepAliveTimeoutMs: 1_000,
      connectionsMax: 50_000,
      connectionsPerAddressMax: 50_000,
      streamsPerPartyMax: 7,
      streamsPerKeyMax: 1_000,
    });
  });

  it('refuses values out of range or not whole numbers, one line each naming the setting', () => {
    const result = readSettings({
      POOLPARTY_HEADERS_TIMEOUT_MS: '999',
      POOLPARTY_REQUEST_TIMEOUT_MS: '600001',
      POOLPARTY_KEEP_ALIVE_TIMEOUT_MS: '5s',
      POOLPARTY_CONNECTIONS_MAX: '0',
      POOLPARTY_CONNECTIONS_PER_ADDRESS_MAX: '-1',
      POOLPARTY_STREAMS_PER_PARTY_MAX: '1001',
      POOLPARTY_STREAMS_PER_KEY_MAX: '1e2',
    });
    expect(result.ok ? [] : result.errors).toEqual([
      'POOLPARTY_HEADERS_TIMEOUT_MS must be a whole number from 1000 to 600000 (got "999")',
      'POOLPARTY_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 600000 (got "600001")',
      'POOLPARTY_KEEP_ALIVE_TIMEOUT_MS must be a whole number from 1000 to 600000 (got "5s")',
      'POOLPARTY_CONNECTIONS_MAX must be a whole number from 1 to 1000000 (got "0")',
      'POOLPARTY_CONNECTIONS_PER_ADDRESS_MAX must be a whole number from 1 to 1000000 (got "-1")',
      'POOLPARTY_STREAMS_PER_PARTY_MAX must be a whole number from 1 to 1000 (got "1001")',
      'POOLPARTY_STREAMS_PER_KEY_MAX must be a whole number from 1 to 1000 (got "1e2")',
    ]);
  });

  it('names the flag when the flag was wrong', () => {
    expect(readSettings({}, { connectionsPerAddressMax: '' })).toEqual({
      ok: false,
      errors: ['--connections-per-address-max must be a whole number from 1 to 1000000 (got "")'],
    });
  });

  it('refuses a request timeout shorter than the headers timeout', () => {
    expect(
      readSettings({
        POOLPARTY_HEADERS_TIMEOUT_MS: '20000',
        POOLPARTY_REQUEST_TIMEOUT_MS: '15000',
      }),
    ).toEqual({
      ok: false,
      errors: [
        'POOLPARTY_REQUEST_TIMEOUT_MS (15000) must be at least POOLPARTY_HEADERS_TIMEOUT_MS (20000): the headers are part of the request',
      ],
    });
    const equal = readSettings({ POOLPARTY_REQUEST_TIMEOUT_MS: '10000' });
    expect(equal.ok && equal.settings.requestTimeoutMs).toBe(10_000);
  });
});

describe('the pool holdings target', () => {
  it('is 8 holdings per side unless an instrument is given its own', () => {
    const defaults = readSettings({});
    expect(defaults.ok && defaults.settings.poolHoldingsTarget).toEqual({ '*': 8 });
    const given = readSettings({}, { poolHoldingsTarget: 'CBTC=4, *=16' });
    expect(given.ok && given.settings.poolHoldingsTarget).toEqual({ CBTC: 4, '*': 16 });
  });

  it('refuses a count out of 1 to 64, a malformed entry and an instrument named twice', () => {
    const refusal = (text: string) => {
      const result = readSettings({ POOLPARTY_POOL_HOLDINGS_TARGET: text });
      return result.ok ? null : result.errors;
    };
    const shape = 'which is not instrument=count, a count from 1 to 64 (e.g. CBTC=4 or *=8)';
    expect(refusal('*=0')).toEqual([
      `POOLPARTY_POOL_HOLDINGS_TARGET has "*=0", ${shape} (got "*=0")`,
    ]);
    expect(refusal('Amulet=65')).toEqual([
      `POOLPARTY_POOL_HOLDINGS_TARGET has "Amulet=65", ${shape} (got "Amulet=65")`,
    ]);
    expect(refusal('8')).toEqual([`POOLPARTY_POOL_HOLDINGS_TARGET has "8", ${shape} (got "8")`]);
    expect(refusal('CBTC=2,CBTC=3')).toEqual([
      'POOLPARTY_POOL_HOLDINGS_TARGET names "CBTC" twice (got "CBTC=2,CBTC=3")',
    ]);
  });
});

describe('treasury settings', () => {
  const TREASURY = `treasury::1220${'ab'.repeat(32)}`;

  it('are off without a party, swept daily above nothing, keeping 50 Amulet', () => {
    const result = readSettings({});
    expect(result.ok && result.settings).toMatchObject({
      treasuryParty: null,
      treasurySweepIntervalMs: 86_400_000,
      treasurySweepThresholds: { '*': Amount.ZERO },
      treasuryNetworkReserve: { Amulet: Amount.parse('50') },
      treasurySweepPoolsMax: 100,
    });
  });

  it('read a party and amounts per instrument', () => {
    const result = readSettings({
      POOLPARTY_TREASURY_PARTY: TREASURY,
      POOLPARTY_TREASURY_SWEEP_THRESHOLDS: 'Amulet=1000, USDCx=100.5,*=1',
      POOLPARTY_TREASURY_NETWORK_RESERVE: 'Amulet=20',
    });
    expect(result.ok && result.settings).toMatchObject({
      treasuryParty: TREASURY,
      treasurySweepThresholds: {
        Amulet: Amount.parse('1000'),
        USDCx: Amount.parse('100.5'),
        '*': Amount.parse('1'),
      },
      treasuryNetworkReserve: { Amulet: Amount.parse('20') },
    });
  });

  it('refuse a malformed party id and malformed amounts, one line each naming the setting', () => {
    const result = readSettings({
      POOLPARTY_TREASURY_PARTY: 'treasury',
      POOLPARTY_TREASURY_SWEEP_THRESHOLDS: 'Amulet=-1',
      POOLPARTY_TREASURY_NETWORK_RESERVE: 'Amulet=1,Amulet=2',
      POOLPARTY_TREASURY_SWEEP_INTERVAL_MS: '1000',
    });
    expect(result.ok ? [] : result.errors).toEqual([
      'POOLPARTY_TREASURY_PARTY must be a party id like treasury::1220… (party id must be <hint>::<fingerprint>) (got "treasury")',
      'POOLPARTY_TREASURY_SWEEP_INTERVAL_MS must be a whole number from 60000 to 2592000000 (got "1000")',
      'POOLPARTY_TREASURY_SWEEP_THRESHOLDS has "Amulet=-1", which is not instrument=amount (e.g. Amulet=100 or *=0) (got "Amulet=-1")',
      'POOLPARTY_TREASURY_NETWORK_RESERVE names "Amulet" twice (got "Amulet=1,Amulet=2")',
    ]);
  });

  it('are what admin treasury reads, by flag or variable', () => {
    expect(readTreasurySettings({}, { treasuryParty: TREASURY })).toEqual({
      ok: true,
      settings: { treasuryParty: TREASURY, treasuryNetworkReserve: { Amulet: Amount.parse('50') } },
    });
    expect(readTreasurySettings({ POOLPARTY_TREASURY_PARTY: 'x::y' })).toMatchObject({ ok: false });
  });
});
