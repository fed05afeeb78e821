/**
 * `poolparty admin`: what only an operator may decide, run against the store.
 *
 *   admin refunds list                                   open refund_failed cases
 *   admin refunds retry <intentId>                       a new attempt of the parked refund
 *   admin refunds resolve <intentId> --note "…" [--release]
 *   admin flags list                                     every open operator flag
 *   admin flags retry <flagId>                           send a flagged payout or return again, once
 *   admin flags resolve <flagId> --note "…"              e.g. a reconciliation mismatch
 *   admin discounts add --pool <id> | --api-key <id> | --wallet-party <party>
 *                [--network-charge-bps N] [--platform-charge-bps N] [--from T] [--until T]
 *   admin discounts list [--all]                         policies in force (or every one)
 *   admin discounts remove <discountId>
 *   admin keys list                                      every developer key and its limits
 *   admin keys limits <keyId|prefix> [--read N] [--create N]   shows, or sets (N or "default")
 *   admin pools list | pause <poolId> [--reason "…"] | resume <poolId>
 *   admin pools show <poolId>                            the books per side, the last reconciliation
 *   admin pools add --swap-party P --lp-party Q --base ADMIN:ID --quote ADMIN:ID
 *                [--fee-bps N] [--pool-id ID]                 reserves: P's holdings on the ledger
 *   admin pools import-devnet [--from URL]               the pools `poolparty devnet-ledger` seeded
 *   admin audit list [--limit N] [--since T]             what operators changed
 *   admin treasury sweep [--pool ID]                     the platform's fees to the treasury now
 *   admin treasury list [--pool ID] [--limit N]          what is sweepable, and the sweeps so far
 *
 * Every change is recorded in `admin_audit` (who: `--actor` or the OS user; when; what), in the
 * transaction of the change where the command makes it itself. Running services hear of it
 * through that record (admin/change-feed.ts) and apply it within moments.
 *
 * A resolved `reconciliation_mismatch` flag lets the pool's next reconciliation run pass, if the
 * books and the ledger agree by then; until that run the pool stays blocked.
 */
import type { AmountsByInstrument } from '@poolparty/core';
import { LedgerError, type LedgerPort } from '@poolparty/ledger';
import type { Database } from '@poolparty/store';
import {
  getPool,
  listAdminActions,
  listOpenOperatorFlags,
  listPools,
  recordAdminAction,
  resolveOperatorFlag,
  StoreProblem,
} from '@poolparty/store';
import { Command, Option } from 'commander';
import { AdminError } from './admin-error.js';
import { DEVNET_POOLS_PATH, type DevnetPoolEntry, readDevnetPoolManifest } from './devnet-pools.js';
import {
  addDiscount,
  type DiscountRequest,
  describeDiscount,
  listDiscounts,
  removeDiscount,
} from './discounts.js';
import { retryFlag } from './flag-retry.js';
import {
  actorOf,
  parseChargeBps,
  parseCount,
  parseFeeBps,
  parseId,
  parseInstrument,
  parseMoment,
  parsePoolId,
  parseRateLimit,
} from './inputs.js';
import { changeKeyLimits, describeKey, describeLimits, findKey, listKeys } from './keys.js';
import { defaultPoolId, openPool, type PoolOpening } from './pool-opening.js';
import { describePool, describePoolBooks, readPoolBooks, setPoolStatusAudited } from './pools.js';
import { listRefundCases, type RefundCase, resolveRefund, retryRefund } from './refunds.js';
import {
  describeSideSweep,
  describeSweep,
  listTreasurySweeps,
  SWEEPS_LIST_DEFAULT,
  SWEEPS_LIST_MAX,
  sweepableLines,
  sweepNow,
  treasuryTargetOf,
} from './treasury.js';

