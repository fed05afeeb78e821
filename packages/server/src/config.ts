/**
 * Service settings (the README's table lists them): each is an environment variable and also a
 * `--flag`. All are read and validated at start, and every mistake is reported on its own line
 * naming the setting, so an operator fixes them in one pass instead of one restart per typo.
 */

import {
  Amount,
  AmountParseError,
  type AmountsByInstrument,
  type Environment,
  type HoldingTargets,
  POOL_HOLDINGS_MAX,
  POOL_HOLDINGS_TARGET_DEFAULT,
  parsePartyId,
} from '@poolparty/core';
import type { StoreLocation } from '@poolparty/store';
import { type CantonSettings, cantonSettingProblems } from './canton-options.js';

export { maskDatabaseUrl } from '@poolparty/store';
export type { Environment };

/**
 * Concurrent event subscriptions per process, over every kind of stream; each is an open SSE
 * response. Past this a stream is refused (429 `rate_limited`) and the SDK polls instead. The
 * per-party and per-key caps below are bounded by it.
 */
export const EVENT_SUBSCRIBERS_MAX = 1_000;

export type LedgerKind = 'local' | 'canton';
export type Role = 'all' | 'api' | 'worker';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** `auto`: human-readable lines on a terminal, JSON lines otherwise (a file, a pipe, a collector). */
export type LogFormat = 'auto' | 'pretty' | 'json';

export interface Settings extends CantonSettings {
  readonly port: number;
  readonly host: string;
  /** Time to receive a request's headers; a client sending them slower is answered 408. */
  readonly headersTimeoutMs: number;
  /** Time to receive a whole request, body included; not the time to answer it. */
  readonly requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections of the process; further ones are closed at once. */
  readonly connectionsMax: number;
  /** Open connections from one client address; behind a reverse proxy every client shares one. */
  readonly connectionsPerAddressMax: number;
  /** Concurrent event streams of one wallet party. */
  readonly streamsPerPartyMax: number;
  /** Concurrent event streams opened with one API key. */
  readonly streamsPerKeyMax: number;
  readonly dataDir: string;
  /** Unset: the embedded PGlite store in `<dataDir>/db`. */
  readonly databaseUrl: string | null;
  /** PostgreSQL connections the process opens at most (its pool); unused on the embedded store. */
  readonly databaseConnections: number;
  readonly environment: Environment;
  readonly ledger: LedgerKind;
  readonly role: Role;
  /** Fixes the seeded developer key on devnet, for scripts. */
  readonly devnetApiKey: string | null;
  /**
   * The developer key the service's own web pages call `/v1` with (public: every visitor's
   * browser sends it). Unset on devnet: the pages' own key (web-app-key.ts).
   */
  readonly appApiKey: string | null;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** The domain named in the first line of wallet challenges. */
  readonly serviceDomain: string;
  /** Origins allowed to call `/v1` from browsers; `*` allows any. */
  readonly corsOrigins: readonly string[];
  /**
   * Browser origins, besides the service's own, that may call the devnet control endpoints
   * (`POST /devnet/clock`, `/oracle`, `/faults`). Never `*`: those calls move the devnet for all.
   */
  readonly devnetControlOrigins: readonly string[];
  /**
   * Browser origins, besides the service's own, whose pages may write to the developer portal
   * with the session cookie (create or revoke keys, collect, sign out). Never `*`.
   */
  readonly portalOrigins: readonly string[];
  /** Where treasury sweeps go (docs/spec/treasury.md); unset: sweeps are off (devnet: seeded). */
  readonly treasuryParty: string | null;
  /** How often the worker sweeps a pool side at most. */
  readonly treasurySweepIntervalMs: number;
  /** A side is swept automatically only when its sweepable fees are above its threshold. */
  readonly treasurySweepThresholds: AmountsByInstrument;
  /** Kept in each side's fees for the network costs of transfers (Amulet's burned fees). */
  readonly treasuryNetworkReserve: AmountsByInstrument;
  /** Pools one round of the schedule looks at, least recently swept first. */
  readonly treasurySweepPoolsMax: number;
  /** Holdings the worker keeps each pool side in, by instrument (core's `holdingsTargetFor`). */
  readonly poolHoldingsTarget: HoldingTargets;
  /**
   * Webhooks may go to addresses that are not public (private, loopback, link-local, …) on
   * mainnet: for a service whose developers' receivers are on its own network.
   */
  readonly webhookAllowPrivate: boolean;
  /** A webhook request, connection to the end of the answer's excerpt, is given up after this. */
  readonly webhookTimeoutMs: number;
  /** Webhook requests one worker has in flight at most, over every endpoint. */
  readonly webhookConcurrency: number;
  /** Webhook requests one worker has in flight to one endpoint at most. */
  readonly webhookPerEndpoint: number;
}

