/**
 * From the service's settings to the Canton adapter's options (`LEDGER=canton`): which
 * participant, which user, how to authenticate, which registries and which validator. Pure, so
 * every combination an operator can type is checked by a table test, and `readSettings` reports
 * a wrong one before anything starts.
 */
import type { CantonAuth, CantonLedgerOptions } from '@poolparty/ledger';

/** The `CANTON_*` settings (part of config.ts `Settings`; each is a variable and a flag). */
export interface CantonSettings {
  /** JSON Ledger API base URL of the participant, for `LEDGER=canton`. */
  readonly cantonLedgerApiUrl: string | null;
  /** Token-standard registry base URL of instruments without their own, for `LEDGER=canton`. */
  readonly cantonRegistryUrl: string | null;
  /** Registry base URLs by instrument admin party, where an admin runs its own registry. */
  readonly cantonRegistryUrls: Readonly<Record<string, string>>;
  /** The validator's API base URL (scan proxy: mining rounds, Amulet rules), for `LEDGER=canton`. */
  readonly cantonScanProxyUrl: string | null;
  /** The ledger API user the service acts as; its rights say for which parties. */
  readonly cantonUserId: string | null;
  /** A fixed bearer token for the JSON Ledger API (one of three ways to authenticate). */
  readonly cantonAccessToken: string | null;
  /** HS256 secret to sign the service's own tokens with, as LocalNet accepts them. */
  readonly cantonAuthSecret: string | null;
  readonly cantonAuthAudience: string | null;
  /** OAuth 2.0 client-credentials grant at the identity provider of the participant. */
  readonly cantonOauthTokenUrl: string | null;
  readonly cantonOauthClientId: string | null;
  readonly cantonOauthClientSecret: string | null;
  readonly cantonOauthScope: string | null;
  readonly cantonOauthAudience: string | null;
  /** The keys file of external parties the service signs for (party-keys-file.ts). */
  readonly cantonPartyKeysFile: string | null;
}

/** The settings `LEDGER=canton` cannot do without, by environment variable. */
const REQUIRED: readonly (readonly [keyof CantonSettings, string])[] = [
  ['cantonLedgerApiUrl', 'CANTON_LEDGER_API_URL'],
  ['cantonRegistryUrl', 'CANTON_REGISTRY_URL'],
  ['cantonScanProxyUrl', 'CANTON_SCAN_PROXY_URL'],
  ['cantonUserId', 'CANTON_USER_ID'],
];

/** The three ways to authenticate, each with the settings that make it up. */
const AUTH_MODES = {
  static: { required: ['CANTON_ACCESS_TOKEN'], optional: [] },
  hs256: { required: ['CANTON_AUTH_SECRET', 'CANTON_AUTH_AUDIENCE'], optional: [] },
  oauth2: {
    required: ['CANTON_OAUTH_TOKEN_URL', 'CANTON_OAUTH_CLIENT_ID', 'CANTON_OAUTH_CLIENT_SECRET'],
    optional: ['CANTON_OAUTH_SCOPE', 'CANTON_OAUTH_AUDIENCE'],
  },
} as const;

type AuthMode = keyof typeof AUTH_MODES;

function givenByEnv(settings: CantonSettings): ReadonlySet<string> {
  const given = new Set<string>();
  const byEnv: Readonly<Record<string, string | null>> = {
    CANTON_ACCESS_TOKEN: settings.cantonAccessToken,
    CANTON_AUTH_SECRET: settings.cantonAuthSecret,
    CANTON_AUTH_AUDIENCE: settings.cantonAuthAudience,
    CANTON_OAUTH_TOKEN_URL: settings.cantonOauthTokenUrl,
    CANTON_OAUTH_CLIENT_ID: settings.cantonOauthClientId,
    CANTON_OAUTH_CLIENT_SECRET: settings.cantonOauthClientSecret,
    CANTON_OAUTH_SCOPE: settings.cantonOauthScope,
    CANTON_OAUTH_AUDIENCE: settings.cantonOauthAudience,
  };
  for (const [env, value] of Object.entries(byEnv)) if (value !== null) given.add(env);
  return given;
}