/** Open flags listed at most by `admin flags list`. */
const FLAGS_LIST_MAX = 500;
/** Audit entries listed by default, and at most, by `admin audit list`. */
const AUDIT_LIST_DEFAULT = 50;
const AUDIT_LIST_MAX = 10_000;

export type CommandFlags = Record<string, string | boolean | undefined>;

export interface AdminIo {
  /** Opens the store the command works on (settings from the environment and the flags). */
  open(flags: CommandFlags): Promise<Database>;
  /** Adds the service's setting flags (`--database-url`, …) to a command. */
  withSettingFlags?(command: Command): Command;
  /**
   * Opens the ledger a command reads (`admin pools add`), from the `LEDGER` and `CANTON_*`
   * settings; refused with an `AdminError` where there is none to read.
   */
  openLedger?(flags: CommandFlags): Promise<{ ledger: LedgerPort; close(): Promise<void> }>;
  /** Adds the ledger's setting flags (`--ledger`, `--canton-…`) to a command. */
  withLedgerSettingFlags?(command: Command): Command;
  /** The participant's JSON Ledger API URL the settings name, if any. */
  ledgerApiUrl?(flags: CommandFlags): string | null;
  print(line: string): void;
  /** Reports a refused request; the command then exits non-zero. */
  fail(message: string): void;
  now(): Date;
  /** Who changes are attributed to without `--actor`; the OS user when absent. */
  actor?(): string;
  /**
   * Where treasury sweeps go and what each side keeps back (`POOLPARTY_TREASURY_PARTY`,
   * `POOLPARTY_TREASURY_NETWORK_RESERVE`; on devnet the seeded treasury); no party: refused.
   */
  treasury?(flags: CommandFlags): {
    readonly treasuryParty: string | null;
    readonly networkReserve: AmountsByInstrument;
  };
  /** Adds the treasury's setting flags (`--treasury-party`, …) to a command. */
  withTreasurySettingFlags?(command: Command): Command;
}

interface Audited {
  readonly actor?: string;
}

/** What each subcommand's builder gets: the io, and the helpers every subcommand uses. */
interface Builders {
  /** A subcommand of `parent`, with the service's setting flags. */
  readonly leaf: (parent: Command, name: string) => Command;
  /** A subcommand that changes something: it says who did, for the audit. */
  readonly changing: (parent: Command, name: string) => Command;
  /** The action that opens the store, does `work` and closes it; refusals fail the command. */
  readonly run: Run;
  /** Who makes a change, and when. */
  readonly by: (options: Audited) => Who;
  /**
   * Records a change its store function made in a transaction of its own; `who` is worked out
   * before the change, so a bad `--actor` refuses the command instead of leaving it unrecorded.
   */
  readonly audit: (
    db: Database,
    who: Who,
    action: string,
    subject: string,
    details: Record<string, unknown>,
  ) => Promise<void>;
  readonly io: AdminIo;
}

interface Who {
  readonly actor: string;
  readonly now: Date;
}

type Run = <A extends unknown[]>(
  work: (db: Database, ...args: A) => Promise<void>,
) => (...args: A) => Promise<void>;

/** Adds one subcommand to its group. */
type Subcommand = (group: Command, builders: Builders) => void;

interface CommandGroup {
  readonly name: string;
  readonly description: string;
  readonly subcommands: readonly Subcommand[];
}

/** The groups of `admin` and their subcommands, in the order `--help` lists them. */
const ADMIN_GROUPS: readonly CommandGroup[] = [
  {
    name: 'refunds',
    description: 'refunds parked for an operator',
    subcommands: [refundsList, refundsRetry, refundsResolve],
  },
  {
    name: 'flags',
    description: 'situations only an operator can resolve',
    subcommands: [flagsList, flagsRetry, flagsResolve],
  },
  {
    name: 'discounts',
    description: 'fee discount policies',
    subcommands: [discountsAdd, discountsList, discountsRemove],
  },
  {
    name: 'keys',
    description: "developer API keys' rate limits",
    subcommands: [keysList, keysLimits],
  },
  {
    name: 'pools',
    description: 'adding, showing, pausing and resuming pools',
    subcommands: [poolsAdd, poolsImportDevnet, poolsList, poolsShow, poolsPause, poolsResume],
  },
  {
    name: 'audit',
    description: 'what operators changed, and who',
    subcommands: [auditList],
  },
  {
    name: 'treasury',
    description: "sweeping the pools' platform fees to the treasury party",
    subcommands: [treasurySweep, treasuryList],
  },
];

