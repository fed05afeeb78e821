/**
 * The `poolparty` command: `serve` runs the service, `migrate` brings a store's schema up to date,
 * `admin` carries the operator's actions (admin/commands.ts).
 *
 * Every setting (config.ts; the README's table) is an environment variable and also a `--flag` of
 * `serve`, and its help names both and the default. `migrate` and `admin` read only where the
 * store is (`--data-dir`, `--database-url`) and, when given, the environment it must belong to
 * (`--env`), list only those in their help, and never create a store by accident
 * (store/presence.ts). An unknown flag is an error, not silently ignored.
 *
 * The store, the ledger and the HTTP stack take a second or more to load, so they are imported
 * only by the command that needs them, after its settings are checked: a wrong setting or a port
 * in use is reported at once, and `--version` or `--help` answer without loading them.
 */
import { readFileSync } from 'node:fs';
import {
  DEVNET_LEDGER_SETTINGS,
  readDevnetLedgerSettings,
} from '@poolparty/devnet-ledger/settings';
import { Command, Option } from 'commander';
import type { CommandFlags } from './admin/commands.js';
import {
  effectiveLogFormat,
  LEDGER_SETTING_KEYS,
  type LedgerLocation,
  readLedgerLocation,
  readSettings,
  readStoreLocation,
  readTreasurySettings,
  SETTING_DEFINITIONS,
  type SettingDefinition,
  type Settings,
  STORE_SETTING_KEYS,
  type StoreLocation,
  settingDefinitionsOf,
  settingHelp,
  TREASURY_SETTING_KEYS,
} from './config.js';
import { serverPackagePath } from './package-dir.js';
import { probeListen } from './preflight.js';
import { type GuardLog, guardAgainstStoreLoss } from './process-guard.js';
import { progressLine } from './progress-line.js';
import type { RunningService } from './service.js';
import { devnetTreasuryParty } from './treasury/devnet-treasury.js';

/** How long a graceful shutdown may take before the process gives up waiting. */
const SHUTDOWN_GRACE_MS = 10_000;

