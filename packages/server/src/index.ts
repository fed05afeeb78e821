/**
 * The server package's public entry: starting the service in a process of one's own (tests,
 * benchmarks, tools) with settings read as `poolparty serve` reads them. The command line is
 * `bin/poolparty.mjs`.
 */
export { hashApiKey } from './auth/api-keys.js';
export {
  EVENT_SUBSCRIBERS_MAX,
  readSettings,
  type Settings,
  type SettingsResult,
} from './config.js';
export type { DevnetParty, DevnetWelcome } from './devnet-bootstrap.js';
export { type RunningService, type StartOptions, StartupError, startService } from './service.js';
export { WEBHOOK_ENDPOINTS_MAX } from './webhooks/endpoints.js';