export function adminCommand(io: AdminIo): Command {
  const admin = new Command('admin').description(
    'operator actions on the store: refunds, flags, discounts, keys, pools, audit, treasury',
  );
  const builders = buildersOf(io);
  for (const { name, description, subcommands } of ADMIN_GROUPS) {
    const group = admin.command(name).description(description);
    for (const add of subcommands) add(group, builders);
  }
  return admin;
}

function buildersOf(io: AdminIo): Builders {
  const leaf = (parent: Command, name: string) => {
    const command = parent.command(name);
    return io.withSettingFlags ? io.withSettingFlags(command) : command;
  };
  return {
    leaf,
    changing: (parent, name) =>
      leaf(parent, name).addOption(
        new Option(
          '--actor <name>',
          'who the change is recorded as made by (default: the OS user)',
        ),
      ),
    run: runner(io),
    by: (options) => ({
      actor:
        options.actor !== undefined ? actorOf(options.actor) : (io.actor?.() ?? actorOf(undefined)),
      now: io.now(),
    }),
    audit: async (db, who, action, subject, details) => {
      await recordAdminAction(db, { actor: who.actor, action, subject, details, at: who.now });
    },
    io,
  };
}

function runner(io: AdminIo): Run {
  return <A extends unknown[]>(work: (db: Database, ...args: A) => Promise<void>) =>
    async (...args: A) => {
      const command = args.at(-1) as Command;
      let db: Database;
      try {
        db = await io.open(command.opts<CommandFlags>());
      } catch (error) {
        if (!(error instanceof StoreProblem)) throw error;
        io.fail(error.message);
        return;
      }
      try {
        await work(db, ...args);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        io.fail(error.message);
      } finally {
        await db.close();
      }
    };
}

// --- refunds ------------------------------------------------------------------------------------

function refundsList(refunds: Command, { leaf, run, io }: Builders): void {
  leaf(refunds, 'list')
    .description('open refund_failed cases, oldest first')
    .action(
      run(async (db) => {
        const cases = await listRefundCases(db);
        if (cases.length === 0) io.print('no open refund cases');
        for (const refund of cases) io.print(describeCase(refund));
      }),
    );
}

function refundsRetry(refunds: Command, { changing, run, by, audit, io }: Builders): void {
  changing(refunds, 'retry <intentId>')
    .description('record a new attempt of the refund; a running worker submits it')
    .action(
      run(async (db, subject: string, options: Audited) => {
        const who = by(options);
        const retried = await retryRefund(db, subject, who.now);
        await audit(db, who, 'refunds.retry', subject, { commandId: retried.commandId });
        io.print(`recorded ${retried.commandId}: ${retried.amount} to ${retried.receiver}`);
      }),
    );
}

function refundsResolve(refunds: Command, { changing, run, by, audit, io }: Builders): void {
  changing(refunds, 'resolve <intentId>')
    .description('close the case: the funds were handled off-band')
    .requiredOption('--note <text>', 'what was done, for the record')
    .option('--release', 'the parked amount left the swap party off-band: take it off the books')
    .action(
      run(async (db, subject: string, options: { note: string; release?: boolean } & Audited) => {
        const who = by(options);
        const flag = await resolveRefund(db, subject, {
          note: options.note,
          release: options.release === true,
          now: who.now,
        });
        await audit(db, who, 'refunds.resolve', subject, {
          flagId: flag.id,
          note: options.note,
          release: options.release === true,
        });
        io.print(`resolved flag ${flag.id}: ${flag.resolution ?? ''}`);
      }),
    );
}