/**
 * The way to authenticate the settings choose, or a line saying what is wrong: settings of two
 * ways at once (which one was meant is not for the service to guess), or one way half given.
 * None given is a choice too: a participant without auth (a sandbox) accepts any request.
 */
export function cantonAuthOf(settings: CantonSettings): CantonAuth | { readonly error: string } {
  const given = givenByEnv(settings);
  const modes = (Object.keys(AUTH_MODES) as AuthMode[]).filter((mode) => {
    const { required, optional } = AUTH_MODES[mode];
    return [...required, ...optional].some((env) => given.has(env));
  });
  if (modes.length > 1) {
    const named = modes.map((mode) =>
      [...AUTH_MODES[mode].required, ...AUTH_MODES[mode].optional]
        .filter((env) => given.has(env))
        .join('+'),
    );
    return {
      error: `LEDGER=canton takes one way to authenticate, but ${named.join(' and ')} are set: keep CANTON_ACCESS_TOKEN, or CANTON_AUTH_SECRET+CANTON_AUTH_AUDIENCE, or the CANTON_OAUTH_* settings`,
    };
  }
  const [mode] = modes;
  if (mode === undefined) return { kind: 'none' };
  const missing = AUTH_MODES[mode].required.filter((env) => !given.has(env));
  if (missing.length > 0) {
    const present = AUTH_MODES[mode].required.filter((env) => given.has(env));
    const by =
      present.length > 0 ? present : AUTH_MODES[mode].optional.filter((env) => given.has(env));
    return {
      error: `${by.join(' and ')} ${by.length > 1 ? 'need' : 'needs'} ${missing.join(' and ')}`,
    };
  }
  switch (mode) {
    case 'static':
      return { kind: 'static', token: settings.cantonAccessToken as string };
    case 'hs256':
      return {
        kind: 'hs256',
        secret: settings.cantonAuthSecret as string,
        audience: settings.cantonAuthAudience as string,
      };
    case 'oauth2':
      return {
        kind: 'oauth2',
        tokenUrl: settings.cantonOauthTokenUrl as string,
        clientId: settings.cantonOauthClientId as string,
        clientSecret: settings.cantonOauthClientSecret as string,
        ...(settings.cantonOauthAudience !== null && { audience: settings.cantonOauthAudience }),
        ...(settings.cantonOauthScope !== null && { scope: settings.cantonOauthScope }),
      };
  }
}

/** Every problem of the Canton settings, one line each (empty: `cantonLedgerOptionsOf` works). */
export function cantonSettingProblems(settings: CantonSettings): string[] {
  const problems: string[] = [];
  const missing = REQUIRED.filter(([key]) => settings[key] === null).map(([, env]) => env);
  if (missing.length > 0) {
    problems.push(`LEDGER=canton needs ${missing.join(', ')} (or their --canton-… flags)`);
  }
  const auth = cantonAuthOf(settings);
  if ('error' in auth) problems.push(auth.error);
  return problems;
}

/** The adapter's options; throws when `cantonSettingProblems` has any (readSettings refuses those). */
export function cantonLedgerOptionsOf(settings: CantonSettings): CantonLedgerOptions {
  const problems = cantonSettingProblems(settings);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const auth = cantonAuthOf(settings) as CantonAuth;
  const byAdmin = settings.cantonRegistryUrls;
  return {
    ledgerApiUrl: settings.cantonLedgerApiUrl as string,
    userId: settings.cantonUserId as string,
    auth,
    registries: {
      defaultUrl: settings.cantonRegistryUrl as string,
      ...(Object.keys(byAdmin).length > 0 && { byAdmin }),
    },
    scanProxyUrl: settings.cantonScanProxyUrl as string,
  };
}

/** How the banner and the guide name the way the service authenticates. */
export function describeCantonAuth(auth: CantonAuth): string {
  switch (auth.kind) {
    case 'none':
      return 'no token (the participant must not require one)';
    case 'static':
      return 'fixed bearer token';
    case 'hs256':
      return `self-signed HS256 tokens for ${auth.audience}`;
    case 'oauth2':
      return `OAuth 2.0 client ${auth.clientId} at ${auth.tokenUrl}`;
  }
}
