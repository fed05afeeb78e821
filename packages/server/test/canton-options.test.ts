/**
 * `LEDGER=canton` settings → the Canton adapter's options: what an operator types, as a table of
 * environments and the options (or the one-line refusals) they give.
 */
import { describe, expect, it } from 'vitest';
import { cantonLedgerOptionsOf, describeCantonAuth } from '../src/canton-options.js';
import { readSettings } from '../src/config.js';

const BASE = {
  LEDGER: 'canton',
  CANTON_LEDGER_API_URL: 'http://localhost:2975',
  CANTON_REGISTRY_URL: 'http://localhost:2000/api/validator/v0/scan-proxy',
  CANTON_SCAN_PROXY_URL: 'http://localhost:2000/api/validator',
  CANTON_USER_ID: 'poolparty',
};

const EXPECTED_BASE = {
  ledgerApiUrl: 'http://localhost:2975',
  userId: 'poolparty',
  registries: { defaultUrl: 'http://localhost:2000/api/validator/v0/scan-proxy' },
  scanProxyUrl: 'http://localhost:2000/api/validator',
};

const ACCEPTED: readonly {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly options: unknown;
}[] = [
  {
    name: 'no auth settings: no token',
    env: {},
    options: { ...EXPECTED_BASE, auth: { kind: 'none' } },
  },
  {
    name: 'a fixed token',
    env: { CANTON_ACCESS_TOKEN: 'eyJhbGciOi.x.y' },
    options: { ...EXPECTED_BASE, auth: { kind: 'static', token: 'eyJhbGciOi.x.y' } },
  },
  {
    name: 'LocalNet HS256',
    env: { CANTON_AUTH_SECRET: 'unsafe', CANTON_AUTH_AUDIENCE: 'https://canton.network.global' },
    options: {
      ...EXPECTED_BASE,
      auth: { kind: 'hs256', secret: 'unsafe', audience: 'https://canton.network.global' },
    },
  },
  {
    name: 'OAuth 2.0 client credentials, no scope or audience',
    env: {
      CANTON_OAUTH_TOKEN_URL: 'https://idp.example/oauth/token',
      CANTON_OAUTH_CLIENT_ID: 'poolparty',
      CANTON_OAUTH_CLIENT_SECRET: 's3cret',
    },
    options: {
      ...EXPECTED_BASE,
      auth: {
        kind: 'oauth2',
        tokenUrl: 'https://idp.example/oauth/token',
        clientId: 'poolparty',
        clientSecret: 's3cret',
      },
    },
  },
  {
    name: 'OAuth 2.0 with scope and audience',
    env: {
      CANTON_OAUTH_TOKEN_URL: 'https://idp.example/oauth/token',
      CANTON_OAUTH_CLIENT_ID: 'poolparty',
      CANTON_OAUTH_CLIENT_SECRET: 's3cret',
      CANTON_OAUTH_SCOPE: 'daml_ledger_api',
      CANTON_OAUTH_AUDIENCE: 'https://validator.example',
    },
    options: {
      ...EXPECTED_BASE,
      auth: {
        kind: 'oauth2',
        tokenUrl: 'https://idp.example/oauth/token',
        clientId: 'poolparty',
        clientSecret: 's3cret',
        scope: 'daml_ledger_api',
        audience: 'https://validator.example',
      },
    },
  },
  {
    name: 'registries of their own for two admins',
    env: {
      CANTON_REGISTRY_URLS:
        'circle::1220ab=https://registry.circle.example, issuer::1220cd=http://localhost:5080/reg',
    },
    options: {
      ...EXPECTED_BASE,
      auth: { kind: 'none' },
      registries: {
        defaultUrl: EXPECTED_BASE.registries.defaultUrl,
        byAdmin: {
          'circle::1220ab': 'https://registry.circle.example',
          'issuer::1220cd': 'http://localhost:5080/reg',
        },
      },
    },
  },
];