export interface SettingDefinition<K extends keyof Settings> {
  readonly key: K;
  readonly env: string;
  readonly flag: string;
  readonly description: string;
  readonly defaultValue: Settings[K];
  /** Returns the value, or a sentence saying what is wrong with the text given. */
  readonly parse: (text: string) => Settings[K] | SettingProblem;
}

class SettingProblem {
  constructor(readonly message: string) {}
}

const oneOf =
  <T extends string>(...choices: readonly T[]) =>
  (text: string): T | SettingProblem =>
    (choices as readonly string[]).includes(text)
      ? (text as T)
      : new SettingProblem(`must be one of ${choices.join(', ')}`);

const trueOrFalse = (text: string): boolean | SettingProblem =>
  text === 'true' ? true : text === 'false' ? false : new SettingProblem('must be true or false');

const nonEmpty = (text: string): string | SettingProblem =>
  text.trim().length > 0 ? text : new SettingProblem('must not be empty');

const nullableUrl =
  (...protocols: readonly string[]) =>
  (text: string): string | null | SettingProblem => {
    if (text === '') return null;
    try {
      const url = new URL(text);
      if (!protocols.includes(url.protocol)) {
        return new SettingProblem(`must be a ${protocols.join(' or ')} URL`);
      }
      return text;
    } catch {
      return new SettingProblem('is not a valid URL');
    }
  };

const optionalText = (text: string): string | null => (text === '' ? null : text);

/**
 * The `key=value` entries of a comma-separated setting, blanks dropped and both sides trimmed;
 * an entry with no `=`, or nothing before it, has both sides ''. The maps read from one line of
 * settings (registries, amounts by instrument) split it alike, so each judges only its values.
 */
const keyValueEntries = (text: string) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const split = entry.indexOf('=');
      if (split <= 0) return { entry, key: '', value: '' };
      return { entry, key: entry.slice(0, split).trim(), value: entry.slice(split + 1).trim() };
    });

/**
 * `admin=url,admin=url`: the registry of each instrument admin that runs its own. A party id
 * holds neither `=` nor `,`, so both can separate.
 */
const registryMap = (text: string): Readonly<Record<string, string>> | SettingProblem => {
  const registries: Record<string, string> = {};
  for (const { entry, key: admin, value: url } of keyValueEntries(text)) {
    if (admin === '' || url === '') {
      return new SettingProblem(
        `has ${JSON.stringify(entry)}, which is not admin=url (e.g. DSO::1220…=https://registry.example)`,
      );
    }
    if (nullableUrl('http:', 'https:')(url) instanceof SettingProblem) {
      return new SettingProblem(
        `has ${JSON.stringify(entry)}, whose URL is not an http or https URL`,
      );
    }
    if (registries[admin] !== undefined) {
      return new SettingProblem(`names ${JSON.stringify(admin)} twice`);
    }
    registries[admin] = url;
  }
  return registries;
};

/**
 * A table by instrument id, `*` for the instruments not named, read from `id=value` entries:
 * `value` reads one entry's value (null when it is not one), `shape` says what an entry is.
 */
const byInstrument =
  <T>(value: (text: string) => T | null, shape: string) =>
  (text: string): Readonly<Record<string, T>> | SettingProblem => {
    const table: Record<string, T> = {};
    for (const { entry, key: id, value: given } of keyValueEntries(text)) {
      const read = id === '' ? null : value(given);
      if (read === null) {
        return new SettingProblem(`has ${JSON.stringify(entry)}, which is not ${shape}`);
      }
      if (table[id] !== undefined) return new SettingProblem(`names ${JSON.stringify(id)} twice`);
      table[id] = read;
    }
    return table;
  };

/** `Amulet=100,USDCx=10,*=0`: an amount per instrument id, `*` for the instruments not named. */
const amountsByInstrument: (text: string) => AmountsByInstrument | SettingProblem = byInstrument(
  (text) => {
    const amount = Amount.tryParse(text);
    return amount instanceof AmountParseError ? null : amount;
  },
  'instrument=amount (e.g. Amulet=100 or *=0)',
);

const partyId = (text: string): string | SettingProblem => {
  const parsed = parsePartyId(text);
  return parsed.ok
    ? text
    : new SettingProblem(`must be a party id like treasury::1220… (${parsed.message})`);
};

const PORT_MAX = 65_535;
const DEVNET_KEY_PATTERN = /^pp_test_[A-Za-z0-9_-]{24,}$/;
const APP_KEY_PATTERN = /^pp_(live|test)_[A-Za-z0-9_-]{24,}$/;
const DOMAIN_PATTERN = /^[a-z0-9.-]+(:\d+)?$/i;

const ORIGIN_PATTERN = /^https?:\/\/[^/]+$/;

/**
 * Bounds of the HTTP timeouts: under a second cuts off honest clients on a slow link, and over
 * ten minutes would let slow clients hold connections for nearly as long as with no timeout.
 */