// --- flags --------------------------------------------------------------------------------------

function flagsList(flags: Command, { leaf, run, io }: Builders): void {
  leaf(flags, 'list')
    .description('open operator flags, oldest first')
    .action(
      run(async (db) => {
        const open = await listOpenOperatorFlags(db, FLAGS_LIST_MAX);
        if (open.length === 0) io.print('no open flags');
        for (const flag of open) {
          const subject = flag.intentId ?? flag.depositId ?? '-';
          io.print(
            `${flag.id}\t${flag.kind}\t${subject}\t${flag.createdAt.toISOString()}\t${JSON.stringify(flag.details)}`,
          );
        }
      }),
    );
}

function flagsRetry(flags: Command, { changing, run, by, io }: Builders): void {
  changing(flags, 'retry <flagId>')
    .description(
      "send again, once, what a flag says the service gave up sending: a withdrawal's payout (withdrawal_payout_failed), an amount returned to a liquidity provider (liquidity_lp_return_failed), a deposit whose forward failed, back to its sender (liquidity_forward_failed), or a swap's refund (refund_failed); the flag closes, the change is audited, and a running worker submits it",
    )
    .action(
      run(async (db, id: string, options: Audited) => {
        const flagId = parseId('flag', id);
        io.print(await retryFlag(db, flagId, by(options)));
      }),
    );
}

function flagsResolve(flags: Command, { changing, run, by, audit, io }: Builders): void {
  changing(flags, 'resolve <flagId>')
    .description('mark a flag resolved')
    .requiredOption('--note <text>', 'what was done, for the record')
    .action(
      run(async (db, id: string, options: { note: string } & Audited) => {
        const flagId = parseId('flag', id);
        if (options.note.trim().length === 0)
          throw new AdminError('validation_error', 'a note is required');
        const who = by(options);
        const flag = await resolveOperatorFlag(db, {
          id: flagId,
          resolution: options.note,
          now: io.now(),
        });
        if (flag === null) throw new AdminError('not_found', `no open flag ${flagId}`);
        await audit(db, who, 'flags.resolve', `flag ${flag.id}`, {
          kind: flag.kind,
          note: options.note,
        });
        io.print(`resolved flag ${flag.id} (${flag.kind})`);
      }),
    );
}

// --- audit --------------------------------------------------------------------------------------

function auditList(auditLog: Command, { leaf, run, io }: Builders): void {
  leaf(auditLog, 'list')
    .description('the latest changes, oldest of them first')
    .option('--limit <n>', `how many (default ${AUDIT_LIST_DEFAULT})`)
    .option('--since <time>', 'only changes from this ISO 8601 time on')
    .action(
      run(async (db, options: { limit?: string; since?: string }) => {
        const limit =
          options.limit === undefined
            ? AUDIT_LIST_DEFAULT
            : parseCount('--limit', options.limit, AUDIT_LIST_MAX);
        const since =
          options.since === undefined ? undefined : parseMoment('--since', options.since);
        const actions = await listAdminActions(db, limit, since === undefined ? {} : { since });
        if (actions.length === 0) io.print('no recorded changes');
        for (const action of actions) {
          io.print(
            [
              action.at.toISOString(),
              action.actor,
              action.action,
              action.subject,
              JSON.stringify(action.details),
            ].join('\t'),
          );
        }
      }),
    );
}

// --- discounts ----------------------------------------------------------------------------------

interface DiscountOptions extends Audited {
  readonly pool?: string;
  readonly apiKey?: string;
  readonly walletParty?: string;
  readonly networkChargeBps?: string;
  readonly platformChargeBps?: string;
  readonly from?: string;
  readonly until?: string;
}