const REFUSED: readonly {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly flags?: Record<string, string>;
  readonly errors: readonly string[];
}[] = [
  {
    name: 'two ways to authenticate',
    env: { CANTON_ACCESS_TOKEN: 't', CANTON_AUTH_SECRET: 'unsafe', CANTON_AUTH_AUDIENCE: 'aud' },
    errors: [
      'LEDGER=canton takes one way to authenticate, but CANTON_ACCESS_TOKEN and CANTON_AUTH_SECRET+CANTON_AUTH_AUDIENCE are set: keep CANTON_ACCESS_TOKEN, or CANTON_AUTH_SECRET+CANTON_AUTH_AUDIENCE, or the CANTON_OAUTH_* settings',
    ],
  },
  {
    name: 'a token and an OAuth scope',
    env: { CANTON_ACCESS_TOKEN: 't', CANTON_OAUTH_SCOPE: 'daml_ledger_api' },
    errors: [
      'LEDGER=canton takes one way to authenticate, but CANTON_ACCESS_TOKEN and CANTON_OAUTH_SCOPE are set: keep CANTON_ACCESS_TOKEN, or CANTON_AUTH_SECRET+CANTON_AUTH_AUDIENCE, or the CANTON_OAUTH_* settings',
    ],
  },
  {
    name: 'a secret without its audience',
    env: { CANTON_AUTH_SECRET: 'unsafe' },
    errors: ['CANTON_AUTH_SECRET needs CANTON_AUTH_AUDIENCE'],
  },
  {
    name: 'an OAuth client without its secret',
    env: {
      CANTON_OAUTH_TOKEN_URL: 'https://idp.example/token',
      CANTON_OAUTH_CLIENT_ID: 'pp',
    },
    errors: ['CANTON_OAUTH_TOKEN_URL and CANTON_OAUTH_CLIENT_ID need CANTON_OAUTH_CLIENT_SECRET'],
  },
  {
    name: 'an OAuth audience alone',
    env: { CANTON_OAUTH_AUDIENCE: 'aud' },
    errors: [
      'CANTON_OAUTH_AUDIENCE needs CANTON_OAUTH_TOKEN_URL and CANTON_OAUTH_CLIENT_ID and CANTON_OAUTH_CLIENT_SECRET',
    ],
  },
  {
    name: 'a registry entry without =',
    env: { CANTON_REGISTRY_URLS: 'circle::1220ab=https://r.example,issuer::1220cd' },
    errors: [
      'CANTON_REGISTRY_URLS has "issuer::1220cd", which is not admin=url (e.g. DSO::1220…=https://registry.example) (got "circle::1220ab=https://r.example,issuer::1220cd")',
    ],
  },
  {
    name: 'a registry entry with a bad URL, given as a flag',
    env: {},
    flags: { cantonRegistryUrls: 'circle::1220ab=ftp://r.example' },
    errors: [
      '--canton-registry-urls has "circle::1220ab=ftp://r.example", whose URL is not an http or https URL (got "circle::1220ab=ftp://r.example")',
    ],
  },
  {
    name: 'one admin twice',
    env: { CANTON_REGISTRY_URLS: 'a::1=http://x.example,a::1=http://y.example' },
    errors: [
      'CANTON_REGISTRY_URLS names "a::1" twice (got "a::1=http://x.example,a::1=http://y.example")',
    ],
  },
  {
    name: 'a scan proxy that is not a URL',
    env: { CANTON_SCAN_PROXY_URL: 'validator:2000' },
    errors: ['CANTON_SCAN_PROXY_URL must be a http: or https: URL (got "validator:2000")'],
  },
];

describe('LEDGER=canton settings', () => {
  for (const row of ACCEPTED) {
    it(`maps ${row.name}`, () => {
      const result = readSettings({ ...BASE, ...row.env });
      if (!result.ok) throw new Error(result.errors.join('\n'));
      expect(cantonLedgerOptionsOf(result.settings)).toEqual(row.options);
    });
  }

  for (const row of REFUSED) {
    it(`refuses ${row.name}, in one line`, () => {
      expect(readSettings({ ...BASE, ...row.env }, row.flags)).toEqual({
        ok: false,
        errors: row.errors,
      });
    });
  }

  it('names every missing required setting in one line, flags counting as given', () => {
    expect(
      readSettings(
        { LEDGER: 'canton', CANTON_USER_ID: 'poolparty' },
        { cantonLedgerApiUrl: 'http://localhost:2975' },
      ),
    ).toEqual({
      ok: false,
      errors: [
        'LEDGER=canton needs CANTON_REGISTRY_URL, CANTON_SCAN_PROXY_URL (or their --canton-… flags)',
      ],
    });
  });

  it('ignores the Canton settings on the embedded ledger', () => {
    const result = readSettings({ CANTON_AUTH_SECRET: 'unsafe' });
    expect(result.ok && result.settings.ledger).toBe('local');
  });

  it('describes the way it authenticates without printing a secret', () => {
    const lines = ACCEPTED.map((row) => {
      const result = readSettings({ ...BASE, ...row.env });
      if (!result.ok) throw new Error(result.errors.join('\n'));
      return describeCantonAuth(cantonLedgerOptionsOf(result.settings).auth);
    });
    expect(lines.slice(0, 4)).toEqual([
      'no token (the participant must not require one)',
      'fixed bearer token',
      'self-signed HS256 tokens for https://canton.network.global',
      'OAuth 2.0 client poolparty at https://idp.example/oauth/token',
    ]);
    for (const line of lines) {
      expect(line).not.toContain('unsafe');
      expect(line).not.toContain('s3cret');
      expect(line).not.toContain('eyJhbGciOi');
    }
  });
});