const TIMEOUT_MS_MIN = 1_000;
const TIMEOUT_MS_MAX = 600_000;
/** A minute to thirty days between sweeps of a side: more often only pays more network fees. */
const SWEEP_INTERVAL_MS_MIN = 60_000;
const SWEEP_INTERVAL_MS_MAX = 30 * 86_400_000;
const SWEEP_POOLS_MAX_BOUND = 10_000;
/** A receiver gets at least a second, and a stuck one holds a slot a minute at most. */
const WEBHOOK_TIMEOUT_MS_MIN = 1_000;
const WEBHOOK_TIMEOUT_MS_MAX = 60_000;
const WEBHOOK_CONCURRENCY_BOUND = 1_000;
export const DATABASE_CONNECTIONS_DEFAULT = 40;
const DATABASE_CONNECTIONS_BOUND = 1_000;
/** Far above any file-descriptor limit a process gets; a bound only to refuse nonsense. */
const CONNECTIONS_MAX_BOUND = 1_000_000;

/** A whole number from `min` to `max`, written in plain digits. */
const wholeNumber =
  (min: number, max: number) =>
  (text: string): number | SettingProblem => {
    const value = Number(text);
    return /^\d+$/.test(text) && value >= min && value <= max
      ? value
      : new SettingProblem(`must be a whole number from ${min} to ${max}`);
  };

/**
 * `CBTC=4,*=8`: how many holdings a pool side keeps of each instrument id, `*` for the rest; each
 * a whole number from 1 (the side is left as it is) to `POOL_HOLDINGS_MAX`.
 */
const holdingTargets: (text: string) => HoldingTargets | SettingProblem = byInstrument((text) => {
  const count = wholeNumber(1, POOL_HOLDINGS_MAX)(text);
  return count instanceof SettingProblem ? null : count;
}, `instrument=count, a count from 1 to ${POOL_HOLDINGS_MAX} (e.g. CBTC=4 or *=8)`);

/** A comma-separated list of origins; `*` only where `allowAny`. */
const originList =
  (allowAny: boolean) =>
  (text: string): readonly string[] | SettingProblem => {
    const origins = text
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin.length > 0);
    if (!allowAny && origins.includes('*')) {
      return new SettingProblem('must list origins; * is not accepted here');
    }
    const bad = origins.find((origin) => origin !== '*' && !ORIGIN_PATTERN.test(origin));
    return bad === undefined
      ? origins
      : new SettingProblem(
          `has ${JSON.stringify(bad)}, which is not an origin like https://app.example`,
        );
  };