/** The policy an operator asked for, checked before the store is touched. */
export function discountRequestOf(options: DiscountOptions): DiscountRequest {
  const targets = [
    ['pool', options.pool],
    ['api_key', options.apiKey],
    ['wallet_party', options.walletParty],
  ] as const;
  const given = targets.filter(([, value]) => value !== undefined);
  const [chosen] = given;
  if (chosen === undefined || given.length > 1) {
    throw new AdminError(
      'validation_error',
      'give exactly one target: --pool <poolId>, --api-key <keyId> or --wallet-party <party>',
    );
  }
  const network =
    options.networkChargeBps === undefined
      ? undefined
      : parseChargeBps('--network-charge-bps', options.networkChargeBps);
  const platform =
    options.platformChargeBps === undefined
      ? undefined
      : parseChargeBps('--platform-charge-bps', options.platformChargeBps);
  if (network === undefined && platform === undefined) {
    throw new AdminError(
      'validation_error',
      'give --network-charge-bps and/or --platform-charge-bps',
    );
  }
  return {
    targetType: chosen[0],
    target: chosen[1] as string,
    ...(network !== undefined && { networkChargeBps: network }),
    ...(platform !== undefined && { platformChargeBps: platform }),
    ...(options.from !== undefined && { validFrom: parseMoment('--from', options.from) }),
    ...(options.until !== undefined && { validUntil: parseMoment('--until', options.until) }),
  };
}

function discountsAdd(discounts: Command, { changing, run, by, io }: Builders): void {
  changing(discounts, 'add')
    .description(
      'add a policy: the share of a fee still charged, in basis points (10000 = full fee; network 50 % off = 5000, platform 30 % off = 7000)',
    )
    .option('--pool <poolId>', 'for every swap on this pool')
    .option('--api-key <keyId>', "for this developer key's swaps (key id or display prefix)")
    .option('--wallet-party <partyId>', "for this wallet party's swaps")
    .option('--network-charge-bps <bps>', 'share of the network fee charged, 0…10000')
    .option('--platform-charge-bps <bps>', 'share of the platform fee charged, 0…10000')
    .option('--from <time>', 'valid from this ISO 8601 time (default: now on)')
    .option('--until <time>', 'valid until this ISO 8601 time, exclusive (default: no end)')
    .action(
      run(async (db, options: DiscountOptions) => {
        const request = discountRequestOf(options);
        const stored = await addDiscount(db, request, by(options));
        io.print(`added ${describeDiscount(stored)}`);
      }),
    );
}

function discountsList(discounts: Command, { leaf, run, io }: Builders): void {
  leaf(discounts, 'list')
    .description('policies in force or yet to start, oldest first')
    .option('--all', 'also those whose validity ended')
    .action(
      run(async (db, options: { all?: boolean }) => {
        const policies = await listDiscounts(db, {
          now: io.now(),
          includeEnded: options.all === true,
        });
        if (policies.length === 0) io.print('no discounts');
        for (const policy of policies) io.print(describeDiscount(policy));
      }),
    );
}

function discountsRemove(discounts: Command, { changing, run, by, io }: Builders): void {
  changing(discounts, 'remove <discountId>')
    .description('delete a policy; its fees are charged in full again')
    .action(
      run(async (db, id: string, options: Audited) => {
        const removed = await removeDiscount(db, parseId('discount', id), by(options));
        io.print(`removed ${describeDiscount(removed)}`);
      }),
    );
}

// --- keys ---------------------------------------------------------------------------------------

function keysList(keys: Command, { leaf, run, io }: Builders): void {
  leaf(keys, 'list')
    .description('every key, oldest first, with its state and limits')
    .action(
      run(async (db) => {
        const all = await listKeys(db);
        if (all.length === 0) io.print('no API keys');
        for (const key of all) io.print(describeKey(key, io.now()));
      }),
    );
}

