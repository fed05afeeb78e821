/**
 * The settings of `poolparty devnet-ledger`: each a `--flag` and an environment variable (the
 * flag wins). Kept apart from the server so `--help` and a wrong setting answer without loading it.
 */
export interface DevnetLedgerSettings {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly authSecret: string | null;
}

export const DEVNET_LEDGER_SETTINGS = [
  {
    key: 'port',
    flag: 'port',
    env: 'POOLPARTY_DEVNET_LEDGER_PORT',
    description: 'port to listen on (0: any free port)',
    defaultValue: '2975',
  },
  {
    key: 'host',
    flag: 'host',
    env: 'POOLPARTY_DEVNET_LEDGER_HOST',
    description: 'address to listen on',
    defaultValue: '127.0.0.1',
  },
  {
    key: 'dataDir',
    flag: 'data-dir',
    env: 'POOLPARTY_DEVNET_LEDGER_DATA_DIR',
    description: 'folder of the ledger and its devnet.json',
    defaultValue: './.poolparty-devnet-ledger',
  },
  {
    key: 'authSecret',
    flag: 'auth-secret',
    env: 'POOLPARTY_DEVNET_LEDGER_AUTH_SECRET',
    description: 'HS256 secret of bearer tokens on /v2 (unset: no auth)',
    defaultValue: '',
  },
] as const;

type Flags = Readonly<Record<string, string | undefined>>;

/** The settings from flags (by camel-cased key) over the environment, or what is wrong. */
export function readDevnetLedgerSettings(
  env: NodeJS.ProcessEnv,
  flags: Flags,
): { ok: true; settings: DevnetLedgerSettings } | { ok: false; errors: string[] } {
  const raw: Record<string, string> = {};
  for (const setting of DEVNET_LEDGER_SETTINGS) {
    raw[setting.key] = flags[setting.key] ?? env[setting.env] ?? setting.defaultValue;
  }
  const errors: string[] = [];
  const port = Number(raw.port);
  if (!(/^\d+$/.test(raw.port ?? '') && port <= 65_535)) {
    errors.push(
      `--port / POOLPARTY_DEVNET_LEDGER_PORT must be a port number (0-65535), not "${raw.port}"`,
    );
  }
  for (const key of ['host', 'dataDir'] as const) {
    if (!raw[key]) errors.push(`${key} must not be empty`);
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    settings: {
      host: raw.host as string,
      port,
      dataDir: raw.dataDir as string,
      authSecret: raw.authSecret ? raw.authSecret : null,
    },
  };
}