const definitions: { readonly [K in keyof Settings]: SettingDefinition<K> } = {
  port: {
    key: 'port',
    env: 'PORT',
    flag: 'port',
    description: 'TCP port to listen on',
    defaultValue: 8787,
    parse: (text) => {
      const port = Number(text);
      return /^\d+$/.test(text) && port >= 0 && port <= PORT_MAX
        ? port
        : new SettingProblem(`must be a whole number from 0 to ${PORT_MAX}`);
    },
  },
  host: {
    key: 'host',
    env: 'HOST',
    flag: 'host',
    description: 'address to listen on',
    defaultValue: '127.0.0.1',
    parse: nonEmpty,
  },
  headersTimeoutMs: {
    key: 'headersTimeoutMs',
    env: 'POOLPARTY_HEADERS_TIMEOUT_MS',
    flag: 'headers-timeout-ms',
    description: "ms to receive a request's headers; slower clients are answered 408",
    defaultValue: 10_000,
    parse: wholeNumber(TIMEOUT_MS_MIN, TIMEOUT_MS_MAX),
  },
  requestTimeoutMs: {
    key: 'requestTimeoutMs',
    env: 'POOLPARTY_REQUEST_TIMEOUT_MS',
    flag: 'request-timeout-ms',
    description:
      'ms to receive a whole request, body included (at least the headers timeout); slower: 408',
    defaultValue: 30_000,
    parse: wholeNumber(TIMEOUT_MS_MIN, TIMEOUT_MS_MAX),
  },
  keepAliveTimeoutMs: {
    key: 'keepAliveTimeoutMs',
    env: 'POOLPARTY_KEEP_ALIVE_TIMEOUT_MS',
    flag: 'keep-alive-timeout-ms',
    description: 'ms an idle kept-alive connection stays open',
    defaultValue: 5_000,
    parse: wholeNumber(TIMEOUT_MS_MIN, TIMEOUT_MS_MAX),
  },
  connectionsMax: {
    key: 'connectionsMax',
    env: 'POOLPARTY_CONNECTIONS_MAX',
    flag: 'connections-max',
    description: 'open connections per process; further ones are closed at once',
    defaultValue: 10_000,
    parse: wholeNumber(1, CONNECTIONS_MAX_BOUND),
  },
  connectionsPerAddressMax: {
    key: 'connectionsPerAddressMax',
    env: 'POOLPARTY_CONNECTIONS_PER_ADDRESS_MAX',
    flag: 'connections-per-address-max',
    description:
      "open connections per client address (behind a reverse proxy all share the proxy's: raise it)",
    defaultValue: 2_500,
    parse: wholeNumber(1, CONNECTIONS_MAX_BOUND),
  },
  streamsPerPartyMax: {
    key: 'streamsPerPartyMax',
    env: 'POOLPARTY_STREAMS_PER_PARTY_MAX',
    flag: 'streams-per-party-max',
    description: `concurrent event streams per wallet party (the process serves ${EVENT_SUBSCRIBERS_MAX})`,
    defaultValue: 50,
    parse: wholeNumber(1, EVENT_SUBSCRIBERS_MAX),
  },
  streamsPerKeyMax: {
    key: 'streamsPerKeyMax',
    env: 'POOLPARTY_STREAMS_PER_KEY_MAX',
    flag: 'streams-per-key-max',
    description: `concurrent event streams per API key (the process serves ${EVENT_SUBSCRIBERS_MAX})`,
    defaultValue: 200,
    parse: wholeNumber(1, EVENT_SUBSCRIBERS_MAX),
  },
  dataDir: {
    key: 'dataDir',
    env: 'POOLPARTY_DATA_DIR',
    flag: 'data-dir',
    description: 'folder of the embedded store and devnet ledger',
    defaultValue: './.poolparty',
    parse: nonEmpty,
  },
  databaseUrl: {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: 'database-url',
    description: 'PostgreSQL URL; unset: the embedded store in the data folder',
    defaultValue: null,
    parse: nullableUrl('postgres:', 'postgresql:'),
  },
  databaseConnections: {
    key: 'databaseConnections',
    env: 'POOLPARTY_DATABASE_CONNECTIONS',
    flag: 'database-connections',
    description: 'PostgreSQL connections a process opens at most, beside its listening ones',
    // A swap waiting for its pool's lock holds a connection; at 10, at 50 atomic swaps a second
    // on three pools, the api's reads queued behind those waits (bench/README.md).
    defaultValue: DATABASE_CONNECTIONS_DEFAULT,
    parse: wholeNumber(1, DATABASE_CONNECTIONS_BOUND),
  },
  environment: {
    key: 'environment',
    env: 'POOLPARTY_ENV',
    flag: 'env',
    description: 'devnet or mainnet',
    defaultValue: 'devnet',
    parse: oneOf('devnet', 'mainnet'),
  },
  ledger: {
    key: 'ledger',
    env: 'LEDGER',
    flag: 'ledger',
    description: 'ledger adapter: local (embedded devnet ledger) or canton',
    defaultValue: 'local',
    parse: oneOf('local', 'canton'),
  },
  cantonLedgerApiUrl: {
    key: 'cantonLedgerApiUrl',
    env: 'CANTON_LEDGER_API_URL',
    flag: 'canton-ledger-api-url',
    description: "the participant's JSON Ledger API v2 base URL",
    defaultValue: null,
    parse: nullableUrl('http:', 'https:'),
  },
  cantonRegistryUrl: {
    key: 'cantonRegistryUrl',
    env: 'CANTON_REGISTRY_URL',
    flag: 'canton-registry-url',
    description:
      'the token-standard registry base URL (instruments whose admin has none of its own)',
    defaultValue: null,
    parse: nullableUrl('http:', 'https:'),
  },
  cantonRegistryUrls: {
    key: 'cantonRegistryUrls',
    env: 'CANTON_REGISTRY_URLS',
    flag: 'canton-registry-urls',
    description: 'registries by instrument admin: admin=url,admin=url',
    defaultValue: {},
    parse: registryMap,
  },
  cantonScanProxyUrl: {
    key: 'cantonScanProxyUrl',
    env: 'CANTON_SCAN_PROXY_URL',
    flag: 'canton-scan-proxy-url',
    description: 'the validator API base URL, e.g. http://localhost:2000/api/validator',
    defaultValue: null,
    parse: nullableUrl('http:', 'https:'),
  },
  cantonUserId: {
    key: 'cantonUserId',
    env: 'CANTON_USER_ID',
    flag: 'canton-user-id',
    description: 'the ledger API user the service acts as',
    defaultValue: null,
    parse: optionalText,
  },
  cantonAccessToken: {
    key: 'cantonAccessToken',
    env: 'CANTON_ACCESS_TOKEN',
    flag: 'canton-access-token',
    description: 'a fixed bearer token for the JSON Ledger API',
    defaultValue: null,
    parse: optionalText,
  },
  cantonAuthSecret: {
    key: 'cantonAuthSecret',
    env: 'CANTON_AUTH_SECRET',
    flag: 'canton-auth-secret',
    description: 'HS256 secret to sign ledger API tokens with (LocalNet: unsafe)',
    defaultValue: null,
    parse: optionalText,
  },
  cantonAuthAudience: {
    key: 'cantonAuthAudience',
    env: 'CANTON_AUTH_AUDIENCE',
    flag: 'canton-auth-audience',
    description: 'audience of the HS256 tokens (LocalNet: https://canton.network.global)',
    defaultValue: null,
    parse: optionalText,
  },
  cantonOauthTokenUrl: {
    key: 'cantonOauthTokenUrl',
    env: 'CANTON_OAUTH_TOKEN_URL',
    flag: 'canton-oauth-token-url',
    description: "the identity provider's OAuth 2.0 token endpoint (client credentials)",
    defaultValue: null,
    parse: nullableUrl('http:', 'https:'),
  },
  cantonOauthClientId: {
    key: 'cantonOauthClientId',
    env: 'CANTON_OAUTH_CLIENT_ID',
    flag: 'canton-oauth-client-id',
    description: 'OAuth 2.0 client id',
    defaultValue: null,
    parse: optionalText,
  },
  cantonOauthClientSecret: {
    key: 'cantonOauthClientSecret',
    env: 'CANTON_OAUTH_CLIENT_SECRET',
    flag: 'canton-oauth-client-secret',
    description: 'OAuth 2.0 client secret',
    defaultValue: null,
    parse: optionalText,
  },
  cantonOauthScope: {
    key: 'cantonOauthScope',
    env: 'CANTON_OAUTH_SCOPE',
    flag: 'canton-oauth-scope',
    description: 'scope to request with the OAuth 2.0 token (optional)',
    defaultValue: null,
    parse: optionalText,
  },
  cantonOauthAudience: {
    key: 'cantonOauthAudience',
    env: 'CANTON_OAUTH_AUDIENCE',
    flag: 'canton-oauth-audience',
    description: 'audience to request with the OAuth 2.0 token (optional)',
    defaultValue: null,
    parse: optionalText,
  },
  cantonPartyKeysFile: {
    key: 'cantonPartyKeysFile',
    env: 'CANTON_PARTY_KEYS_FILE',
    flag: 'canton-party-keys-file',
    description:
      'a JSON file of the Ed25519 secret keys of external parties the service signs for, {"party::1220…": "<base64>"}, readable by its owner only (optional)',
    defaultValue: null,
    parse: optionalText,
  },
  role: {
    key: 'role',
    env: 'POOLPARTY_ROLE',
    flag: 'role',
    description: 'all, api (HTTP only) or worker (settlement only)',
    defaultValue: 'all',
    parse: oneOf('all', 'api', 'worker'),
  },
  devnetApiKey: {
    key: 'devnetApiKey',
    env: 'POOLPARTY_DEVNET_API_KEY',
    flag: 'devnet-api-key',
    description: 'fixes the seeded developer key (pp_test_…)',
    defaultValue: null,
    parse: (text) =>
      DEVNET_KEY_PATTERN.test(text)
        ? text
        : new SettingProblem('must be pp_test_ followed by at least 24 of [A-Za-z0-9_-]'),
  },
  appApiKey: {
    key: 'appApiKey',
    env: 'POOLPARTY_APP_API_KEY',
    flag: 'app-api-key',
    description: "the developer key the service's web pages call /v1 with (devnet: their own key)",
    defaultValue: null,
    parse: (text) =>
      APP_KEY_PATTERN.test(text)
        ? text
        : new SettingProblem(
            'must be pp_live_ or pp_test_ followed by at least 24 of [A-Za-z0-9_-]',
          ),
  },
  logLevel: {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    description: 'fatal, error, warn, info, debug, trace or silent',
    defaultValue: 'info',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  },
  logFormat: {
    key: 'logFormat',
    env: 'LOG_FORMAT',
    flag: 'log-format',
    description: 'auto (pretty on a terminal, JSON otherwise), pretty or json',
    defaultValue: 'auto',
    parse: oneOf('auto', 'pretty', 'json'),
  },
  serviceDomain: {
    key: 'serviceDomain',
    env: 'POOLPARTY_DOMAIN',
    flag: 'domain',
    description: 'domain named in wallet challenges',
    defaultValue: 'localhost',
    parse: (text) =>
      DOMAIN_PATTERN.test(text)
        ? text
        : new SettingProblem('must be a host name, e.g. swap.example'),
  },
  corsOrigins: {
    key: 'corsOrigins',
    env: 'POOLPARTY_CORS_ORIGINS',
    flag: 'cors-origins',
    description: 'comma-separated origins allowed to call /v1 from browsers, or *',
    defaultValue: ['*'],
    parse: originList(true),
  },
  devnetControlOrigins: {
    key: 'devnetControlOrigins',
    env: 'POOLPARTY_DEVNET_CONTROL_ORIGINS',
    flag: 'devnet-control-origins',
    description:
      "comma-separated browser origins, besides the service's own, allowed to call /devnet/clock, /oracle and /faults",
    defaultValue: [],
    parse: originList(false),
  },
  portalOrigins: {
    key: 'portalOrigins',
    env: 'POOLPARTY_PORTAL_ORIGINS',
    flag: 'portal-origins',
    description:
      "comma-separated browser origins, besides the service's own, whose pages may write to the developer portal with its session cookie",
    defaultValue: [],
    parse: originList(false),
  },
  treasuryParty: {
    key: 'treasuryParty',
    env: 'POOLPARTY_TREASURY_PARTY',
    flag: 'treasury-party',
    description:
      "the operator's treasury party the pools' platform fees are swept to; unset: no sweeps (devnet: the seeded treasury)",
    defaultValue: null,
    parse: partyId,
  },
  treasurySweepIntervalMs: {
    key: 'treasurySweepIntervalMs',
    env: 'POOLPARTY_TREASURY_SWEEP_INTERVAL_MS',
    flag: 'treasury-sweep-interval-ms',
    description: 'ms between automatic sweeps of a pool side, at least',
    defaultValue: 86_400_000,
    parse: wholeNumber(SWEEP_INTERVAL_MS_MIN, SWEEP_INTERVAL_MS_MAX),
  },
  treasurySweepThresholds: {
    key: 'treasurySweepThresholds',
    env: 'POOLPARTY_TREASURY_SWEEP_THRESHOLDS',
    flag: 'treasury-sweep-thresholds',
    description:
      'a side is swept automatically when its sweepable fees are above this: instrument=amount, * for the rest',
    defaultValue: { '*': Amount.ZERO },
    parse: amountsByInstrument,
  },
  treasuryNetworkReserve: {
    key: 'treasuryNetworkReserve',
    env: 'POOLPARTY_TREASURY_NETWORK_RESERVE',
    flag: 'treasury-network-reserve',
    description:
      "kept in each side's fees for what transfers burn: instrument=amount, * for the rest",
    defaultValue: { Amulet: Amount.parse('50') },
    parse: amountsByInstrument,
  },
  treasurySweepPoolsMax: {
    key: 'treasurySweepPoolsMax',
    env: 'POOLPARTY_TREASURY_SWEEP_POOLS_MAX',
    flag: 'treasury-sweep-pools-max',
    description: 'pools one round of automatic sweeps looks at, least recently swept first',
    defaultValue: 100,
    parse: wholeNumber(1, SWEEP_POOLS_MAX_BOUND),
  },
  poolHoldingsTarget: {
    key: 'poolHoldingsTarget',
    env: 'POOLPARTY_POOL_HOLDINGS_TARGET',
    flag: 'pool-holdings-target',
    description: `holdings the worker keeps each pool side in, for swaps and payouts side by side: instrument=count (1 to ${POOL_HOLDINGS_MAX}), * for the rest`,
    defaultValue: { '*': POOL_HOLDINGS_TARGET_DEFAULT },
    parse: holdingTargets,
  },
  webhookAllowPrivate: {
    key: 'webhookAllowPrivate',
    env: 'POOLPARTY_WEBHOOK_ALLOW_PRIVATE',
    flag: 'webhook-allow-private',
    description:
      'true: on mainnet, webhooks may go to private, loopback, link-local, CGNAT and unique-local addresses',
    defaultValue: false,
    parse: trueOrFalse,
  },
  webhookTimeoutMs: {
    key: 'webhookTimeoutMs',
    env: 'POOLPARTY_WEBHOOK_TIMEOUT_MS',
    flag: 'webhook-timeout-ms',
    description:
      'ms a webhook request may take, connecting to reading the answer; slower: a failed attempt',
    defaultValue: 10_000,
    parse: wholeNumber(WEBHOOK_TIMEOUT_MS_MIN, WEBHOOK_TIMEOUT_MS_MAX),
  },
  webhookConcurrency: {
    key: 'webhookConcurrency',
    env: 'POOLPARTY_WEBHOOK_CONCURRENCY',
    flag: 'webhook-concurrency',
    description: 'webhook requests a worker has in flight at most, over every endpoint',
    // A request on a nearby receiver takes a few ms, the round trips around it tens: at 256
    // slots a worker carries thousands of deliveries a second (bench/webhooks.ts).
    defaultValue: 256,
    parse: wholeNumber(1, WEBHOOK_CONCURRENCY_BOUND),
  },
  webhookPerEndpoint: {
    key: 'webhookPerEndpoint',
    env: 'POOLPARTY_WEBHOOK_PER_ENDPOINT',
    flag: 'webhook-per-endpoint',
    description: 'webhook requests a worker has in flight to one endpoint at most',
    defaultValue: 4,
    parse: wholeNumber(1, WEBHOOK_CONCURRENCY_BOUND),
  },
};

