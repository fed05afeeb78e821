/**
 * The `poolparty` command: `serve` runs the service, `migrate` brings a store's schema up to date,
 * `admin` carries the operator's actions (admin/commands.ts).
 * Every setting of SPEC §11 is an environment variable and also a `--flag` of these commands.
 */
import { Command, Option } from 'commander';
import { adminCommand, type CommandFlags } from './admin/commands.js';
import { startupBanner } from './banner.js';
import { readSettings, SETTING_DEFINITIONS, type Settings } from './config.js';
import { type RunningService, StartupError, startService } from './service.js';
import { openStore } from './store/index.js';
import { migrate } from './store/migrate.js';

/** How long a graceful shutdown may take before the process gives up waiting. */
export const SHUTDOWN_GRACE_MS = 10_000;

function withSettingFlags(command: Command): Command {
  for (const definition of SETTING_DEFINITIONS) {
    command.addOption(
      new Option(`--${definition.flag} <value>`, `${definition.description} [${definition.env}]`),
    );
  }
  return command;
}

function settingsOrExit(flags: Record<string, string | undefined>): Settings {
  const result = readSettings(process.env, flags);
  if (result.ok) return result.settings;
  for (const line of result.errors) console.error(`poolparty: ${line}`);
  process.exit(2);
}

async function serve(flags: Record<string, string | undefined>): Promise<void> {
  const settings = settingsOrExit(flags);
  let service: RunningService;
  try {
    service = await startService(settings);
  } catch (error) {
    console.error(`poolparty: ${error instanceof StartupError ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(startupBanner(service));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'shutting down');
    const forced = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    forced.unref();
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function migrateStore(flags: Record<string, string | undefined>): Promise<void> {
  const settings = settingsOrExit(flags);
  const db = await openStore({
    dataDir: settings.dataDir,
    ...(settings.databaseUrl !== null ? { databaseUrl: settings.databaseUrl } : {}),
    migrate: false,
  });
  try {
    const applied = await migrate(db);
    console.log(applied.length > 0 ? `applied ${applied.join(', ')}` : 'the store is up to date');
  } finally {
    await db.close();
  }
}

/** The store `serve` works on (migrated, as `serve` would). */
function openAdminStore(flags: CommandFlags) {
  const settingFlags: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(flags)) {
    if (typeof value === 'string') settingFlags[key] = value;
  }
  const settings = settingsOrExit(settingFlags);
  return openStore({
    dataDir: settings.dataDir,
    ...(settings.databaseUrl !== null ? { databaseUrl: settings.databaseUrl } : {}),
  });
}

export function buildCli(): Command {
  const program = new Command('poolparty').description(
    'PoolParty: non-custodial token swaps for Canton Network parties',
  );
  withSettingFlags(program.command('serve').description('run the swap service')).action(serve);
  withSettingFlags(program.command('migrate').description("apply the store's migrations")).action(
    migrateStore,
  );
  program.addCommand(
    adminCommand({
      open: (flags) => openAdminStore(flags),
      withSettingFlags,
      print: (line) => console.log(line),
      fail: (message) => {
        console.error(`poolparty: ${message}`);
        process.exitCode = 1;
      },
      now: () => new Date(),
    }),
  );
  return program;
}

await buildCli().parseAsync(process.argv);