function keysLimits(keys: Command, { changing, run, by, io }: Builders): void {
  changing(keys, 'limits <key>')
    .description(
      'show a key\'s per-minute rate limits, or set them (key id or display prefix; N or "default")',
    )
    .option('--read <n>', 'requests per minute other than swap creation')
    .option('--create <n>', 'swap creations per minute')
    .action(
      run(async (db, text: string, options: { read?: string; create?: string } & Audited) => {
        if (options.read === undefined && options.create === undefined) {
          const key = await findKey(db, text);
          io.print(`${key.keyId} (${key.prefix}…): ${describeLimits(key)}`);
          return;
        }
        const changed = await changeKeyLimits(
          db,
          text,
          {
            ...(options.read !== undefined && {
              readsPerMin: parseRateLimit('--read', options.read),
            }),
            ...(options.create !== undefined && {
              swapsPerMin: parseRateLimit('--create', options.create),
            }),
          },
          by(options),
        );
        io.print(`${changed.keyId} (${changed.prefix}…): ${describeLimits(changed)}`);
      }),
    );
}

// --- pools --------------------------------------------------------------------------------------

interface PoolAddOptions extends Audited {
  readonly swapParty: string;
  readonly lpParty: string;
  readonly base: string;
  readonly quote: string;
  readonly feeBps?: string;
  readonly poolId?: string;
  readonly owner?: string;
}

/** The pool an operator asked for, checked before the ledger or the store is reached. */
function poolOpeningOf(options: PoolAddOptions): PoolOpening {
  const base = parseInstrument('--base', options.base);
  const quote = parseInstrument('--quote', options.quote);
  return {
    poolId:
      options.poolId === undefined
        ? defaultPoolId(base, quote)
        : parsePoolId('--pool-id', options.poolId),
    swapParty: options.swapParty,
    lpParty: options.lpParty,
    base,
    quote,
    owner: options.owner ?? null,
    feeBps:
      options.feeBps === undefined
        ? POOL_FEE_BPS_DEFAULT
        : parseFeeBps('--fee-bps', options.feeBps),
  };
}

/** A new pool's fee unless `--fee-bps` says otherwise: the devnet pools' 0.3 %. */
const POOL_FEE_BPS_DEFAULT = 30;

/**
 * Runs `use` with a ledger opened from the command's flags, closed afterwards; a ledger's refusal
 * becomes the command's one-line error rather than a stack trace.
 */
async function withLedger(
  io: AdminIo,
  flags: CommandFlags,
  use: (ledger: LedgerPort) => Promise<void>,
): Promise<void> {
  if (io.openLedger === undefined)
    throw new AdminError('ledger_unavailable', 'no ledger to read the pools from');
  const { ledger, close } = await io.openLedger(flags);
  try {
    await use(ledger);
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    throw new AdminError(
      'ledger_unavailable',
      `the ledger answered ${error.code}: ${error.message}`,
    );
  } finally {
    await close();
  }
}

function poolsAdd(pools: Command, { changing, run, by, io }: Builders): void {
  const add = changing(pools, 'add')
    .description(
      "add a pool whose liquidity the swap party holds on the ledger: its reserves are the swap party's holdings of both instruments",
    )
    .requiredOption('--swap-party <partyId>', 'the party that holds the reserves and settles swaps')
    .requiredOption('--lp-party <partyId>', "the liquidity provider's party")
    .requiredOption(
      '--base <admin:id>',
      "side A, e.g. DSO::1220…:Amulet (the admin's party id, then the symbol)",
    )
    .requiredOption('--quote <admin:id>', 'side B, e.g. USDCxIssuer::1220…:USDCx')
    .option('--fee-bps <bps>', `the pool's fee in basis points (default ${POOL_FEE_BPS_DEFAULT})`)
    .option('--pool-id <id>', 'the pool id (default: the two symbols, e.g. amulet-usdcx)')
    .option(
      '--owner <partyId>',
      'the party credited with the liquidity units of reserves the swap party holds (not needed for a pool that starts empty)',
    )
    .action(
      run(async (db, options: PoolAddOptions, command: Command) => {
        const opening = poolOpeningOf(options);
        const who = by(options);
        await withLedger(io, command.opts<CommandFlags>(), async (ledger) => {
          const pool = await openPool(db, ledger, opening, who);
          io.print(`added ${describePool(pool)}`);
        });
      }),
    );
  if (io.withLedgerSettingFlags) io.withLedgerSettingFlags(add);
}