export const SETTING_DEFINITIONS = Object.values(definitions) as readonly SettingDefinition<
  keyof Settings
>[];

/**
 * A default as help texts show it: `8787`, `*`, or `unset` / `none` where the setting is off
 * until given (its description says what that means).
 */
export function defaultLabel(value: unknown): string {
  if (value === null || value === '') return 'unset';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
  }
  return String(value);
}

/**
 * A flag's help: what it does, its environment variable and its default. The default is shown in
 * the text, not given to commander as the option's value: a flag's value wins over the
 * environment, so a commander default would hide every environment variable.
 */
export function settingHelp(setting: {
  readonly description: string;
  readonly env: string;
  readonly defaultValue: unknown;
}): string {
  return `${setting.description} [${setting.env}; default: ${defaultLabel(setting.defaultValue)}]`;
}

/** Settings read from the environment: all of them, or every reason they could not be. */
export type SettingsRead<T> =
  | { readonly ok: true; readonly settings: T }
  | { readonly ok: false; readonly errors: readonly string[] };

export type SettingsResult = SettingsRead<Settings>;

/**
 * The settings a command that works on the store alone (`migrate`, `admin …`) reads: where the
 * store is. Nothing else is read, so a `PORT` or `LEDGER` meant for `serve` cannot stop them.
 */
