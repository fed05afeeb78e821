/**
 * `@poolparty/devnet-ledger`: the devnet ledger server — the embedded local ledger served at the
 * paths a Canton participant and its validator serve, plus the devnet conveniences — and
 * `poolparty devnet-ledger`, which runs it on a data folder. Two lighter entries serve the
 * service: `/devnet` (the seed kept in `devnet.json` and the `/devnet` operations, without the
 * server) and `/settings` (the command's settings, read before anything is loaded). The embedded
 * ledger's atomic swaps (`embeddedAtomicSwaps`) are its interactive submission run in process.
 */
export type { DevnetPoolListing } from './devnet/pool-manifest.js';
export { embeddedAtomicSwaps } from './embedded-atomic-swaps.js';
export {
  DSO_PARTY,
  LEDGER_API_VERSION,
  PARTICIPANT_ID,
  SYNCHRONIZER_ALIAS,
  SYNCHRONIZER_ID,
} from './identity.js';
export {
  type DevnetLedgerSeeding,
  devnetLedgerBanner,
  faultsInjectedLine,
  runDevnetLedger,
} from './serve-ledger.js';
export {
  CHECKPOINT_INTERVAL_MS,
  type DevnetDisclosedHolding,
  type DevnetLedgerServer,
  type DevnetLedgerServerOptions,
  startDevnetLedgerServer,
} from './server.js';
export { DEFAULT_USER } from './users.js';