function poolsImportDevnet(pools: Command, { changing, run, by, io }: Builders): void {
  const importDevnet = changing(pools, 'import-devnet')
    .description(
      `add the pools a \`poolparty devnet-ledger\` seeded (its ${DEVNET_POOLS_PATH}), as pools add would; pools in the store already stay as they are`,
    )
    .option('--from <url>', 'the devnet ledger server (default: CANTON_LEDGER_API_URL)')
    .action(
      run(async (db, options: { from?: string } & Audited, command: Command) => {
        const who = by(options);
        if (io.openLedger === undefined)
          throw new AdminError('ledger_unavailable', 'no ledger to read the pools from');
        const flags = command.opts<CommandFlags>();
        const from = options.from ?? io.ledgerApiUrl?.(flags) ?? null;
        if (from === null)
          throw new AdminError('validation_error', 'give --from <url> of the devnet ledger server');
        const entries = await readDevnetPoolManifest(from);
        await withLedger(io, flags, async (ledger) => {
          for (const entry of entries) await importDevnetPool(db, ledger, entry, who, io);
        });
      }),
    );
  if (io.withLedgerSettingFlags) io.withLedgerSettingFlags(importDevnet);
}

/** Opens one pool of the devnet ledger's manifest, unless the store has it already. */
async function importDevnetPool(
  db: Database,
  ledger: LedgerPort,
  entry: DevnetPoolEntry,
  who: Who,
  io: AdminIo,
): Promise<void> {
  if ((await getPool(db, entry.poolId)) !== null) {
    io.print(`${entry.poolId}\tin the store already`);
    return;
  }
  const pool = await openPool(
    db,
    ledger,
    {
      poolId: entry.poolId,
      swapParty: entry.swapParty,
      lpParty: entry.lpParty,
      base: entry.tokenA,
      quote: entry.tokenB,
      feeBps: entry.feeBps,
      // The devnet ledger's seed funded the swap party; its LP party stands for that funder.
      owner: entry.lpParty,
    },
    who,
  );
  io.print(`added ${describePool(pool)}`);
}

function poolsList(pools: Command, { leaf, run, io }: Builders): void {
  leaf(pools, 'list')
    .description('every pool with its status and reserves')
    .action(
      run(async (db) => {
        for (const pool of await listPools(db)) io.print(describePool(pool));
      }),
    );
}

function poolsShow(pools: Command, { leaf, run, io }: Builders): void {
  leaf(pools, 'show <poolId>')
    .description(
      "the pool's books: per side the reserve and the inflight, outgoing and fees buckets, what the LP party holds in passage, the LP supply, fee and status, and the latest reconciliation",
    )
    .action(
      run(async (db, poolId: string) => {
        for (const line of describePoolBooks(await readPoolBooks(db, poolId))) io.print(line);
      }),
    );
}

function poolsPause(pools: Command, { changing, run, by, io }: Builders): void {
  changing(pools, 'pause <poolId>')
    .description('refuse quotes and new swaps on the pool (409 pool_paused) until resumed')
    .option('--reason <text>', 'why, for the record')
    .action(
      run(async (db, poolId: string, options: { reason?: string } & Audited) => {
        await setPoolStatusAudited(db, poolId, 'paused', {
          ...by(options),
          ...(options.reason !== undefined && { reason: options.reason }),
        });
        io.print(`paused pool ${poolId}`);
      }),
    );
}