export const STORE_SETTING_KEYS = [
  'dataDir',
  'databaseUrl',
] as const satisfies readonly (keyof Settings)[];

export type { StoreLocation };

export type StoreLocationResult = SettingsRead<StoreLocation>;

/**
 * The settings a command that reads the ledger besides the store (`admin pools add`) reads:
 * which ledger, and on a participant where and as whom.
 */
export const LEDGER_SETTING_KEYS = [
  'ledger',
  'cantonLedgerApiUrl',
  'cantonRegistryUrl',
  'cantonRegistryUrls',
  'cantonScanProxyUrl',
  'cantonUserId',
  'cantonAccessToken',
  'cantonAuthSecret',
  'cantonAuthAudience',
  'cantonOauthTokenUrl',
  'cantonOauthClientId',
  'cantonOauthClientSecret',
  'cantonOauthScope',
  'cantonOauthAudience',
  'cantonPartyKeysFile',
] as const satisfies readonly (keyof Settings)[];

export type LedgerLocation = Pick<Settings, (typeof LEDGER_SETTING_KEYS)[number]>;

/** The settings `admin treasury` reads besides where the store is: where sweeps go, what stays. */
export const TREASURY_SETTING_KEYS = [
  'treasuryParty',
  'treasuryNetworkReserve',
] as const satisfies readonly (keyof Settings)[];