/** The version operators see: the server package's. */
const VERSION = (
  JSON.parse(readFileSync(serverPackagePath('package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** What a flag's help needs of a setting. */
type FlagHelp = Pick<SettingDefinition<keyof Settings>, 'flag' | 'env' | 'description'> & {
  readonly defaultValue: unknown;
};

function withSettingFlags(command: Command, definitions: readonly FlagHelp[]): Command {
  for (const definition of definitions) {
    command.addOption(new Option(`--${definition.flag} <value>`, settingHelp(definition)));
  }
  return command;
}

/**
 * Where the store is, and the environment it must belong to when the operator names it: unset,
 * a store command works on whichever store it is pointed at (config.ts, `readStoreLocation`).
 */
const withStoreFlags = (command: Command) =>
  withSettingFlags(command, [
    ...settingDefinitionsOf(STORE_SETTING_KEYS),
    ...settingDefinitionsOf(['environment']).map((definition) => ({
      ...definition,
      description: 'devnet or mainnet: refuse a store of the other environment',
      defaultValue: null,
    })),
  ]);

function stringFlags(flags: CommandFlags): Record<string, string | undefined> {
  const strings: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(flags)) {
    if (typeof value === 'string') strings[key] = value;
  }
  return strings;
}

function exitWithErrors(errors: readonly string[]): never {
  for (const line of errors) console.error(`poolparty: ${line}`);
  process.exit(2);
}

function settingsOrExit(flags: Record<string, string | undefined>): Settings {
  const result = readSettings(process.env, flags);
  if (result.ok) return result.settings;
  exitWithErrors(result.errors);
}

function storeLocationOrExit(flags: CommandFlags): StoreLocation {
  const result = readStoreLocation(process.env, stringFlags(flags));
  if (result.ok) return result.settings;
  exitWithErrors(result.errors);
}

async function serve(flags: Record<string, string | undefined>): Promise<void> {
  const settings = settingsOrExit(flags);
  // With JSON logs on stdout (a collector reads it), the human text goes to stderr instead.
  const jsonLogs = effectiveLogFormat(settings.logFormat, process.stdout.isTTY === true) === 'json';
  const say = (text: string) => (jsonLogs ? console.error(text) : console.log(text));
  // Before anything is loaded or created: a port in use costs the operator a moment, not a seed.
  const portProblem = await probeListen(settings.host, settings.port);
  if (portProblem !== null) {
    console.error(`poolparty: ${portProblem}`);
    process.exit(1);
  }
  // Signals are handled from here on, not only once the banner is out: a supervisor (or a test)
  // that stops the service the moment it sees the banner must never catch the process before its
  // handlers exist, which would kill it without a graceful close. A signal during the start is
  // honoured as soon as the service is up.
  let stopGracefully: ((signal: string) => void) | null = null;
  let stopRequested: string | null = null;
  const onSignal = (signal: string) => {
    if (stopGracefully !== null) return stopGracefully(signal);
    if (stopRequested === null)
      console.error(`poolparty: ${signal}: stopping once the start completes`);
    stopRequested ??= signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  const [{ StartupError, startService }, { startupBanner }] = await Promise.all([
    import('./service.js'),
    import('./banner.js'),
  ]);
  let service: RunningService | null = null;
  guardAgainstStoreLoss(() => service?.app.log ?? consoleGuardLog);
  const progress = progressLine(process.stderr);
  try {
    service = await startService(settings, { onProgress: progress.report });
  } catch (error) {
    progress.end();
    console.error(`poolparty: ${error instanceof StartupError ? error.message : String(error)}`);
    process.exit(1);
  }
  progress.end();
  const running = service;
  let stopping = false;
  stopGracefully = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.app.log.info({ signal }, 'shutting down');
    const forced = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    forced.unref();
    // A part that did not close was logged, with its cause, as it failed: the exit code says so.
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  if (stopRequested !== null) return stopGracefully(stopRequested);
  say(startupBanner(running));
}

/** Where the process guard writes before the service, and so its logger, exists. */
const consoleGuardLog: GuardLog = {
  warn: ({ err }, message) => console.error(`poolparty: ${message}: ${String(err)}`),
  fatal: ({ err }, message) => console.error(`poolparty: ${message}:`, err),
};

async function migrateStore(flags: CommandFlags): Promise<void> {
  const location = storeLocationOrExit(flags);
  const { migrateStoreAt, StoreProblem } = await import('@poolparty/store');
  try {
    const { created, applied } = await migrateStoreAt(location, { create: flags.create === true });
    if (created) console.log('created a new store');
    console.log(applied.length > 0 ? `applied ${applied.join(', ')}` : 'the store is up to date');
  } catch (error) {
    if (!(error instanceof StoreProblem)) throw error;
    console.error(`poolparty: ${error.message}`);
    process.exitCode = 1;
  }
}

function ledgerLocationOrExit(flags: CommandFlags): LedgerLocation {
  const result = readLedgerLocation(process.env, stringFlags(flags));
  if (result.ok) return result.settings;
  exitWithErrors(result.errors);
}

/**
 * Where `admin treasury` sweeps to, and what it keeps back: the treasury settings, and without a
 * party on devnet the treasury the devnet seed allocated (its `devnet.json` in the data folder).
 */
function treasuryOrExit(flags: CommandFlags) {
  const result = readTreasurySettings(process.env, stringFlags(flags));
  if (!result.ok) exitWithErrors(result.errors);
  const { treasuryParty, treasuryNetworkReserve } = result.settings;
  return {
    treasuryParty: treasuryParty ?? devnetTreasuryParty(storeLocationOrExit(flags).dataDir),
    networkReserve: treasuryNetworkReserve,
  };
}

/** `poolparty devnet-ledger`: settings checked first, the server loaded only then. */
async function serveDevnetLedger(flags: Record<string, string | undefined>): Promise<void> {
  const result = readDevnetLedgerSettings(process.env, flags);
  if (!result.ok) exitWithErrors(result.errors);
  const portProblem = await probeListen(result.settings.host, result.settings.port);
  if (portProblem !== null) {
    console.error(`poolparty: ${portProblem}`);
    process.exit(1);
  }
  const [{ runDevnetLedger }, { generateApiKey }] = await Promise.all([
    import('@poolparty/devnet-ledger'),
    import('./auth/api-keys.js'),
  ]);
  // The developer key a first seed writes to devnet.json, as `serve` would make it.
  await runDevnetLedger(result.settings, { newApiKey: () => generateApiKey('devnet') });
}

/** The `admin` tree, loaded only when the command line asks for it. */
async function loadAdminCommand(): Promise<Command> {
  const [{ adminCommand }, { openStoreForAdmin }, { openAdminLedger }] = await Promise.all([
    import('./admin/commands.js'),
    import('@poolparty/store'),
    import('./admin/ledger-access.js'),
  ]);
  return adminCommand({
    open: (flags) => openStoreForAdmin(storeLocationOrExit(flags)),
    openLedger: (flags) =>
      openAdminLedger(ledgerLocationOrExit(flags), storeLocationOrExit(flags).dataDir),
    withSettingFlags: withStoreFlags,
    ledgerApiUrl: (flags) => ledgerLocationOrExit(flags).cantonLedgerApiUrl,
    withLedgerSettingFlags: (command) =>
      withSettingFlags(command, settingDefinitionsOf(LEDGER_SETTING_KEYS)),
    treasury: (flags) => treasuryOrExit(flags),
    withTreasurySettingFlags: (command) =>
      withSettingFlags(command, settingDefinitionsOf(TREASURY_SETTING_KEYS)),
    print: (line) => console.log(line),
    fail: (message) => {
      console.error(`poolparty: ${message}`);
      process.exitCode = 1;
    },
    now: () => new Date(),
  });
}

async function buildCli(argv: readonly string[]): Promise<Command> {
  const program = new Command('poolparty')
    .description('PoolParty: non-custodial token swaps for Canton Network parties')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(add --help for the flags of this command)');
  withSettingFlags(
    program.command('serve').description('run the swap service (creates its store on first start)'),
    SETTING_DEFINITIONS,
  ).action(serve);
  withStoreFlags(
    program
      .command('migrate')
      .description(
        "apply the store's pending migrations; refuses a location without a store unless --create",
      )
      .option('--create', 'create a new, empty store where there is none'),
  ).action(migrateStore);
  const devnetLedger = program
    .command('devnet-ledger')
    .description(
      'serve the embedded devnet ledger as a Canton participant and validator would (JSON Ledger API, registries, scan proxy)',
    );
  for (const setting of DEVNET_LEDGER_SETTINGS) {
    devnetLedger.addOption(new Option(`--${setting.flag} <value>`, settingHelp(setting)));
  }
  devnetLedger.action(serveDevnetLedger);
  if (argv[2] === 'admin' || (argv[2] === 'help' && argv[3] === 'admin')) {
    program.addCommand(await loadAdminCommand());
  } else {
    // Listed in `poolparty --help`; its own help and actions load with it.
    program.command('admin').description(ADMIN_DESCRIPTION);
  }
  return program;
}

const ADMIN_DESCRIPTION =
  'operator actions on the store: refunds, flags, discounts, keys, pools, audit, treasury';

await (await buildCli(process.argv)).parseAsync(process.argv);