function poolsResume(pools: Command, { changing, run, by, io }: Builders): void {
  changing(pools, 'resume <poolId>')
    .description('take quotes and swaps on the pool again')
    .action(
      run(async (db, poolId: string, options: Audited) => {
        await setPoolStatusAudited(db, poolId, 'active', by(options));
        io.print(`resumed pool ${poolId}`);
      }),
    );
}

function describeCase(refund: RefundCase): string {
  const subject = refund.intentId ?? `deposit ${refund.depositId ?? '?'}`;
  const what =
    refund.amount === null || refund.instrument === null
      ? 'no refund recorded'
      : `${refund.amount} ${refund.instrument.id} (${refund.instrument.admin}) to ${refund.receiver ?? '?'}`;
  const attempt = refund.lastAttempt
    ? `${refund.lastAttempt.commandId} ${refund.lastAttempt.status}`
    : 'no attempt';
  return [
    `flag ${refund.flagId}`,
    subject,
    refund.status ?? '?',
    refund.poolId ?? '-',
    what,
    attempt,
    refund.error ?? '',
    refund.raisedAt.toISOString(),
  ].join('\t');
}

// --- treasury -----------------------------------------------------------------------------------

/** The treasury settings of the command's flags; none configured: no party, nothing kept. */
function treasuryOf(io: AdminIo, command: Command) {
  return io.treasury?.(command.opts<CommandFlags>()) ?? { treasuryParty: null, networkReserve: {} };
}

function treasurySweep(treasury: Command, { changing, run, by, audit, io }: Builders): void {
  const sweep = changing(treasury, 'sweep')
    .description(
      "record a sweep of every side's sweepable fees to the treasury now; a running worker submits it",
    )
    .option('--pool <poolId>', 'only this pool (default: every pool)')
    .action(
      run(async (db, options: { pool?: string } & Audited, command: Command) => {
        const target = treasuryTargetOf(treasuryOf(io, command));
        const poolId = options.pool === undefined ? null : parsePoolId('--pool', options.pool);
        const who = by(options);
        const sides = await sweepNow(db, { target, poolId, now: who.now });
        for (const side of sides) {
          if (side.kind === 'recorded') {
            const { sweep: recorded } = side;
            await audit(db, who, 'treasury.sweep', recorded.poolId, {
              sweepId: recorded.sweepId,
              side: recorded.side,
              amount: recorded.amount,
              treasuryParty: recorded.treasuryParty,
            });
          }
          io.print(describeSideSweep(side));
        }
      }),
    );
  if (io.withTreasurySettingFlags) io.withTreasurySettingFlags(sweep);
}

function treasuryList(treasury: Command, { leaf, run, io }: Builders): void {
  const list = leaf(treasury, 'list')
    .description('what each pool side could sweep now, then the latest sweeps, newest first')
    .option('--pool <poolId>', 'only this pool (default: every pool)')
    .option('--limit <n>', `sweeps listed (default ${SWEEPS_LIST_DEFAULT})`)
    .action(
      run(async (db, options: { pool?: string; limit?: string }, command: Command) => {
        const poolId = options.pool === undefined ? null : parsePoolId('--pool', options.pool);
        const limit =
          options.limit === undefined
            ? SWEEPS_LIST_DEFAULT
            : parseCount('--limit', options.limit, SWEEPS_LIST_MAX);
        const { networkReserve } = treasuryOf(io, command);
        for (const line of await sweepableLines(db, poolId, networkReserve)) io.print(line);
        const sweeps = await listTreasurySweeps(db, poolId, limit);
        if (sweeps.length === 0) io.print('no sweeps');
        for (const recorded of sweeps) io.print(describeSweep(recorded));
      }),
    );
  if (io.withTreasurySettingFlags) io.withTreasurySettingFlags(list);
}