export type TreasurySettings = Pick<Settings, (typeof TREASURY_SETTING_KEYS)[number]>;

export type TreasurySettingsResult = SettingsRead<TreasurySettings>;

export function readTreasurySettings(
  env: Readonly<Record<string, string | undefined>>,
  flags: Readonly<Record<string, string | undefined>> = {},
): TreasurySettingsResult {
  const read = readDefinitions(settingDefinitionsOf(TREASURY_SETTING_KEYS), env, flags);
  return read.ok ? { ok: true, settings: read.values as unknown as TreasurySettings } : read;
}

export type LedgerLocationResult = SettingsRead<LedgerLocation>;

/** Reads which ledger to reach, checking the Canton settings as `serve` does. */
export function readLedgerLocation(
  env: Readonly<Record<string, string | undefined>>,
  flags: Readonly<Record<string, string | undefined>> = {},
): LedgerLocationResult {
  const read = readDefinitions(settingDefinitionsOf(LEDGER_SETTING_KEYS), env, flags);
  if (!read.ok) return read;
  const settings = read.values as unknown as LedgerLocation;
  const errors = settings.ledger === 'canton' ? cantonSettingProblems(settings) : [];
  return errors.length > 0 ? { ok: false, errors } : { ok: true, settings };
}

/** The definitions of `keys`, in the order of `SETTING_DEFINITIONS` (for help texts). */
export function settingDefinitionsOf(
  keys: readonly (keyof Settings)[],
): readonly SettingDefinition<keyof Settings>[] {
  return SETTING_DEFINITIONS.filter((definition) => keys.includes(definition.key));
}

/**
 * Reads settings from flags (by flag name, camel-cased as a CLI library gives them) over the
 * environment over defaults, then checks the combinations.
 */
export function readSettings(
  env: Readonly<Record<string, string | undefined>>,
  flags: Readonly<Record<string, string | undefined>> = {},
): SettingsResult {
  const read = readDefinitions(SETTING_DEFINITIONS, env, flags);
  if (!read.ok) return read;
  const settings = read.values as unknown as Settings;
  const ledgerGiven = flags[camelCase(definitions.ledger.flag)] ?? env[definitions.ledger.env];
  const combinationErrors = checkCombinations(settings, ledgerGiven !== undefined);
  return combinationErrors.length > 0
    ? { ok: false, errors: combinationErrors }
    : { ok: true, settings };
}

/**
 * Reads only where the store is (`POOLPARTY_DATA_DIR`, `DATABASE_URL`) and, when given, which
 * environment it must belong to (`POOLPARTY_ENV`).
 */
export function readStoreLocation(
  env: Readonly<Record<string, string | undefined>>,
  flags: Readonly<Record<string, string | undefined>> = {},
): StoreLocationResult {
  const read = readDefinitions(settingDefinitionsOf(STORE_SETTING_KEYS), env, flags);
  const environmentGiven =
    flags[camelCase(definitions.environment.flag)] ?? env[definitions.environment.env];
  if (environmentGiven === undefined) {
    return read.ok ? { ok: true, settings: read.values as unknown as StoreLocation } : read;
  }
  const environment = readDefinitions([definitions.environment], env, flags);
  if (!read.ok || !environment.ok) {
    return {
      ok: false,
      errors: [...(read.ok ? [] : read.errors), ...(environment.ok ? [] : environment.errors)],
    };
  }
  return {
    ok: true,
    settings: { ...read.values, ...environment.values } as unknown as StoreLocation,
  };
}

function readDefinitions(
  definitions: readonly SettingDefinition<keyof Settings>[],
  env: Readonly<Record<string, string | undefined>>,
  flags: Readonly<Record<string, string | undefined>>,
): { ok: true; values: Record<string, unknown> } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  for (const definition of definitions) {
    const fromFlag = flags[camelCase(definition.flag)];
    const text = fromFlag ?? env[definition.env];
    if (text === undefined) {
      values[definition.key] = definition.defaultValue;
      continue;
    }
    const parsed = definition.parse(text);
    if (parsed instanceof SettingProblem) {
      const source = fromFlag !== undefined ? `--${definition.flag}` : definition.env;
      errors.push(`${source} ${parsed.message} (got ${JSON.stringify(text)})`);
    } else {
      values[definition.key] = parsed;
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values };
}

function checkCombinations(settings: Settings, ledgerGiven: boolean): string[] {
  const errors: string[] = [];
  if (settings.environment === 'mainnet' && !ledgerGiven) {
    // LEDGER defaults to the embedded devnet ledger; mainnet must name its ledger on purpose.
    errors.push(
      'POOLPARTY_ENV=mainnet needs LEDGER set (canton for a participant): unset, it would run on the embedded devnet ledger',
    );
  } else if (settings.environment === 'mainnet' && settings.ledger === 'local') {
    errors.push(
      'POOLPARTY_ENV=mainnet runs on a participant (LEDGER=canton): LEDGER=local is the embedded devnet ledger, whose tokens are not real',
    );
  }
  if (settings.ledger === 'canton') errors.push(...cantonSettingProblems(settings));
  if (settings.requestTimeoutMs < settings.headersTimeoutMs) {
    // The headers are part of the request: the shorter request timeout would cut them off first.
    errors.push(
      `POOLPARTY_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs}) must be at least POOLPARTY_HEADERS_TIMEOUT_MS (${settings.headersTimeoutMs}): the headers are part of the request`,
    );
  }
  if (settings.devnetApiKey !== null && settings.environment !== 'devnet') {
    errors.push('POOLPARTY_DEVNET_API_KEY only applies when POOLPARTY_ENV=devnet');
  }
  if (
    settings.appApiKey !== null &&
    settings.appApiKey.startsWith('pp_test_') !== (settings.environment === 'devnet')
  ) {
    errors.push(
      `POOLPARTY_APP_API_KEY must be a key of this environment (${settings.environment === 'devnet' ? 'pp_test_' : 'pp_live_'}…)`,
    );
  }
  if (settings.role !== 'all' && settings.databaseUrl === null) {
    errors.push(
      `POOLPARTY_ROLE=${settings.role} needs DATABASE_URL: separate processes share work through PostgreSQL`,
    );
  } else if (settings.role !== 'all' && settings.ledger === 'local') {
    // The embedded ledger is a journal one process at a time may open: an api and a worker
    // would each have their own ledger, and see different worlds.
    errors.push(
      `POOLPARTY_ROLE=${settings.role} needs a ledger every process reaches: LEDGER=canton, against a participant or \`poolparty devnet-ledger\` (the embedded ledger belongs to one process)`,
    );
  }
  return errors;
}

function camelCase(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Whether the devnet endpoints and seed exist: devnet mode on the embedded ledger only. */
export function devnetEnabled(settings: Settings): boolean {
  return settings.environment === 'devnet' && settings.ledger === 'local';
}

/** What `LOG_FORMAT=auto` means for this process: pretty lines for a person at a terminal. */
export function effectiveLogFormat(format: LogFormat, stdoutIsTty: boolean): 'pretty' | 'json' {
  if (format !== 'auto') return format;
  return stdoutIsTty ? 'pretty' : 'json';
}
